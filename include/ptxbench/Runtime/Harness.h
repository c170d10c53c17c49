//===- Harness.h - Run a submission on the GPU ------------------*- C++ -*-===//
//
// The worker side of `ptxbench run`: compile (NVRTC for .cu, the driver's
// JIT for PTX), generate inputs, launch the submission per its launch plan,
// check it against the built-in reference, time it and the baseline library.
// It runs inside a worker process (Worker.h) and reports one JSON line per
// event on a pipe, so a kernel that hangs or corrupts the context loses
// nothing already reported.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_HARNESS_H
#define PTXBENCH_RUNTIME_HARNESS_H

#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Reference/ReferenceServer.h"
#include "ptxbench/Support/Sandbox.h"

#include <memory>
#include <optional>
#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Task/Task.h"

namespace ptxbench::runtime {

/// Whether a CUDA driver and at least one device are usable. On false, `why`
/// says plainly what is missing ("no CUDA driver/GPU available: ...").
/// `arch`, when given, is set to the first device's target (sm_90a).
bool probeGpu(std::string &why, std::string *deviceName = nullptr,
              std::string *arch = nullptr);

/// The GPU libraries a run opens, as ("CUDA driver", "13.0"), ("cuBLASLt",
/// "13.0.2"), ("cuDNN", "9.10.2"), each with the reason instead of a
/// version when it does not load.
std::vector<std::pair<std::string, std::string>> libraryVersions();

/// The target name of a compute capability: sm_90a for 9.0 and sm_100a
/// for 10.x (the architecture-specific features), sm_XY otherwise.
std::string archName(int major, int minor);

struct WorkerOptions {
  std::string solutionPath;
  /// The submission compiled to PTX by the parent (under the compile
  /// limits); empty for a .ptx submission, which is loaded as it is.
  std::string ptxPath;
  /// The parent's whole-program cubins of the submission and of its
  /// instrumented copy (ptxas); empty without ptxas (the driver's JIT then
  /// compiles the PTX).
  std::string cubinPath, countCubinPath;
  uint64_t seed = 0;
  /// With a seed given by the caller (the same for every submission of a
  /// sweep): keep each input set's derived inputs and reference outputs in
  /// the harness cache (HarnessCache.h) under a key of `taskKey` (the task
  /// file's hash), the workload, the seed and the set, and reuse them.
  bool cacheReferences = false;
  /// With that seed: reuse a baseline time and its checks kept in the
  /// cache within the last ten minutes (implied by cacheReferences).
  bool reuseBaseline = false;
  /// A GPU lock file (GpuLock.h) to hold before touching the device, for
  /// runs that share a GPU; empty: none.
  std::string gpuLock;
  std::string taskKey;
  /// Index of the first workload to run (a restarted worker skips those
  /// already reported).
  unsigned first = 0;
  bool baseline = true;
  /// Write each event (one JSON object per line) to this file descriptor.
  int resultFd = 1;
  /// An instrumented copy of the submission's PTX (ptx-instrument-features
  /// with work and knockout), the name of its control block and the
  /// families its counters count, in order. When set, each workload that
  /// passed is run once more with it (the counted run, checked) and once
  /// per kind of matrix instruction that executed with that kind switched
  /// off (the knockouts).
  std::string instrumentedPtxPath;
  std::string controlSymbol;
  std::vector<std::string> countFamilies;
  /// Measure the card's speed of light even when a cached figure exists.
  bool remeasurePeaks = false;
  /// Only the checked trials: no timing, no baseline, no feature counts
  /// (the runs under compute-sanitizer).
  bool checkOnly = false;
  /// The sandbox the worker runs in (SandboxState::describe()), reported
  /// as the first event; when `sandboxError` is set it could not sandbox
  /// itself as required, and every workload is HARNESS_ERROR saying so.
  std::string sandbox, sandboxError;
  /// For a task with a Python reference: the server that computes it
  /// (Reference/ReferenceServer.h), started before the worker closes itself
  /// off, so the worker itself starts no program and writes no folder.
  std::shared_ptr<reference::ReferenceServer> referenceServer;
};

/// Sandboxes the worker (Support/Sandbox.h), after it has read its task and
/// submission and before the driver starts: the system's and the toolkit's
/// folders, the GPU's device nodes and what the driver reads of /proc and
/// /sys; of this run the task's folder (`taskPath`, a folder or its
/// task.json) and the files `options` names; the harness cache. Under
/// PTXBENCH_SANDBOX=off or PTXBENCH_WORKER_SANDBOX=off nothing is applied.
llvm::Expected<SandboxState> sandboxWorker(const WorkerOptions &options,
                                           llvm::StringRef taskPath);

/// Runs `workloads[first..]` in this process. Returns the process exit
/// status: 0 when every workload was reported, 3 when the CUDA context was
/// lost (the parent starts a new worker for the rest).
int runWorker(const Task &task, const LaunchPlan &plan, llvm::StringRef source,
              llvm::ArrayRef<Workload> workloads, const WorkerOptions &options);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_HARNESS_H
