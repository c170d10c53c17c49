//===- FeatureAnalysis.h - Feature families each kernel uses ----*- C++ -*-===//
//
// Per kernel and per ISA feature family (isa::Family): how many instructions
// of the family the kernel and the functions it calls contain, and how many
// of them can run (Reachability). Instructions in functions no kernel calls
// are listed apart. The `ptx-feature-report` pass prints this; the CLI reads
// it directly.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_ANALYSIS_FEATUREANALYSIS_H
#define PTXBENCH_ANALYSIS_FEATUREANALYSIS_H

#include "ptxbench/Analysis/Reachability.h"
#include "ptxbench/ISA/ISA.h"

namespace ptxbench::analysis {

/// The instructions of one family.
struct FamilyUse {
  isa::Family family;
  /// Every instruction of the family, in program order.
  llvm::SmallVector<mlir::Operation *> ops;
  /// Those that can run.
  llvm::SmallVector<mlir::Operation *> reachableOps;

  unsigned count() const { return ops.size(); }
  unsigned reachable() const { return reachableOps.size(); }
  /// The first instruction that cannot run, or null.
  mlir::Operation *firstUnreachable() const;
};

/// The families a set of functions uses, in isa::Family order.
struct FeatureSet {
  llvm::SmallVector<FamilyUse> families;
  /// The use of `family`, or null when there is none.
  const FamilyUse *find(isa::Family family) const;
};

/// Whether a requested family is used by a kernel.
enum class RequestStatus { Used, Missing, Unreachable };
llvm::StringRef requestStatusName(RequestStatus status);

/// The families named in `names` (isa::familyByName); std::nullopt with
/// `unknown` set to the first name that is not a family.
std::optional<llvm::SmallVector<isa::Family>>
parseFamilies(llvm::ArrayRef<std::string> names, std::string &unknown);

class FeatureAnalysis {
public:
  FeatureAnalysis(ptx::ModuleOp module, const Reachability &reachability);

  struct Kernel {
    ptx::FuncOp kernel;
    FeatureSet features;
  };
  llvm::ArrayRef<Kernel> kernels() const { return kernelList; }
  const Kernel *find(ptx::FuncOp kernel) const;

  /// Instructions in functions that no kernel calls.
  const FeatureSet &uncalled() const { return uncalledFeatures; }

  /// `family` in `kernel`: used when one of its instructions can run,
  /// unreachable when it only appears in dead code or in uncalled
  /// functions, missing otherwise.
  RequestStatus status(const Kernel &kernel, isa::Family family) const;

private:
  llvm::SmallVector<Kernel> kernelList;
  FeatureSet uncalledFeatures;
};

} // namespace ptxbench::analysis

#endif // PTXBENCH_ANALYSIS_FEATUREANALYSIS_H
