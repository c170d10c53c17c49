//===- WorkerProcess.h - The worker a run supervises ------------*- C++ -*-===//
//
// `ptxbench run --worker`: the process a run starts per stretch of
// workloads. It loads what the parent compiled, starts a Python
// reference's server while it may still start programs, closes itself off
// (the sandbox) and runs the workloads on the GPU.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUN_WORKERPROCESS_H
#define PTXBENCH_RUN_WORKERPROCESS_H

#include "ptxbench/Runtime/Harness.h"
#include "ptxbench/Task/Task.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace ptxbench::run {

/// Runs `workloads` of `task` (loaded from `taskPath`) as a worker for the
/// submission `options.solutionPath`, whose Triton metadata the parent
/// wrote to `tritonBuild` (empty for CUDA and PTX). `helper` is the
/// ptxbench executable a Python reference's child runs. Returns the
/// process's exit status: 2 when the submission or its plan cannot be read
/// (the parent checked both already).
int runWorkerProcess(const runtime::Task &task, llvm::StringRef taskPath,
                     llvm::StringRef tritonBuild, llvm::StringRef helper,
                     llvm::ArrayRef<runtime::Workload> workloads,
                     runtime::WorkerOptions options);

} // namespace ptxbench::run

#endif // PTXBENCH_RUN_WORKERPROCESS_H
