//===- PlanCheck.h - A launch plan checked before any GPU -------*- C++ -*-===//
//
// What `run` and eval's static stage both do with a submission's plan
// before a device is involved: parse it, resolve it for every workload and
// hold its kernels against the compiled module, each workload's mistakes as
// that workload's PLAN_ERROR result. The checks themselves are the task
// layer's (ptxbench/Task/LaunchPlan.h); this is where they become a result.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_PLANCHECK_H
#define PTXBENCH_RUNTIME_PLANCHECK_H

#include "ptxbench/Task/LaunchPlan.h"

#include <optional>

namespace ptxbench::runtime {

struct RunResult;
struct Task;
struct Workload;

/// Everything about the launch plan of `source` that needs no GPU: parsed,
/// resolved for each workload, and (when `kernels` is known) held against
/// the compiled module. Fills `run.workloads` with one result per workload,
/// PLAN_ERROR with every mistake for that workload, the others not yet
/// run; returns whether the plan is fine for all of them.
bool checkPlanOffline(const Task &task, llvm::ArrayRef<Workload> workloads,
                      llvm::StringRef source, llvm::StringRef fileName,
                      std::optional<llvm::ArrayRef<ModuleKernel>> kernels,
                      RunResult &run);
/// As above for a plan already parsed (or lowered from a Triton plan), or
/// the error that says why there is none.
bool checkPlanOffline(const Task &task, llvm::ArrayRef<Workload> workloads,
                      llvm::Expected<LaunchPlan> plan,
                      llvm::StringRef fileName,
                      std::optional<llvm::ArrayRef<ModuleKernel>> kernels,
                      RunResult &run);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_PLANCHECK_H
