//===- Sanitize.h - Checked trials under compute-sanitizer ------*- C++ -*-===//
//
// The submission's checked trials under compute-sanitizer, each tool held
// to a wall-clock limit.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUN_SANITIZE_H
#define PTXBENCH_RUN_SANITIZE_H

#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Task/Task.h"

#include <string>
#include <vector>

namespace ptxbench::run {

/// Runs the checked trials of the smallest of `workloads` (the worker,
/// `workerArgv`, with --check-only) under compute-sanitizer's memcheck,
/// racecheck and synccheck, and records each tool's findings in `run`. A
/// tool still running after `secondsPerTool` is stopped with the worker it
/// started (they run in a process group of their own) and its report says
/// so.
void sanitize(const runtime::Task &task,
              llvm::ArrayRef<runtime::Workload> workloads,
              const std::vector<std::string> &workerArgv,
              double secondsPerTool, runtime::RunResult &run);

} // namespace ptxbench::run

#endif // PTXBENCH_RUN_SANITIZE_H
