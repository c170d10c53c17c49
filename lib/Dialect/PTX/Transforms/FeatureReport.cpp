//===- FeatureReport.cpp - Remarks on the feature families kernels use ----===//
//
// Prints FeatureAnalysis as diagnostics: a remark per kernel with its
// families and counts, a remark per requested family (used, missing,
// unreachable), and a warning where an architecture-specific or requested
// family only appears in code that cannot run.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/Transforms/Passes.h"

#include "ptxbench/Analysis/FeatureAnalysis.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "ptx-feature-report"

namespace ptxbench::ptx {
#define GEN_PASS_DEF_FEATUREREPORTPASS
#include "ptxbench/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace ptxbench::ptx

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;

namespace {

struct FeatureReportPass
    : public ptx::impl::FeatureReportPassBase<FeatureReportPass> {
  using FeatureReportPassBase::FeatureReportPassBase;
  void runOnOperation() override;
};

/// "wgmma 4, tma 2 (0 reachable), ..." in family order.
std::string summarize(const FeatureSet &set) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(set.families, os, [&](const FamilyUse &use) {
    os << isa::familyName(use.family) << ' ' << use.count();
    if (use.reachable() != use.count())
      os << " (" << use.reachable() << " reachable)";
  });
  return text.empty() ? "no instructions" : text;
}

/// Where an unreachable family first appears: dead code of the kernel, or
/// a function no kernel calls.
Operation *firstUnreachable(const FeatureAnalysis &analysis,
                            const FeatureAnalysis::Kernel &kernel,
                            isa::Family family) {
  if (const FamilyUse *use = kernel.features.find(family))
    if (Operation *op = use->firstUnreachable())
      return op;
  if (const FamilyUse *use = analysis.uncalled().find(family))
    return use->ops.front();
  return nullptr;
}

} // namespace

void FeatureReportPass::runOnOperation() {
  ptx::ModuleOp module = getOperation();
  std::string unknown;
  std::optional<SmallVector<isa::Family>> families =
      parseFamilies(requested, unknown);
  if (!families) {
    emitError(module.getLoc(), "unknown feature family '") << unknown << "'";
    return signalPassFailure();
  }
  auto isReported = [&](isa::Family family) {
    return isa::isArchSpecificFamily(family) ||
           llvm::is_contained(*families, family);
  };

  Reachability reachability(module);
  FeatureAnalysis analysis(module, reachability);
  for (const FeatureAnalysis::Kernel &kernel : analysis.kernels()) {
    ptx::FuncOp func = kernel.kernel;
    StringRef name = func.getSymName();
    LLVM_DEBUG(llvm::dbgs() << "feature report: " << name << "\n");
    emitRemark(func.getLoc(), "kernel '")
        << name << "': " << summarize(kernel.features);
    for (isa::Family family : *families) {
      RequestStatus status = analysis.status(kernel, family);
      InFlightDiagnostic diag = emitRemark(func.getLoc(), "requested '")
                                << isa::familyName(family) << "' is "
                                << requestStatusName(status) << " in kernel '"
                                << name << "'";
      if (status == RequestStatus::Unreachable)
        if (Operation *op = firstUnreachable(analysis, kernel, family))
          diag.attachNote(op->getLoc()) << "only here, which cannot run";
    }
    for (const FamilyUse &use : kernel.features.families) {
      if (use.reachable() || !isReported(use.family))
        continue;
      emitWarning(use.ops.front()->getLoc(), "'")
          << isa::familyName(use.family) << "' instructions of kernel '" << name
          << "' are only in code that cannot run";
    }
  }
  for (const FamilyUse &use : analysis.uncalled().families) {
    if (!isReported(use.family))
      continue;
    Operation *op = use.ops.front();
    emitWarning(op->getLoc(), "'")
        << isa::familyName(use.family) << "' instructions in function '"
        << op->getParentOfType<ptx::FuncOp>().getSymName()
        << "', which no kernel calls";
  }
}
