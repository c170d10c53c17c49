//===- Worker.h - Submissions in supervised worker processes -*- C++ -*-===//
//
// The parent side of `ptxbench run`: starts a worker process (the same tool
// with --worker), reads its JSON events from a private pipe, kills it when it
// stays silent past the watchdog timeout, classifies the way it ended
// (TIMEOUT for a hang, RUNTIME_ERROR for a crash or lost context) and starts
// a fresh worker for the workloads left. What the worker prints (device
// printf) is captured, bounded, into each workload's result.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_WORKER_H
#define PTXBENCH_RUNTIME_WORKER_H

#include "ptxbench/Runtime/Result.h"

namespace ptxbench::runtime {

struct SuperviseOptions {
  /// The worker's command line without --first-workload/--result-fd.
  std::vector<std::string> argv;
  /// Seconds a worker may stay silent (one workload's compile, checks and
  /// timing must fit).
  double timeoutSeconds = 60;
  /// Seconds the driver's PTX JIT may take (between the worker's "jit" and
  /// "jit_done" events); past it, COMPILE_TIMEOUT.
  double compileTimeoutSeconds = 60;
  /// Print one line per event to this stream (progress), when set.
  llvm::raw_ostream *progress = nullptr;
};

/// Runs `workloads` through workers; fills `run.workloads` (one result each,
/// in order) and `run.device`.
void superviseWorkers(const std::vector<Workload> &workloads,
                      const SuperviseOptions &options, RunResult &run);

/// As superviseWorkers, for a caller that found a GPU: when every workload
/// comes back NO_GPU from a sandboxed worker, this host's driver needs what
/// the worker's sandbox keeps out. Under PTXBENCH_SANDBOX=require each is
/// then HARNESS_ERROR saying so; otherwise one line on `note` says so and
/// the workers run again without their sandbox (PTXBENCH_WORKER_SANDBOX=off
/// from then on in this process), as the result records.
void superviseWorkersOnGpu(const std::vector<Workload> &workloads,
                           const SuperviseOptions &options, RunResult &run,
                           llvm::raw_ostream &note);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_WORKER_H
