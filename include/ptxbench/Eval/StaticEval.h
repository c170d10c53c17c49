//===- StaticEval.h - A sample's static verdict, without a GPU --*- C++ -*-===//
//
// The part of `ptxbench eval` that needs no GPU: load the sample's code
// (the solution file, or the code block of the model's response), compile
// CUDA C++ with NVRTC or Triton against the task, import the PTX, hash its canonical form, and build
// the analysis report against the task's requested families. prepare()
// stops after the hash so identical samples can share one analysis.
// Each evaluator owns its MLIRContext: use one per thread.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_STATICEVAL_H
#define PTXBENCH_EVAL_STATICEVAL_H

#include "ptxbench/Eval/Sample.h"
#include "ptxbench/Eval/SampleTree.h"
#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Toolchain/CudaCompiler.h"

#include <memory>
#include <vector>

namespace ptxbench::eval {

struct StaticOptions {
  std::string arch = "sm_90a";
  /// ISA-table family names (wgmma, tma, ...).
  std::vector<std::string> requested;
  /// Assemble with ptxas (resources, ptxas warnings, serialized wgmma).
  bool assemble = true;
  bool sass = false;
  /// The task requires fp32 accumulation (f16-accumulator findings).
  bool f32Accumulate = false;
  /// How .cu samples are compiled: NVRTC in a child process under a time
  /// and memory limit when `compileLimits.helper` is set.
  toolchain::CompileLimits compileLimits;
  /// The task a Triton sample is compiled against (its kernel's signature
  /// comes from the task's tensors); Triton samples need it.
  const runtime::Task *task = nullptr;
};

/// Fills `record`'s code, language and solution path from `input`'s files.
/// On failure sets the status (no_solution, extract_error) and error, and
/// returns false.
bool loadSolution(const SampleInput &input, SampleRecord &record);

/// Fills `record.generation` from `input`'s generation.json: an answered
/// request's usage, cost and latency with its failed attempts', or for a
/// request that failed for good what its attempts were charged. Returns
/// false and leaves it unknown when there is none, or it is past 1 MiB or
/// not generate's.
bool loadGeneration(const SampleInput &input, SampleRecord &record);

class StaticEvaluator {
public:
  StaticEvaluator();
  ~StaticEvaluator();

  /// Compiles and imports `record.code` and sets its canonical hash. On
  /// failure sets the status (compile_error, import_error), the error and
  /// the compiler's messages, and returns false.
  bool prepare(SampleRecord &record, const StaticOptions &options);
  /// Analyzes the module prepare() imported: the report's JSON into
  /// `record.staticJson`, status `analyzed`.
  void analyze(SampleRecord &record, const StaticOptions &options);
  /// The kernels of the module prepare() imported (what a launch plan is
  /// held against); kept after analyze().
  llvm::ArrayRef<runtime::ModuleKernel> kernels() const;
  /// The PTX prepare() imported: NVRTC's output for a .cu sample, Triton's
  /// for a .py one.
  llvm::StringRef ptx() const;
  /// A Triton sample's compile metadata (TritonKernelBuild) as JSON; empty
  /// for other samples.
  std::string tritonBuildJson() const;
  /// The plan of the sample prepare() compiled: a Triton sample's lowered
  /// plan (or the mistakes that kept it from being one), else the plan
  /// parsed from the code.
  llvm::Expected<runtime::LaunchPlan> plan(const SampleRecord &record) const;
  /// A Triton sample's plan did not fit its kernel or the task (plan()
  /// says how); it may have kept the kernel from compiling.
  bool hasPlanError() const;

private:
  bool prepareTriton(SampleRecord &record, const StaticOptions &options);

  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_STATICEVAL_H
