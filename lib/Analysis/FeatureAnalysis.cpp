//===- FeatureAnalysis.cpp - Feature families each kernel uses ------------===//
//
// Buckets every instruction of a kernel's call closure by its ISA family and
// marks the ones Reachability says can run.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Analysis/FeatureAnalysis.h"
#include "ptxbench/Analysis/InstructionAccess.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;

Operation *FamilyUse::firstUnreachable() const {
  for (Operation *op : ops)
    if (!llvm::is_contained(reachableOps, op))
      return op;
  return nullptr;
}

const FamilyUse *FeatureSet::find(isa::Family family) const {
  for (const FamilyUse &use : families)
    if (use.family == family)
      return &use;
  return nullptr;
}

StringRef analysis::requestStatusName(RequestStatus status) {
  switch (status) {
  case RequestStatus::Used:
    return "used";
  case RequestStatus::Missing:
    return "missing";
  case RequestStatus::Unreachable:
    return "unreachable";
  }
  llvm_unreachable("unknown request status");
}

std::optional<SmallVector<isa::Family>>
analysis::parseFamilies(ArrayRef<std::string> names, std::string &unknown) {
  SmallVector<isa::Family> families;
  for (const std::string &name : names) {
    std::optional<isa::Family> family =
        isa::familyByName(StringRef(name).trim());
    if (!family) {
      unknown = name;
      return std::nullopt;
    }
    families.push_back(*family);
  }
  return families;
}

namespace {

/// Adds the instructions of `func` to `set`; `canRun` says which can run.
void collect(ptx::FuncOp func, FeatureSet &set,
             llvm::function_ref<bool(Operation *)> canRun) {
  SmallVector<FamilyUse *, isa::numFamilies()> byFamily(isa::numFamilies(),
                                                        nullptr);
  for (FamilyUse &use : set.families)
    byFamily[unsigned(use.family)] = &use;
  SmallVector<std::pair<isa::Family, Operation *>> found;
  func.walk([&](ptx::InstructionOpInterface inst) {
    if (std::optional<isa::Family> family = familyOf(inst))
      found.push_back({*family, inst.getOperation()});
  });
  for (auto [family, op] : found) {
    FamilyUse *&use = byFamily[unsigned(family)];
    if (!use) {
      set.families.push_back({family, {}, {}});
      // Pointers into `families` move on growth: rebuild the index.
      for (FamilyUse &u : set.families)
        byFamily[unsigned(u.family)] = &u;
    }
    use->ops.push_back(op);
    if (canRun(op))
      use->reachableOps.push_back(op);
  }
  llvm::sort(set.families, [](const FamilyUse &a, const FamilyUse &b) {
    return a.family < b.family;
  });
}

} // namespace

FeatureAnalysis::FeatureAnalysis(ptx::ModuleOp module,
                                 const Reachability &reachability) {
  for (ptx::FuncOp kernel : reachability.kernels()) {
    Kernel &entry = kernelList.emplace_back(Kernel{kernel, {}});
    for (ptx::FuncOp func : reachability.calledFunctions(kernel))
      collect(func, entry.features, [&](Operation *op) {
        return reachability.isReachableFrom(kernel, op);
      });
  }
  for (auto func : module.getOps<ptx::FuncOp>())
    if (!func.isExternal() && !reachability.isCalled(func))
      collect(func, uncalledFeatures, [](Operation *) { return false; });
}

const FeatureAnalysis::Kernel *FeatureAnalysis::find(ptx::FuncOp kernel) const {
  for (const Kernel &entry : kernelList)
    if (entry.kernel == kernel)
      return &entry;
  return nullptr;
}

RequestStatus FeatureAnalysis::status(const Kernel &kernel,
                                      isa::Family family) const {
  const FamilyUse *use = kernel.features.find(family);
  if (use && use->reachable())
    return RequestStatus::Used;
  if (use || uncalledFeatures.find(family))
    return RequestStatus::Unreachable;
  return RequestStatus::Missing;
}
