//===- CheckTargets.cpp - Errors for instructions the target cannot run ---===//
//
// Reports TargetCheck's violations as errors on the instructions and fails
// when there is one.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/Transforms/Passes.h"

#include "ptxbench/Analysis/TargetCheck.h"

namespace ptxbench::ptx {
#define GEN_PASS_DEF_CHECKTARGETSPASS
#include "ptxbench/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace ptxbench::ptx

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;

namespace {
struct CheckTargetsPass
    : public ptx::impl::CheckTargetsPassBase<CheckTargetsPass> {
  void runOnOperation() override;
};
} // namespace

void CheckTargetsPass::runOnOperation() {
  ptx::ModuleOp module = getOperation();
  if (!Target::of(module)) {
    emitError(module.getLoc(), "cannot check targets: .version '")
        << module.getVersion() << "' or .target is not of the form M.m, "
        << "sm_NN[a|f]";
    return signalPassFailure();
  }
  SmallVector<TargetViolation> violations = checkTargets(module);
  for (const TargetViolation &violation : violations)
    emitError(violation.op->getLoc(), violation.message);
  if (!violations.empty())
    signalPassFailure();
}
