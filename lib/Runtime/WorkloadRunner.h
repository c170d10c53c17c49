//===- WorkloadRunner.h - One workload on the GPU ---------------*- C++ -*-===//
//
// The worker's per-workload state, shared by WorkloadRunner.cpp (launching
// the plan, what surrounds every launch, the order of checks and timing and
// the baseline), WorkloadInputs.cpp (input sets, poisoned outputs and
// workspaces), WorkloadChecks.cpp (the checks of outputs, slack and
// workspaces after each trial and each timed launch) and WorkloadWork.cpp
// (the counted run and the knockout runs). Private to lib/Runtime; needs
// the CUDA headers.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_WORKLOADRUNNER_H
#define PTXBENCH_LIB_RUNTIME_WORKLOADRUNNER_H

#include "Gpu.h"
#include "Operator.h"
#include "SubmissionModule.h"

#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Task/Task.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <chrono>
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

/// The compiled submission: the plain variant every checked trial and timed
/// launch runs, and the instrumented one (counters and knockouts) with the
/// families its counters count, when the parent instrumented it.
struct Submission {
  CompiledModule plain;
  std::optional<CompiledModule> instrumented;
  std::vector<std::string> countFamilies;
};

/// A range a launch must leave as it found it, checked after every launch:
/// the slack around an output or workspace (`expected` the slack pattern),
/// or a zero=once workspace (`expected` 0).
struct IntegrityCheck {
  CUdeviceptr ptr = 0;
  uint64_t bytes = 0;
  uint8_t expected = 0;
  /// "before the start of 'C'", "past the end of workspace 'w'", or
  /// "workspace 'flags' (zero=once)".
  std::string what;
  bool zeroOnce = false;
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
                 const Submission &submission, const Workload &wl,
                 uint64_t seed)
      : gpu(gpu), d(gpu.d), task(task), plan(plan), submission(submission),
        wl(wl), seed(seed) {}
  /// Keep and reuse the input sets' references under this key prefix (the
  /// task file's hash); empty: compute them every time.
  std::string referenceCacheKey;
  /// Reuse a baseline timed recently under this key prefix (the same card,
  /// task, workload and seed); empty: time it every time.
  std::string baselineCacheKey;
  ~WorkloadRunner();

  /// Runs the checks, the timing, the counted run and the knockouts (when
  /// the submission was instrumented) and the baseline; fills `result`.
  /// With `checkOnly`, the checked trials alone.
  void run(WorkloadResult &result, bool baseline, bool checkOnly = false);
  bool lost = false;
  /// Called while the input sets are prepared (each can take seconds), so
  /// the parent's watchdog sees progress.
  std::function<void()> progress;

