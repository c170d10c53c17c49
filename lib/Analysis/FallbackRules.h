//===- FallbackRules.h - The fallback rules, per kernel ---------*- C++ -*-===//
//
// Private to lib/Analysis: what each rule sees of a kernel, and the rules.
// FallbackAnalysis.cpp runs them; the rules live in FallbackInsteadOf.cpp
// (a generic pattern instead of a requested family) and FallbackMisuse.cpp
// (a feature used in a way that gains nothing).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_ANALYSIS_FALLBACKRULES_H
#define PTXBENCH_LIB_ANALYSIS_FALLBACKRULES_H

#include "ptxbench/Analysis/FallbackAnalysis.h"
#include "ptxbench/Analysis/Loops.h"
#include "ptxbench/Analysis/TargetCheck.h"

namespace ptxbench::analysis::rules {

/// One kernel as the rules see it.
struct KernelScope {
  ptx::FuncOp kernel;
  const Reachability &reachability;
  std::optional<Target> target;
  llvm::ArrayRef<isa::Family> requested;
  const FallbackOptions &options;
  /// The instructions that can run, in the kernel and the functions it can
  /// call, in program order.
  llvm::SmallVector<ptx::InstructionOpInterface> ops;
  /// The loops of those functions, with the blocks that can run.
  llvm::SmallVector<Loop> loops;
  llvm::SmallVectorImpl<Fallback> &out;

  bool isRequested(isa::Family family) const {
    return llvm::is_contained(requested, family);
  }
  /// The instructions for which `pred` holds.
  llvm::SmallVector<ptx::InstructionOpInterface>
  filter(llvm::function_ref<bool(ptx::InstructionOpInterface)> pred) const;
  /// Whether an instruction of one of `families` can run.
  bool uses(llvm::ArrayRef<isa::Family> families) const;
  /// The instructions that can run in `loop`.
  llvm::SmallVector<ptx::InstructionOpInterface> opsIn(const Loop &loop) const;
  /// Records a finding.
  Fallback &report(FallbackKind kind, mlir::Operation *op, std::string message,
                   std::string alternative);
};

/// The mnemonic of `op`'s ISA record ("wgmma.mma_async"), or its opcode.
llvm::StringRef mnemonic(ptx::InstructionOpInterface op);

/// A CTA barrier that waits: bar.sync, barrier.sync and their .cta forms.
bool isBarrierSync(ptx::InstructionOpInterface op);

void checkInsteadOf(KernelScope &scope);
void checkMisuse(KernelScope &scope);

} // namespace ptxbench::analysis::rules

#endif // PTXBENCH_LIB_ANALYSIS_FALLBACKRULES_H
