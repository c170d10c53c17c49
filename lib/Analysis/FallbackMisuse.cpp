//===- FallbackMisuse.cpp - Features used in a way that gains nothing -----===//
//
// The rules that fire whatever was requested: serialized wgmma, TMA loads
// whose mbarrier never learns the transaction count, setmaxnreg without a
// register cap or outside a warp-role branch, and local memory in loops.
//
//===----------------------------------------------------------------------===//

#include "FallbackRules.h"
#include "ptxbench/Analysis/InstructionAccess.h"

#include "mlir/IR/Dominance.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;
using namespace ptxbench::analysis::rules;

namespace {

/// The first wgmma.wait_group after `commit` in program order, following
/// blocks with one successor; null when a wgmma.mma_async comes first or
/// control splits.
ptx::InstructionOpInterface waitAfter(ptx::InstructionOpInterface commit) {
  llvm::SmallPtrSet<Block *, 8> visited;
  Operation *op = commit->getNextNode();
  while (op) {
    if (auto inst = llvm::dyn_cast<ptx::InstructionOpInterface>(op)) {
      StringRef name = mnemonic(inst);
      if (name.starts_with("wgmma.mma_async"))
        return {};
      if (name == "wgmma.wait_group")
        return inst;
    }
    if (!op->hasTrait<OpTrait::IsTerminator>()) {
      op = op->getNextNode();
      continue;
    }
    if (op->getNumSuccessors() != 1)
      return {};
    auto guarded = llvm::dyn_cast<ptx::InstructionOpInterface>(op);
    if (guarded && guarded.getGuard())
      return {};
    Block *next = op->getSuccessor(0);
    if (!visited.insert(next).second)
      return {};
    op = &next->front();
  }
  return {};
}

bool hasDirective(ptx::FuncOp func, StringRef name) {
  return llvm::any_of(func.getDirectives(), [&](Attribute attr) {
    return llvm::cast<ptx::DirectiveAttr>(attr).getName() == name;
  });
}

/// The most threads a CTA of `kernel` can have, from .reqntid or .maxntid
/// (the product of the dimensions given); nullopt when neither is declared.
std::optional<int64_t> declaredThreads(ptx::FuncOp kernel) {
  for (StringRef name : {"reqntid", "maxntid"})
    for (Attribute attr : kernel.getDirectives()) {
      auto directive = llvm::cast<ptx::DirectiveAttr>(attr);
      if (directive.getName() != name || directive.getValues().empty())
        continue;
      int64_t threads = 1;
      for (Attribute value : directive.getValues())
        if (auto dim = llvm::dyn_cast<IntegerAttr>(value))
          threads *= dim.getInt();
      return threads;
    }
  return std::nullopt;
}

/// How many warpgroups of one CTA can issue wgmma at the same time, as far
/// as the kernel declares: its thread count in warpgroups, less one when a
/// setmaxnreg.dec marks a producer warpgroup. 1 when nothing is declared.
int64_t wgmmaWarpgroups(const KernelScope &scope) {
  std::optional<int64_t> threads = declaredThreads(scope.kernel);
  if (!threads)
    return 1;
  int64_t groups = (*threads + 127) / 128;
  bool producer = !scope
                       .filter([](ptx::InstructionOpInterface op) {
                         return mnemonic(op) == "setmaxnreg" &&
                                hasModifier(op.getOpcode(), ".dec");
                       })
                       .empty();
  return std::max<int64_t>(1, groups - (producer ? 1 : 0));
}

bool inAnyLoop(const KernelScope &scope, Operation *op) {
  return llvm::any_of(scope.loops, [&](const Loop &loop) {
    return loop.contains(op->getBlock());
  });
}

/// Whether the innermost loop holding `op` also runs a barrier that makes
/// more than one warpgroup wait for the others every iteration: bar.sync /
/// barrier.sync (and their .cta forms) with no thread count or a count
/// above 128. A count in a register is not read and does not count. Loops
/// around that one do not count either: warp-specialized kernels switch
/// roles in an outer loop behind a CTA-wide barrier.
bool lockstepBarrierAround(const KernelScope &scope, Operation *op) {
  auto isLockstep = [](ptx::InstructionOpInterface inst) {
    if (!isBarrierSync(inst))
      return false;
    if (inst.getArgs().size() < 2)
      return true;
    std::optional<int64_t> threads = immediateOperand(inst, 1);
    return threads && *threads > 128;
  };
  const Loop *innermost = nullptr;
  for (const Loop &loop : scope.loops)
    if (loop.contains(op->getBlock()) &&
        (!innermost || loop.blocks.size() < innermost->blocks.size()))
      innermost = &loop;
  return innermost && llvm::any_of(scope.opsIn(*innermost), isLockstep);
}

/// Rule 1: every commit_group is followed by wait_group 0 with no
/// mma_async in between (and groups repeat: several commits or a loop).
/// Not when the kernel declares two or more warpgroups that issue wgmma
/// (e.g. .maxntid 384 with a setmaxnreg.dec producer): while one waits,
/// the other's groups keep the tensor cores busy, the schedule of
/// DeepGEMM-style fp8 kernels that promote after every group. That holds
/// only while the warpgroups run apart: a CTA-wide barrier in the loop
/// makes them wait for each other, and no group overlaps anything then.
void checkSerializedGroups(KernelScope &scope) {
  auto commits = scope.filter([](ptx::InstructionOpInterface op) {
    return mnemonic(op) == "wgmma.commit_group";
  });
  if (commits.empty())
    return;
  ptx::InstructionOpInterface firstWait;
  for (ptx::InstructionOpInterface commit : commits) {
    ptx::InstructionOpInterface wait = waitAfter(commit);
    if (!wait || immediateOperand(wait, 0) != std::optional<int64_t>(0))
      return;
    if (!firstWait)
      firstWait = wait;
  }
  if (commits.size() == 1 && !inAnyLoop(scope, commits.front()))
    return;
  if (wgmmaWarpgroups(scope) >= 2 &&
      llvm::none_of(commits, [&](ptx::InstructionOpInterface commit) {
        return lockstepBarrierAround(scope, commit);
      }))
    return;
  Fallback &found = scope.report(
      FallbackKind::WgmmaSerialized, commits.front(),
      "every wgmma.commit_group is followed by wgmma.wait_group 0 with no "
      "wgmma.mma_async in between, so no group overlaps the next",
      "wait with wgmma.wait_group N>0 and issue the next stage's "
      "wgmma.mma_async before waiting on the previous one, or run two "
      "consumer warpgroups (declared with __launch_bounds__ / .maxntid) so "
      "that one's groups run while the other waits");
  found.related = firstWait;
  found.relatedMessage = "waits for every outstanding group here";
}

/// Rule 2: a non-wgmma instruction writes an accumulator register of a
/// wgmma.mma_async after the last wgmma.fence before it in its block.
void checkUnfencedAccumulators(KernelScope &scope) {
  for (ptx::InstructionOpInterface mma : scope.ops) {
    if (!mnemonic(mma).starts_with("wgmma.mma_async"))
      continue;
    SmallVector<Value> accumulators;
    for (const RegAccess &access : regAccesses(mma))
      if (access.operand == 0)
        accumulators.push_back(access.value);
    for (Operation *op = mma->getPrevNode(); op; op = op->getPrevNode()) {
      auto inst = llvm::dyn_cast<ptx::InstructionOpInterface>(op);
      if (!inst)
        continue;
      StringRef name = mnemonic(inst);
      if (name == "wgmma.fence")
        break;
      if (name.starts_with("wgmma.") ||
          !scope.reachability.isExecutable(inst) ||
          llvm::none_of(accumulators,
                        [&](Value acc) { return writes(inst, acc); }))
        continue;
      Fallback &found = scope.report(
          FallbackKind::WgmmaSerialized, mma,
          "wgmma.mma_async reads accumulator registers written by a "
          "non-wgmma instruction with no wgmma.fence in between",
          "write accumulators before a wgmma.fence (or let wgmma zero them "
          "with scale-d 0) so ptxas can keep the wgmma pipeline");
      found.related = inst;
      found.relatedMessage =
          llvm::formatv("{0} writes an accumulator here", inst.getOpcode());
      return;
    }
  }
}

void checkExpectTx(KernelScope &scope) {
  auto loads = scope.filter([](ptx::InstructionOpInterface op) {
    return mnemonic(op) == "cp.async.bulk.tensor" &&
           hasModifier(op.getOpcode(), ".mbarrier::complete_tx::bytes");
  });
  if (loads.empty() || !scope
                            .filter([](ptx::InstructionOpInterface op) {
                              return mnemonic(op).ends_with("expect_tx");
                            })
                            .empty())
    return;
  scope.report(FallbackKind::TmaWithoutExpectTx, loads.front(),
               "cp.async.bulk.tensor completes on an mbarrier, but no "
               "mbarrier.expect_tx or mbarrier.arrive.expect_tx in the "
               "kernel sets its transaction count",
               "one thread arms the barrier with mbarrier.arrive.expect_tx "
               "and the tile's byte count before consumers wait on it");
}

void checkSetmaxnreg(KernelScope &scope) {
  auto sets = scope.filter([](ptx::InstructionOpInterface op) {
    return mnemonic(op) == "setmaxnreg";
  });
  if (sets.empty())
    return;
  ptx::FuncOp kernel = scope.kernel;
  bool capped =
      hasDirective(kernel, "maxnreg") ||
      ((hasDirective(kernel, "maxntid") || hasDirective(kernel, "reqntid")) &&
       hasDirective(kernel, "minnctapersm"));
  if (!capped) {
    Fallback &found = scope.report(
        FallbackKind::SetmaxnregWithoutCap, sets.front(),
        "setmaxnreg in a kernel without a register cap at entry: ptxas "
        "ignores it (C7508)",
        "declare .maxnreg, or .maxntid/.reqntid with .minnctapersm "
        "(__launch_bounds__(threads, 1)), so the entry budget is known");
    found.related = kernel;
    found.relatedMessage =
        llvm::formatv("kernel '{0}' declared here", kernel.getSymName());
  }
  PostDominanceInfo postDominance(kernel);
  Block *entry = &kernel.getBody().front();
  for (ptx::InstructionOpInterface set : sets) {
    if (set->getParentOp() != kernel.getOperation() || set.getGuard() ||
        !postDominance.postDominates(set->getBlock(), entry))
      continue;
    scope.report(FallbackKind::SetmaxnregOutsideRoleBranch, set,
                 "setmaxnreg runs on every path from the kernel entry, so "
                 "every warpgroup gets the same register budget",
                 "branch on the warpgroup's role: setmaxnreg.dec in the "
                 "producer, setmaxnreg.inc in the consumers");
    return;
  }
}

void checkLocalMemory(KernelScope &scope) {
  for (const Loop &loop : scope.loops) {
    for (ptx::InstructionOpInterface op : scope.opsIn(loop)) {
      if (!isLoadFrom(op, ".local") && !isStoreTo(op, ".local"))
        continue;
      Fallback &found = scope.report(
          FallbackKind::LocalMemoryInLoop, op,
          llvm::formatv("{0} in a loop: local memory (spills or an indexed "
                        "array) is off-chip traffic on every iteration",
                        op.getOpcode()),
          "keep the array in registers (constant indices, full unrolling) "
          "or in shared memory");
      found.related = &loop.header->front();
      found.relatedMessage = "the loop starts here";
      return;
    }
  }
}

/// The accumulator types of a matrix instruction: its D type (the first
/// type modifier after the shape) and, for mma and wmma, its C type (the
/// last); wgmma has no separate C type. Empty for other instructions.
SmallVector<StringRef, 2> accumulatorTypes(ptx::InstructionOpInterface op) {
  StringRef name = mnemonic(op);
  bool wgmma = name.starts_with("wgmma.mma_async");
  bool warp = name == "mma" || name.starts_with("mma.") ||
              name.starts_with("wmma.mma");
  if (!wgmma && !warp)
    return {};
  static constexpr llvm::StringLiteral types[] = {
      "f16", "bf16", "f32", "f64", "tf32", "s32", "u32", "s8", "u8",
      "s4",  "u4",   "b1",  "e4m3", "e5m2", "e2m1", "e3m2", "e2m3"};
  SmallVector<StringRef, 8> parts, found;
  op.getOpcode().split(parts, '.');
  bool afterShape = false;
  for (StringRef part : parts) {
    if (part.size() > 1 && part[0] == 'm' && part.contains('n') &&
        part.contains('k') && llvm::isDigit(part[1])) {
      afterShape = true;
      continue;
    }
    if (afterShape && llvm::is_contained(types, part))
      found.push_back(part);
  }
  if (found.empty())
    return {};
  SmallVector<StringRef, 2> result{found.front()};
  if (warp && found.size() > 1)
    result.push_back(found.back());
  return result;
}

/// With fp32 accumulation required: the first mma/wmma/wgmma whose
/// accumulator is f16 (a precision downgrade a loose tolerance may hide).
void checkAccumulators(KernelScope &scope) {
  if (!scope.options.f32Accumulate)
    return;
  auto f16 = scope.filter([](ptx::InstructionOpInterface op) {
    return llvm::is_contained(accumulatorTypes(op), "f16");
  });
  if (f16.empty())
    return;
  scope.report(
      FallbackKind::F16Accumulator, f16.front(),
      llvm::formatv("the task requires fp32 accumulation but {0} "
                    "accumulates in f16 ({1} such instruction{2})",
                    f16.front().getOpcode(), f16.size(),
                    f16.size() == 1 ? "" : "s"),
      "accumulate in f32: wgmma.mma_async...f32.bf16.bf16, "
      "mma.sync...f32.bf16.bf16.f32, wmma with a float accumulator fragment");
}

} // namespace

void rules::checkMisuse(KernelScope &scope) {
  checkAccumulators(scope);
  checkSerializedGroups(scope);
  checkUnfencedAccumulators(scope);
  checkExpectTx(scope);
  checkSetmaxnreg(scope);
  checkLocalMemory(scope);
}
