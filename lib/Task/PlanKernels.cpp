//===- PlanKernels.cpp - A launch plan against the compiled module --------===//
//
// The plan's kernels held against the module's: each is defined there, and
// once the plan is resolved for a workload each argument it passes is as
// many bytes as the kernel's parameter (a pointer, a 128-byte tensor map, a
// scalar of the plan's type). Every mistake is reported at the plan's
// line, all at once.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Task/LaunchPlan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

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
