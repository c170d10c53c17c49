//===- Reachability.h - What can run, from each kernel entry ----*- C++ -*-===//
//
// Which blocks of each function body are reachable from its entry block,
// following successors but not the ones a constant guard rules out, and
// which functions each kernel can call (directly by symbol; an indirect call
// can reach every function whose address is taken). An instruction counts
// as executable when its block is reachable and its own guard is not
// constantly false; a function no kernel calls is not reachable at all.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_ANALYSIS_REACHABILITY_H
#define PTXBENCH_ANALYSIS_REACHABILITY_H

#include "ptxbench/Dialect/PTX/PTX.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace ptxbench::analysis {

/// The value of `pred`, a `.pred` register, when every instruction that
/// writes it in its function writes the same constant: a `setp` comparing
/// two integer immediates (or registers only ever set by `mov` of one
/// immediate), or a `mov` of 0 or 1. std::nullopt when not provably constant.
std::optional<bool> constantPredicate(mlir::Value pred);

class Reachability {
public:
  explicit Reachability(ptx::ModuleOp module);

  /// The kernels (`.entry` functions with a body), in module order.
  llvm::ArrayRef<ptx::FuncOp> kernels() const { return kernelList; }

  /// Whether `block` is reachable from its function's entry block.
  bool isReachable(mlir::Block *block) const {
    return reachableBlocks.contains(block);
  }
  /// Whether `op` can run once its function runs: its block is reachable
  /// and its guard is not constantly false.
  bool isExecutable(mlir::Operation *op) const;

  /// The functions `kernel` can call when it runs, itself first: calls in
  /// executable code only.
  llvm::ArrayRef<ptx::FuncOp> reachableFunctions(ptx::FuncOp kernel) const;
  /// The functions `kernel` names in any call, executable or not, itself
  /// first. Instructions in these count toward the kernel.
  llvm::ArrayRef<ptx::FuncOp> calledFunctions(ptx::FuncOp kernel) const;
  /// Whether some kernel can call `func` (kernels are reachable).
  bool isReachable(ptx::FuncOp func) const {
    return reachableFuncs.contains(func.getOperation());
  }
  /// Whether some kernel names `func` in a call, executable or not.
  bool isCalled(ptx::FuncOp func) const {
    return calledFuncs.contains(func.getOperation());
  }
  /// Whether `op` is executable in a function that `kernel` can call.
  bool isReachableFrom(ptx::FuncOp kernel, mlir::Operation *op) const;

private:
  void computeBlocks(ptx::FuncOp func);
  void computeCallees(ptx::FuncOp func);
  llvm::SetVector<ptx::FuncOp> closure(ptx::FuncOp kernel, bool executable);

  /// Whether `op` runs when control reaches it: true (unguarded or constantly
  /// true guard), false (constantly false guard) or std::nullopt (unknown);
  /// the predicates' values are cached.
  std::optional<bool> cachedGuard(ptx::InstructionOpInterface op);

  ptx::ModuleOp module;
  llvm::SmallVector<ptx::FuncOp> kernelList;
  llvm::DenseMap<mlir::Value, std::optional<bool>> predicateCache;
  /// Instructions whose guard is constantly false.
  llvm::DenseSet<mlir::Operation *> falseGuarded;
  llvm::DenseSet<mlir::Block *> reachableBlocks;
  /// Per function: callees named by calls, with whether the call is
  /// executable. An indirect call is a null callee.
  llvm::DenseMap<mlir::Operation *,
                 llvm::SmallVector<std::pair<ptx::FuncOp, bool>>>
      callees;
  llvm::SetVector<ptx::FuncOp> addressTakenList;
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<ptx::FuncOp>>
      reachableClosure, calledClosure;
  llvm::DenseSet<mlir::Operation *> reachableFuncs, calledFuncs;
};

} // namespace ptxbench::analysis

#endif // PTXBENCH_ANALYSIS_REACHABILITY_H