private:
  Gpu &gpu;
  cuda::Driver &d;
  const Task &task;
  const ResolvedPlan &plan;
  const Submission &submission;
  const Workload &wl;
  uint64_t seed;
  WorkloadBuffers bufs;
  std::unique_ptr<Operator> op;
  std::vector<InputSet> sets;
  unsigned active = 0;
  /// Only the checked trials will run: no more input sets than trials.
  bool trialsOnly = false;
  /// The input set of the last launch of the submission.
  unsigned lastSet = 0;
  /// The module of the launch in flight, loaded fresh for it.
  LoadedModule current;
  std::vector<IntegrityCheck> integrity;
  /// Where this workload's wall time goes (Result.h's phases).
  std::vector<Phase> phases;
  /// Adds the time since `since` to phase `name` (created in order of
  /// first use) and returns now.
  std::chrono::steady_clock::time_point
  addPhase(llvm::StringRef name, std::chrono::steady_clock::time_point since);

  MaybeFail allocate();
  /// Allocates, fills and hashes input set `s` and computes its reference.
  MaybeFail prepareInputSet(unsigned s);
  MaybeFail encodeTensorMaps(InputSet &set);
  /// The tensor map `m` of the plan over `base` (a tensor's buffer).
  MaybeFail encodeTensorMap(const ResolvedTensorMap &m, CUdeviceptr base,
                            CUtensorMap &map);
  /// Makes set `s` the one the submission, reference and baseline read.
  void activate(unsigned s);
  /// Draws input set `trial`'s generated inputs; with `derive`, also the
  /// inputs the reference derives from them.
  MaybeFail generateInputs(unsigned trial, bool derive = true);
  /// The cache file of input set `s`'s derived inputs and references.
  std::string referenceCacheName(unsigned s) const;
  /// The cache file name of input set `s` under `key`.
  std::string cacheName(llvm::StringRef key, unsigned s) const;
  /// Fills set `s`'s derived inputs and the operator's reference outputs
  /// from the cache; false when there is no usable entry.
  bool loadCachedReference(unsigned s);
  /// Keeps set `s`'s derived inputs and references in the cache.
  void storeCachedReference(unsigned s);
  MaybeFail poisonOutputs();
  /// Fills the plan's scratch workspaces (neither `zero` nor `zero=once`)
  /// with 0xFF bytes, so nothing left by an earlier launch is there.
  MaybeFail poisonScratch();
  /// The input hashes of set `s` now.
  MaybeFail hashInputs(unsigned s, std::vector<uint64_t> &hashes);
  /// The integrity checks of the outputs' and workspaces' slack and of the
  /// zero=once workspaces, built once the buffers exist.
  void collectIntegrityChecks();

  /// Everything before a launch of the submission, whatever it is for: the
  /// harness's own work finished, input set `s` active, outputs and
  /// scratch workspaces poisoned, every SM's shared memory scrubbed, a fresh
  /// module of `module` loaded (with `control` in its control block), and
  /// the sealed memory made inaccessible. Nothing of an earlier launch is
  /// left where the submission can reach it.
  MaybeFail prepareLaunch(
      unsigned s, const CompiledModule &module,
      const std::array<uint64_t, isa::numControlWords> *control =
          nullptr);
  /// After the launch: waits for it (a fault is the submission's
  /// RUNTIME_ERROR), unseals, unloads the module.
  MaybeFail finishLaunch(llvm::StringRef what);
  /// Queues the integrity checks' counts into `records` (one u64 each,
  /// zeroed by the caller), behind the launch.
  MaybeFail queueIntegrityChecks(CUdeviceptr records);
  /// The failure for integrity counts `counts` (one per check), if any.
  std::optional<Failure> judgeIntegrity(llvm::ArrayRef<uint64_t> counts,
                                        llvm::StringRef when) const;
  /// Runs the integrity checks now and judges them.
  MaybeFail checkIntegrity(llvm::StringRef when);

  /// The timing loop with input rotation and device-side checks of every
  /// launch; an INCORRECT failure names the first launch whose output was
  /// wrong.
  MaybeFail timeSubmission(WorkloadResult &result, TimingStats &t);
  /// The message for a fault: which tensors could have been involved.
  std::string faultNote() const;
  MaybeFail launchSubmission() { return launchWith(current.functions()); }
  /// Launches the plan with `fns`.
  MaybeFail launchWith(llvm::ArrayRef<CUfunction> fns);
  /// Checks the submission's outputs against the reference: every output's
  /// comparison and the worst one go into `result`; INCORRECT when one fails.
  MaybeFail checkOutputs(WorkloadResult &result, llvm::StringRef when);
  /// Compares `outputs` with the active input set's reference values into
  /// `checks`; an output without values of its own is read from the task
  /// tensor (the submission's), otherwise from its values (the baseline's).
  MaybeFail compareWithReference(llvm::ArrayRef<CheckedOutput> outputs,
                                 std::vector<NamedCheck> &checks);
  MaybeFail time(std::function<MaybeFail()> launch, TimingStats &out);
  void runBaseline(WorkloadResult &result);

  /// The counted run (WorkloadWork.cpp): the instrumented variant on an
  /// input set the last launch did not use, checked like a timed launch;
  /// its counts go into `result`. A failure is the workload's.
  MaybeFail countWork(WorkloadResult &result);
  /// The knockout runs: each kind of matrix instruction that executed
  /// switched off in turn; whether the outputs then failed goes into
  /// `result.work.knockouts`.
  void runKnockouts(WorkloadResult &result);
  /// The input tensors whose address ranges the control block carries, in
  /// range order (the first maxRangeTensors inputs).
  std::vector<int> rangeTensors() const;
  /// Writes input set `s`'s ranges into `control`.
  void fillRanges(std::array<uint64_t, isa::numControlWords> &control,
                  unsigned s) const;
  /// Traces the counted run's copy log to the input tensors it read (of
  /// `logged` records, `records` were kept), less what other loads brought
  /// of each (`loadedPerRange`, per range), into `w`.
  void attributeCopies(llvm::ArrayRef<isa::CopyRecord> records,
                       uint64_t logged,
                       llvm::ArrayRef<uint64_t> loadedPerRange,
                       WorkCounts &w) const;
  /// An input set other than the last launch's, drawn from `seed`.
  unsigned otherSet(uint64_t salt) const;
  /// Counters for an instrumented run, zeroed: the families' and the work's.
  MaybeFail allocCounters(DeviceBuffer &counters);
};

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_WORKLOADRUNNER_H
