//===- Loops.cpp - Natural loops of a PTX function body -------------------===//
//
// Back edges are found with MLIR's dominance information; each loop's body
// is collected by walking predecessors backwards from the latch.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Analysis/Loops.h"

#include "mlir/IR/Dominance.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;

SmallVector<Loop> analysis::findLoops(Region &body) {
  SmallVector<Loop> loops;
  if (body.empty())
    return loops;
  DominanceInfo dominance(body.getParentOp());
  for (Block &latch : body) {
    if (!dominance.isReachableFromEntry(&latch))
      continue;
    for (Block *header : latch.getSuccessors()) {
      if (!dominance.dominates(header, &latch))
        continue;
      llvm::SmallPtrSet<Block *, 16> members{header};
      SmallVector<Block *> worklist;
      if (members.insert(&latch).second)
        worklist.push_back(&latch);
      while (!worklist.empty()) {
        Block *block = worklist.pop_back_val();
        for (Block *pred : block->getPredecessors())
          if (members.insert(pred).second)
            worklist.push_back(pred);
      }
      Loop loop{header, &latch, {}};
      for (Block &block : body)
        if (members.contains(&block))
          loop.blocks.push_back(&block);
      loops.push_back(std::move(loop));
    }
  }
  return loops;
}
