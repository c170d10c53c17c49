//===- TargetCheck.h - Instructions against .version/.target ----*- C++ -*-===//
//
// Checks each instruction's minimum PTX ISA version, minimum target and
// architecture-specific targets (from the ISA table) against the module's
// `.version` and `.target`, and says exactly what is wrong.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_ANALYSIS_TARGETCHECK_H
#define PTXBENCH_ANALYSIS_TARGETCHECK_H

#include "ptxbench/Dialect/PTX/PTX.h"
#include "ptxbench/ISA/ISA.h"

#include <string>

namespace ptxbench::analysis {

/// A module's `.target` and `.version`.
struct Target {
  /// The SM number (90 for sm_90a).
  unsigned sm = 0;
  /// 'a' (architecture-specific), 'f' (family-specific) or 0.
  char suffix = 0;
  /// The PTX ISA version times ten (78 for 7.8).
  unsigned ptxVersion = 0;
  /// The target as written (sm_90a).
  std::string name;

  /// Reads `module`'s target and version; std::nullopt when the target is
  /// not an `sm_NN[a|f]` or the version is not `M.m`.
  static std::optional<Target> of(ptx::ModuleOp module);
  bool isArchSpecific() const { return suffix == 'a' || suffix == 'f'; }
};

/// One instruction the module's target or version cannot run.
struct TargetViolation {
  enum Kind { PTXVersion, MinimumTarget, ArchSpecificTarget };
  Kind kind;
  mlir::Operation *op;
  const isa::InstrInfo *info;
  /// A one-line explanation, e.g. "wgmma.mma_async requires an
  /// architecture-specific target sm_90a; module targets sm_90".
  std::string message;
};

/// Every violation in `module`, in program order. Empty when the target
/// cannot be read.
llvm::SmallVector<TargetViolation> checkTargets(ptx::ModuleOp module);

/// The violations of one instruction against `target`.
llvm::SmallVector<TargetViolation, 2>
checkInstruction(ptx::InstructionOpInterface op, const Target &target);

} // namespace ptxbench::analysis

#endif // PTXBENCH_ANALYSIS_TARGETCHECK_H
