//===- Loops.h - Natural loops of a PTX function body -----------*- C++ -*-===//
//
// The loops of a function's control-flow graph: one per back edge (an edge
// latch -> header where the header dominates the latch), with the blocks of
// its natural loop. The fallback patterns that need "in a loop" use these.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_ANALYSIS_LOOPS_H
#define PTXBENCH_ANALYSIS_LOOPS_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Region.h"
#include "llvm/ADT/SetVector.h"

namespace ptxbench::analysis {

/// The natural loop of one back edge.
struct Loop {
  mlir::Block *header;
  mlir::Block *latch;
  /// The header, the latch and every block that reaches the latch without
  /// passing through the header, in region order.
  llvm::SmallVector<mlir::Block *> blocks;

  bool contains(mlir::Block *block) const {
    return llvm::is_contained(blocks, block);
  }
};

/// The natural loops of `body`, one per back edge, ordered by their latch.
llvm::SmallVector<Loop> findLoops(mlir::Region &body);

} // namespace ptxbench::analysis

#endif // PTXBENCH_ANALYSIS_LOOPS_H
