//===- PlanCheck.cpp - A launch plan checked before any GPU ---------------===//
//
// Everything about a submission's launch plan that needs no device: the
// plan parsed, resolved against the task for every workload, and its
// kernels held against the compiled module (names, argument counts and
// sizes), with every mistake of a workload in one message. `ptxbench run`
// and `ptxbench eval` (also with --static-only) both go through here, so a
// plan is judged the same way with or without a GPU.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/LaunchPlan.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Runtime/Task.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <tuple>

using namespace llvm;
using namespace ptxbench::runtime;

/// The bytes the plan passes for `arg`: 8 for a pointer, 128 for a tensor
/// map (CUtensorMap), the scalar's size.
static uint64_t passedBytes(const ResolvedArg &arg) {
  switch (arg.kind) {
  case ResolvedArg::Kind::TensorMap:
    return 128;
  case ResolvedArg::Kind::Scalar:
    return scalarTypeSize(arg.type);
  case ResolvedArg::Kind::Tensor:
  case ResolvedArg::Kind::Workspace:
    return 8;
  }
  llvm_unreachable("argument kind");
}

Error ptxbench::runtime::checkPlanKernels(const LaunchPlan &plan,
                                          const ResolvedPlan *resolved,
                                          ArrayRef<ModuleKernel> kernels) {
  Error errors = Error::success();
  auto add = [&](Error e) {
    errors = joinErrors(std::move(errors), std::move(e));
  };
  std::vector<std::string> defined;
  for (const ModuleKernel &m : kernels)
    defined.push_back(m.name);
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const KernelDecl &decl = plan.kernels[k];
    const ModuleKernel *found = nullptr;
    for (const ModuleKernel &m : kernels)
      if (m.name == decl.name)
        found = &m;
    if (!found) {
      add(makeError(
          decl.loc,
          "kernel '" + decl.name + "' is not in the compiled module (" +
              (defined.empty() ? std::string("it defines no kernel")
                               : "its kernels: " + join(defined, ", ")) +
              "); declare it extern \"C\" __global__"));
      continue;
    }
    if (found->paramBytes.size() != decl.args.size()) {
      add(makeError(decl.loc, "kernel '" + decl.name + "' takes " +
                                  Twine(found->paramBytes.size()) +
                                  " parameters but the plan passes " +
                                  Twine(decl.args.size())));
      continue;
    }
    // The sizes need the arguments resolved (a name is a pointer, a tensor
    // map or a scalar).
    if (!resolved)
      continue;
    const ResolvedKernel &rk = resolved->kernels[k];
    for (size_t i = 0; i < rk.args.size(); ++i) {
      uint64_t want = passedBytes(rk.args[i]), size = found->paramBytes[i];
      if (size && size != want)
        add(makeError(decl.args[i].loc,
                      "argument " + Twine(i + 1) + " of kernel '" + decl.name +
                          "' is " + Twine(size) +
                          " bytes in the kernel, but the plan passes " +
                          Twine(want)));
    }
  }
  return errors;
}

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
