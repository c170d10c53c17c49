//===- launch-plan-fuzzer.cpp - libFuzzer target: launch plans ------------===//
//
// A submission's `// @ptxbench` lines as `ptxbench run` and eval check them
// before any GPU (checkPlanOffline: parse, resolve and evaluate every
// expression for every workload, hold the kernels against the module's),
// on arbitrary bytes, against tasks of the tree that differ in parameters,
// tensors and ranks (a GEMM, an fp8 GEMM with scales, attention, RMSNorm).
// Each plan is held against a module that defines the plan's own kernels
// with pointer-sized parameters, so the argument checks run too (without a
// module, checkPlanOffline does a subset of that). A plan that parses is
// also normalized (the reuse key's text).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/PlanCheck.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstdlib>

using namespace ptxbench::runtime;

namespace {

struct LoadedTask {
  Task task;
  std::vector<Workload> workloads;
};

std::vector<LoadedTask> &tasks() {
  static std::vector<LoadedTask> loaded;
  return loaded;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  for (const char *name :
       {"gemm_bf16", "gemm_fp8_e4m3", "mha_fwd_lse_h48_d128_causal",
        "rmsnorm_h4096"}) {
    llvm::SmallString<256> path(PTXBENCH_SOURCE_DIR);
    llvm::sys::path::append(path, "tasks", name);
    llvm::Expected<Task> task = loadTask(path);
    if (!task) {
      fprintf(stderr, "launch-plan-fuzzer: %s\n",
              llvm::toString(task.takeError()).c_str());
      abort();
    }
    llvm::Expected<std::vector<Workload>> workloads =
        selectWorkloads(*task, "all");
    if (!workloads) {
      fprintf(stderr, "launch-plan-fuzzer: %s\n",
              llvm::toString(workloads.takeError()).c_str());
      abort();
    }
    tasks().push_back({std::move(*task), std::move(*workloads)});
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  std::vector<ModuleKernel> kernels;
  if (llvm::Expected<LaunchPlan> plan = parseLaunchPlan(source, "fuzz.cu")) {
    (void)normalizedPlan(*plan);
    for (const KernelDecl &k : plan->kernels)
      kernels.push_back({k.name, std::vector<uint64_t>(k.args.size(), 8)});
  } else {
    llvm::consumeError(plan.takeError());
  }
  for (const LoadedTask &t : tasks()) {
    RunResult run;
    checkPlanOffline(t.task, t.workloads, source, "fuzz.cu",
                     llvm::ArrayRef<ModuleKernel>(kernels), run);
  }
  return 0;
}
