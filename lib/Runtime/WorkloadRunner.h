//===- WorkloadRunner.h - One workload on the GPU ---------------*- C++ -*-===//
//
// The worker's per-workload state, shared by WorkloadRunner.cpp (launching
// the plan, the order of checks and timing, the baseline and the feature
// counts), WorkloadInputs.cpp (input sets, poisoned outputs and
// workspaces) and WorkloadChecks.cpp (the checks of outputs and inputs
// after each trial and each timed launch). Private to lib/Runtime; needs
// the CUDA headers.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_WORKLOADRUNNER_H
#define PTXBENCH_LIB_RUNTIME_WORKLOADRUNNER_H

#include "Gpu.h"
#include "Operator.h"

#include "ptxbench/Runtime/LaunchPlan.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Runtime/Task.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ptxbench::runtime {

/// Lets `fn` launch with `smem` bytes of dynamic shared memory: above 48 KiB
/// of static plus dynamic shared memory a kernel must opt in (a submission
/// cannot: the harness owns the host side). Returns why it cannot, or "".
std::string allowDynamicSmem(Gpu &gpu, CUfunction fn, unsigned smem);

/// Everything allocated for one workload. The input entries of
/// `tensors.buffers` point at the active input set's buffers (the
/// operator reads them there); the output entries own theirs.
struct WorkloadBuffers {
  WorkloadTensors tensors;
  std::vector<DeviceBuffer> workspaces;
};

/// One set of inputs: the task's input tensors at their own addresses,
/// the tensor maps over them, the fp32 reference outputs computed from
/// them (as the operator's referenceOutputs()) and each input's hash after
/// preparation.
struct InputSet {
  std::vector<DeviceBuffer> inputs; // by task tensor; empty for outputs
  std::vector<CUtensorMap> maps;
  std::vector<DeviceBuffer> reference;
  std::vector<uint64_t> hashes;
};

/// Runs one workload of a submission: its buffers and input sets, the
/// checked trials, the checked timing loop, the baseline and the feature
/// counts. Frees what it allocated unless the context was lost.
class WorkloadRunner {
public:
  WorkloadRunner(Gpu &gpu, const Task &task, const ResolvedPlan &plan,
                 llvm::ArrayRef<CUfunction> functions, const Workload &wl,
                 uint64_t seed)
      : gpu(gpu), d(gpu.d), task(task), plan(plan), functions(functions),
        wl(wl), seed(seed) {}
  ~WorkloadRunner() {
    if (lost)
      return; // freeing in a lost context only produces more errors
    for (unsigned t = 0; t < bufs.tensors.buffers.size(); ++t)
      if (task.tensors[t].role == Role::Output)
        gpu.free(bufs.tensors.buffers[t]);
    for (InputSet &set : sets) {
      for (DeviceBuffer &b : set.inputs)
        gpu.free(b);
      for (DeviceBuffer &b : set.reference)
        gpu.free(b);
    }
    for (DeviceBuffer &b : bufs.workspaces)
      gpu.free(b);
    if (op)
      op->release();
  }

  /// Runs the checks and the timing; fills `result`. With `checkOnly`,
  /// the checked trials alone.
  void run(WorkloadResult &result, bool baseline, bool checkOnly = false);
  /// Runs the instrumented variant once (untimed) and adds the executed
  /// counts of `families` to `result`.
  void countFeatures(WorkloadResult &result,
                     llvm::ArrayRef<std::string> families);
  bool lost = false;
  /// Called while the input sets are prepared (each can take seconds), so
  /// the parent's watchdog sees progress.
  std::function<void()> progress;

private:
  Gpu &gpu;
  cuda::Driver &d;
  const Task &task;
  const ResolvedPlan &plan;
  llvm::ArrayRef<CUfunction> functions;
  const Workload &wl;
  uint64_t seed;
  WorkloadBuffers bufs;
  std::unique_ptr<Operator> op;
  std::vector<InputSet> sets;
  unsigned active = 0;
  /// Only the checked trials will run: no more input sets than trials.
  bool trialsOnly = false;

  MaybeFail allocate();
  /// Allocates, fills and hashes input set `s` and computes its reference.
  MaybeFail prepareInputSet(unsigned s);
  MaybeFail encodeTensorMaps(InputSet &set);
  /// Makes set `s` the one the submission, reference and baseline read.
  void activate(unsigned s);
  MaybeFail generateInputs(unsigned trial);
  MaybeFail poisonOutputs();
  /// Fills the plan's scratch workspaces (neither `zero` nor `zero=once`)
  /// with 0xFF bytes, so nothing left by an earlier launch is there.
  MaybeFail poisonScratch();
  /// The input hashes of set `s` now.
  MaybeFail hashInputs(unsigned s, std::vector<uint64_t> &hashes);
  /// Non-zero bytes in each zero=once workspace now.
  MaybeFail nonZeroOnce(std::vector<uint64_t> &counts);
  /// The timing loop with input rotation and device-side checks of every
  /// launch; an INCORRECT failure names the first launch whose output was
  /// wrong.
  MaybeFail timeSubmission(WorkloadResult &result, TimingStats &t);
  /// The message for a fault: which tensors could have been involved.
  std::string faultNote() const;
  MaybeFail launchSubmission() { return launchWith(functions, 0); }
  /// Launches the plan with `fns`; a non-zero `counters` is passed as one
  /// more (last) argument to every kernel (the instrumented variant).
  MaybeFail launchWith(llvm::ArrayRef<CUfunction> fns, CUdeviceptr counters);
  /// Checks the submission's outputs against the reference: every output's
  /// comparison and the worst one go into `result`; INCORRECT when one fails.
  MaybeFail checkOutputs(WorkloadResult &result, llvm::StringRef when);
  /// Compares `outputs` with the active input set's reference values into
  /// `checks`; an output without values of its own is read from the task
  /// tensor (the submission's), otherwise from its values (the baseline's).
  MaybeFail compareWithReference(llvm::ArrayRef<CheckedOutput> outputs,
                                 std::vector<NamedCheck> &checks);
  MaybeFail snapshotInputs(std::vector<std::vector<char>> &snap);
  MaybeFail checkInputsUnchanged(const std::vector<std::vector<char>> &snap,
                                 std::string &changed);
  MaybeFail time(std::function<MaybeFail()> launch, TimingStats &out);
  void runBaseline(WorkloadResult &result);
};

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_WORKLOADRUNNER_H
