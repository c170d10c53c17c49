//===- TritonPlan.h - A Triton submission's plan, compiled ------*- C++ -*-===//
//
// A Triton submission's launch plan (`# @ptxbench` lines, docs/triton.md)
// names one @triton.jit kernel, its grid, num_warps, num_stages,
// constexprs and arguments. Against a task it becomes the kernel's Triton
// signature (task tensors are `*bf16`-like pointers, tensor maps host-side
// tensor descriptors, scalars `i32`...; pointers and integers that are
// multiples of 16 in every workload are specialized as 16-divisible, as
// Triton's launcher would) and, once the kernel is compiled, the plan the
// harness runs: 32 * num_warps threads per program, the shared memory
// Triton allocated, each descriptor expanded into the tensor map (encoded
// as Triton encodes it) and its shape and strides, and Triton's scratch
// pointers appended. buildTriton() does all of it.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_TRITONPLAN_H
#define PTXBENCH_RUNTIME_TRITONPLAN_H

#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Toolchain/TritonCompiler.h"

#include <optional>
#include <string>

namespace ptxbench::runtime {

struct Task;
struct Workload;

/// Every workload of `task`, development and held-out: one compile serves
/// them all, so specialization is decided over all of them.
std::vector<Workload> allWorkloads(const Task &task);

/// The compile request for the kernel of the Triton plan `plan`.
llvm::Expected<toolchain::TritonKernelSpec>
tritonKernelSpec(const LaunchPlan &plan, const Task &task);

/// `plan` as the harness runs it, given what Triton compiled (`build`).
/// Errors are at the plan's lines.
llvm::Expected<LaunchPlan>
lowerTritonPlan(const LaunchPlan &plan, const Task &task,
                const toolchain::TritonKernelBuild &build);

/// A Triton submission compiled against a task.
struct TritonBuild {
  /// Every mistake of the plan (its syntax, its names against the task and
  /// the kernel's signature, what Triton compiled), one `file:line:col:
  /// error: ...` line each; empty when there is none.
  std::string planError;
  /// The compile's outcome; `compiled.ok` false with no stage when the plan
  /// was wrong before anything compiled.
  toolchain::CompiledTriton compiled;
  /// The plan the harness runs, when it compiled and lowered.
  std::optional<LaunchPlan> lowered;
};

/// Parses the plan of `source` (named `fileName`), holds it against
/// `task`'s every workload, compiles its kernel for `arch` under `limits`
/// and lowers the plan.
TritonBuild buildTriton(llvm::StringRef source, llvm::StringRef fileName,
                        llvm::StringRef arch, const Task &task,
                        const toolchain::TritonLimits &limits);

/// The Triton-lowered plan of `source` when `buildJsonPath` names the
/// TritonKernelBuild JSON a parent wrote (the worker's side), else the plan
/// parsed from `source`.
llvm::Expected<LaunchPlan> submissionPlan(llvm::StringRef source,
                                          llvm::StringRef fileName,
                                          const Task &task,
                                          llvm::StringRef buildJsonPath);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_TRITONPLAN_H
