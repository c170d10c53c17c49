//===- FallbackAnalysis.h - Fallbacks from requested features --*- C++ -*-===//
//
// Names the generic patterns a kernel falls back to when architecture-
// specific instructions were requested (mma.sync instead of wgmma, cp.async
// instead of TMA, ...) and the ways a used feature gains nothing (serialized
// wgmma, TMA without a transaction count, setmaxnreg without a cap). Each
// finding has its kind, the instruction, the CUDA source line when the PTX
// has `.loc`, and a one-line note on the architecture-specific form. The
// rules are documented in docs/analysis.md.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_ANALYSIS_FALLBACKANALYSIS_H
#define PTXBENCH_ANALYSIS_FALLBACKANALYSIS_H

#include "ptxbench/Analysis/Reachability.h"
#include "ptxbench/ISA/ISA.h"

#include "mlir/IR/Location.h"

#include <string>

namespace ptxbench::analysis {

enum class FallbackKind {
  MmaSyncInsteadOfWgmma,
  WmmaInsteadOfWgmma,
  FfmaLoopInsteadOfWgmma,
  CpAsyncInsteadOfTma,
  LdStCopyInsteadOfTma,
  LdGlobalInsteadOfBulkCopy,
  BarSyncInsteadOfMbarrier,
  WgmmaSerialized,
  TmaWithoutExpectTx,
  SetmaxnregWithoutCap,
  SetmaxnregOutsideRoleBranch,
  LocalMemoryInLoop,
  WgmmaInsteadOfTcgen05,
  F16Accumulator,
};

/// The kind's name as printed, e.g. "cp-async-instead-of-tma".
llvm::StringRef fallbackKindName(FallbackKind kind);

struct Fallback {
  FallbackKind kind;
  ptx::FuncOp kernel;
  /// The instruction the finding is about.
  mlir::Operation *op;
  /// What is wrong, in one line.
  std::string message;
  /// The architecture-specific alternative, in one line.
  std::string alternative;
  /// A related place (the load feeding a store, the loop header, the
  /// kernel) and what it is; null when there is none.
  mlir::Operation *related = nullptr;
  std::string relatedMessage;

  /// The PTX location of `op`.
  std::optional<mlir::FileLineColLoc> ptxLoc() const;
  /// The CUDA source location of `op` (from `.loc`), when there is one.
  std::optional<mlir::FileLineColLoc> cudaLoc() const;
  /// "[kind] message; alternative", plus " (CUDA file:line)" when known.
  std::string format() const;
};

/// What the task asks beyond the requested families.
struct FallbackOptions {
  /// The task requires fp32 accumulation: f16 accumulators of mma, wmma
  /// and wgmma are findings (`f16-accumulator`).
  bool f32Accumulate = false;
};

/// The fallbacks of every kernel in `module`, kernel by kernel. The
/// "instead-of" kinds need their family in `requested`; the others fire
/// whenever their pattern is present. Only code that can run counts.
llvm::SmallVector<Fallback>
detectFallbacks(ptx::ModuleOp module, const Reachability &reachability,
                llvm::ArrayRef<isa::Family> requested,
                const FallbackOptions &options = {});

} // namespace ptxbench::analysis

#endif // PTXBENCH_ANALYSIS_FALLBACKANALYSIS_H
