//===- PlanCheck.cpp - A launch plan checked before any GPU ---------------===//
//
// Everything about a submission's launch plan that needs no device: the
// plan parsed, resolved against the task for every workload, and its
// kernels held against the compiled module (checkPlanKernels), with every
// mistake of a workload in one message of the workload's result. `ptxbench run`
// and `ptxbench eval` (also with --static-only) both go through here, so a
// plan is judged the same way with or without a GPU.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/PlanCheck.h"

#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Task/Task.h"

#include "llvm/ADT/STLExtras.h"

#include <tuple>

using namespace llvm;
using namespace ptxbench::runtime;

/// The messages of `errors`, one line each, ordered by their place in
/// `fileName` (line, then column), so a plan's mistakes read in the order
/// of the file whichever check found them.
static std::string inFileOrder(Error errors, StringRef fileName) {
  struct Message {
    unsigned line = ~0u, col = ~0u;
    std::string text;
  };
  std::vector<Message> messages;
  handleAllErrors(std::move(errors), [&](const ErrorInfoBase &e) {
    Message m{~0u, ~0u, e.message()};
    StringRef rest(m.text);
    if (rest.consume_front(fileName) && rest.consume_front(":")) {
      auto [line, afterLine] = rest.split(':');
      auto [col, afterCol] = afterLine.split(':');
      if (line.getAsInteger(10, m.line) || col.getAsInteger(10, m.col))
        m.line = m.col = ~0u;
    }
    messages.push_back(std::move(m));
  });
  llvm::stable_sort(messages, [](const Message &a, const Message &b) {
    return std::tie(a.line, a.col) < std::tie(b.line, b.col);
  });
  std::string out;
  for (const Message &m : messages)
    out += (out.empty() ? "" : "\n") + m.text;
  return out;
}

bool ptxbench::runtime::checkPlanOffline(
    const Task &task, ArrayRef<Workload> workloads, StringRef source,
    StringRef fileName, std::optional<ArrayRef<ModuleKernel>> kernels,
    RunResult &run) {
  return checkPlanOffline(task, workloads, parseLaunchPlan(source, fileName),
                          fileName, kernels, run);
}

bool ptxbench::runtime::checkPlanOffline(
    const Task &task, ArrayRef<Workload> workloads, Expected<LaunchPlan> plan,
    StringRef fileName, std::optional<ArrayRef<ModuleKernel>> kernels,
    RunResult &run) {
  std::string parseError = plan ? "" : toString(plan.takeError());
  bool ok = true;
  run.workloads.clear();
  for (const Workload &w : workloads) {
    WorkloadResult r;
    r.workload = w.name;
    r.params = w.params;
    std::string message = parseError;
    if (plan) {
      Expected<ResolvedPlan> resolved =
          resolveLaunchPlan(*plan, task, w.params);
      Error errors = resolved ? Error::success() : resolved.takeError();
      if (kernels)
        errors = joinErrors(
            std::move(errors),
            checkPlanKernels(*plan, resolved ? &*resolved : nullptr, *kernels));
      if (errors)
        message = inFileOrder(std::move(errors), fileName);
    }
    if (!message.empty()) {
      r.status = Status::PlanError;
      r.message = std::move(message);
      ok = false;
    }
    run.workloads.push_back(std::move(r));
  }
  return ok;
}
