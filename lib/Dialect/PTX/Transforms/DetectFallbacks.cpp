//===- DetectFallbacks.cpp - Warnings for generic fallback patterns -------===//
//
// Reports FallbackAnalysis's findings as warnings, one per fallback, with a
// note at the related instruction where there is one.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/Transforms/Passes.h"

#include "ptxbench/Analysis/FallbackAnalysis.h"
#include "ptxbench/Analysis/FeatureAnalysis.h"

namespace ptxbench::ptx {
#define GEN_PASS_DEF_DETECTFALLBACKSPASS
#include "ptxbench/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace ptxbench::ptx

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;

namespace {
struct DetectFallbacksPass
    : public ptx::impl::DetectFallbacksPassBase<DetectFallbacksPass> {
  using DetectFallbacksPassBase::DetectFallbacksPassBase;
  void runOnOperation() override;
};
} // namespace

void DetectFallbacksPass::runOnOperation() {
  ptx::ModuleOp module = getOperation();
  std::string unknown;
  std::optional<SmallVector<isa::Family>> families =
      parseFamilies(requested, unknown);
  if (!families) {
    emitError(module.getLoc(), "unknown feature family '") << unknown << "'";
    return signalPassFailure();
  }
  if (accumulate != "any" && accumulate != "f32") {
    emitError(module.getLoc(), "accumulate must be 'any' or 'f32', not '")
        << accumulate << "'";
    return signalPassFailure();
  }
  FallbackOptions options;
  options.f32Accumulate = accumulate == "f32";
  Reachability reachability(module);
  for (const Fallback &fallback :
       detectFallbacks(module, reachability, *families, options)) {
    InFlightDiagnostic diag =
        emitWarning(fallback.op->getLoc(), fallback.format());
    if (fallback.related)
      diag.attachNote(fallback.related->getLoc()) << fallback.relatedMessage;
  }
}
