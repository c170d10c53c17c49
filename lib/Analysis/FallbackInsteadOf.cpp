//===- FallbackInsteadOf.cpp - Generic patterns instead of requested ones -===//
//
// The "instead-of" rules: a requested architecture-specific family is not
// used (no instruction of it can run in the kernel) and the kernel does the
// same work with the generic pattern models fall back to.
//
//===----------------------------------------------------------------------===//

#include "FallbackRules.h"
#include "ptxbench/Analysis/InstructionAccess.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;
using namespace ptxbench::analysis::rules;

using isa::Family;

namespace {

auto isMnemonic(StringRef name) {
  return
      [name](ptx::InstructionOpInterface op) { return mnemonic(op) == name; };
}

bool isWgmmaMma(ptx::InstructionOpInterface op) {
  return mnemonic(op).starts_with("wgmma.mma_async");
}

bool isFfmaF32(ptx::InstructionOpInterface op) {
  return mnemonic(op) == "fma" && hasModifier(op.getOpcode(), ".f32");
}

/// The label (or first op) of `block`, for notes pointing at a loop.
Operation *blockAnchor(Block *block) { return &block->front(); }

std::string count(size_t n, StringRef what) {
  return llvm::formatv("{0} {1}{2}", n, what, n == 1 ? "" : "s").str();
}

/// What to write instead of warp-level matrix math on sm_90a. A wgmma's K
/// is 32 bytes of input: k16 for bf16/f16, k32 for fp8.
constexpr const char *kWgmmaAlternative =
    "on sm_90a a warpgroup issues wgmma.mma_async (m64nNk16 for bf16/f16, "
    "m64nNk32 for fp8) on shared-memory tiles, asynchronously";

bool isMatrixMath(ptx::InstructionOpInterface op) {
  StringRef name = mnemonic(op);
  return name.starts_with("wgmma.mma_async") || name == "mma" ||
         name.starts_with("mma.") || name.starts_with("wmma.mma") ||
         name.starts_with("tcgen05.mma");
}

bool isWarpMma(ptx::InstructionOpInterface op) {
  return familyOf(op) == Family::MmaSync &&
         (mnemonic(op) == "mma" || mnemonic(op).starts_with("mma."));
}

/// Whether an instruction of `loop` that can run satisfies `pred`.
bool loopHas(const KernelScope &scope, const Loop &loop,
             llvm::function_ref<bool(ptx::InstructionOpInterface)> pred) {
  return llvm::any_of(scope.opsIn(loop), pred);
}

/// The smallest loop holding one of `ops` and no instruction for which
/// `excluded` holds, with the first of `ops` in it; a loop doing its
/// reduction with them rather than with the excluded instruction.
std::pair<const Loop *, ptx::InstructionOpInterface>
loopWithout(const KernelScope &scope, ArrayRef<ptx::InstructionOpInterface> ops,
            llvm::function_ref<bool(ptx::InstructionOpInterface)> excluded) {
  const Loop *best = nullptr;
  ptx::InstructionOpInterface first;
  for (const Loop &loop : scope.loops) {
    auto in = llvm::find_if(ops, [&](ptx::InstructionOpInterface op) {
      return loop.contains(op->getBlock());
    });
    if (in == ops.end() || loopHas(scope, loop, excluded))
      continue;
    if (!best || loop.blocks.size() < best->blocks.size()) {
      best = &loop;
      first = *in;
    }
  }
  return {best, first};
}

/// Whether `fma` continues a multiply-accumulate chain: its addend is its
/// own destination (`fma d, a, b, d`, a loop-carried accumulator) or the
/// result of an f32 fma of the same loop (`fmaResults`). The shape of a
/// reduction, unlike element-wise arithmetic (x * scale - max).
bool accumulates(ptx::InstructionOpInterface fma,
                 const llvm::DenseSet<Value> &fmaResults) {
  Value dest, addend;
  for (const RegAccess &access : regAccesses(fma)) {
    if (access.operand == 0 && access.written)
      dest = access.value;
    if (access.operand == 3 && access.read)
      addend = access.value;
  }
  return addend && (dest == addend || fmaResults.contains(addend));
}

void checkWgmma(KernelScope &scope) {
  if (!scope.isRequested(Family::Wgmma))
    return;
  auto wgmmas = scope.filter(isWgmmaMma);
  // Warp-level matrix math: instead of wgmma when no wgmma runs, and beside
  // it when it does a loop's reduction that no wgmma takes part in (one
  // token wgmma does not make mma.sync loops the requested path).
  auto mmas = scope.filter(isWarpMma);
  auto wmmas = scope.filter(isMnemonic("wmma.mma"));
  for (auto [kind, list, wmma] :
       {std::tuple{FallbackKind::MmaSyncInsteadOfWgmma, &mmas, false},
        std::tuple{FallbackKind::WmmaInsteadOfWgmma, &wmmas, true}}) {
    if (list->empty())
      continue;
    ptx::InstructionOpInterface first = list->front();
    std::string what =
        wmma ? "legacy wmma.mma" : ("warp-level " + first.getOpcode()).str();
    if (wgmmas.empty()) {
      scope.report(kind, first,
                   llvm::formatv("wgmma was requested but the matrix math is "
                                 "{0} ({1})",
                                 what, count(list->size(), "instruction")),
                   kWgmmaAlternative);
      continue;
    }

    auto [loop, inLoop] = loopWithout(scope, *list, isWgmmaMma);
    if (!loop)
      continue;
    if (!wmma)
      what = ("warp-level " + inLoop.getOpcode()).str();
    Fallback &found = scope.report(
        kind, inLoop,
        llvm::formatv("wgmma was requested but a loop's matrix math is {0}, "
                      "beside {1} outside the loop",
                      what, count(wgmmas.size(), "wgmma.mma_async")),
        kWgmmaAlternative);
    found.related = blockAnchor(loop->header);
    found.relatedMessage = "the loop starts here";
  }
  // The smallest loop whose floating-point arithmetic is mostly f32 FMAs.
  // Without any tensor-core instruction any such loop is the matrix math.
  // Beside tensor-core instructions it must hold none of them and carry a
  // multiply-accumulate chain (fma d, a, b, d): a reduction the tensor
  // cores do not do, not the element-wise arithmetic of an epilogue.
  bool tensorCores = scope.uses(
      {Family::Wgmma, Family::MmaSync, Family::Wmma, Family::Tcgen05});
  const Loop *best = nullptr;
  ptx::InstructionOpInterface firstFma;
  for (const Loop &loop : scope.loops) {
    unsigned fmas = 0, floats = 0;
    bool chain = false, matrix = false;
    ptx::InstructionOpInterface first;
    auto loopOps = scope.opsIn(loop);
    for (ptx::InstructionOpInterface op : loopOps) {
      floats += familyOf(op) == Family::FloatArith;
      matrix |= isMatrixMath(op);
      if (isFfmaF32(op) && !fmas++)
        first = op;
    }
    if (!fmas || 2 * fmas < floats)
      continue;
    if (tensorCores && !matrix) {
      llvm::DenseSet<Value> fmaResults;
      for (ptx::InstructionOpInterface op : loopOps)
        if (isFfmaF32(op))
          for (const RegAccess &access : regAccesses(op))
            if (access.operand == 0 && access.written)
              fmaResults.insert(access.value);
      chain = llvm::any_of(loopOps, [&](ptx::InstructionOpInterface op) {
        return isFfmaF32(op) && accumulates(op, fmaResults);
      });
    }
    if (tensorCores && (matrix || !chain))
      continue;
    if (!best || loop.blocks.size() < best->blocks.size()) {
      best = &loop;
      firstFma = first;
    }
  }
  if (!best)
    return;
  std::string message =
      tensorCores
          ? llvm::formatv("wgmma was requested but a loop accumulates with "
                          "scalar f32 FMAs and no tensor-core instruction, "
                          "beside {0} outside the loop",
                          count(scope.filter(isMatrixMath).size(),
                                "tensor-core instruction"))
                .str()
          : "wgmma was requested but the matrix math is a loop of scalar f32 "
            "FMAs and the kernel has no tensor-core instruction";
  Fallback &found = scope.report(FallbackKind::FfmaLoopInsteadOfWgmma, firstFma,
                                 message, kWgmmaAlternative);
  found.related = blockAnchor(best->header);
  found.relatedMessage = "the loop starts here";
}

bool isTmaOrBulk(ptx::InstructionOpInterface op) {
  std::optional<Family> family = familyOf(op);
  return family == Family::Tma || family == Family::BulkCopy;
}

/// An ld.global in `loop` whose result reaches `value` directly or through
/// at most `depth` moves and conversions (mov, cvt, selp, shifts, prmt,
/// bit-field and logic ops) in the loop; null when there is none.
ptx::InstructionOpInterface globalLoadFeeding(const KernelScope &scope,
                                              const Loop &loop, Value value,
                                              unsigned depth) {
  static constexpr llvm::StringLiteral moves[] = {
      "mov", "cvt", "selp", "shl", "shr", "prmt", "and", "or", "bfe", "bfi"};
  for (Operation *user : value.getUsers()) {
    auto writer = llvm::dyn_cast<ptx::InstructionOpInterface>(user);
    if (!writer || !writes(writer, value) ||
        !loop.contains(writer->getBlock()) ||
        !scope.reachability.isExecutable(writer))
      continue;
    if (isLoadFrom(writer, ".global"))
      return writer;
    if (!depth || !llvm::is_contained(moves, mnemonic(writer)))
      continue;
    for (const RegAccess &source : regAccesses(writer))
      if (source.read && source.operand != 0 && source.value != value)
        if (auto load = globalLoadFeeding(scope, loop, source.value, depth - 1))
          return load;
  }
  return {};
}

/// What was requested of the copy engine, for messages: "TMA", "a bulk
/// copy" or (both, as `bulk_copy|tma` asks) "a bulk copy or TMA".
StringRef requestedCopies(const KernelScope &scope) {
  if (!scope.isRequested(Family::BulkCopy))
    return "TMA";
  return scope.isRequested(Family::Tma) ? "a bulk copy or TMA" : "a bulk copy";
}

/// What to write instead of copies by threads. Where a plain bulk copy is
/// accepted, it is named first: it takes any contiguous span at an address
/// computed per copy, which is what a gather through an index (a page
/// table, a row list) needs and a tensor map cannot express.
std::string copyAlternative(const KernelScope &scope) {
  if (!scope.isRequested(Family::BulkCopy))
    return "on sm_90a and later one thread issues cp.async.bulk.tensor with "
           "a tensor map, completing on an mbarrier";
  return "on sm_90a and later one thread issues cp.async.bulk of each "
         "contiguous span (a row or page gathered through an index "
         "included) into shared memory, or cp.async.bulk.tensor with a "
         "tensor map for a regular tile, completing on an mbarrier with "
         "expect_tx";
}

void checkTma(KernelScope &scope) {
  if (!scope.isRequested(Family::Tma) && !scope.isRequested(Family::BulkCopy))
    return;
  StringRef requested = requestedCopies(scope);
  std::string alternative = copyAlternative(scope);
  // Beside TMA, only loops that copy with no TMA or bulk copy in them: one
  // token TMA load does not make thread-copy loops the requested path.
  bool tma = scope.uses({Family::Tma, Family::BulkCopy});
  auto copies = scope.filter(isMnemonic("cp.async"));
  if (!copies.empty() && !tma)
    scope.report(FallbackKind::CpAsyncInsteadOfTma, copies.front(),
                 llvm::formatv("{0} was requested but tiles are copied by "
                               "threads with cp.async ({1})",
                               requested, count(copies.size(), "instruction")),
                 alternative);
  if (!copies.empty() && tma) {
    auto [loop, inLoop] = loopWithout(scope, copies, isTmaOrBulk);
    if (loop) {
      Fallback &found = scope.report(
          FallbackKind::CpAsyncInsteadOfTma, inLoop,
          llvm::formatv("{0} was requested but a loop copies tiles by "
                        "threads with cp.async, beside TMA or bulk copies "
                        "outside the loop",
                        requested),
          alternative);
      found.related = blockAnchor(loop->header);
      found.relatedMessage = "the loop starts here";
    }
  }
  // A loop where a register loaded from global memory is stored to shared,
  // directly or through a few moves and conversions (bf16 -> f32, a select
  // for the edge).
  for (const Loop &loop : scope.loops) {
    if (tma && loopHas(scope, loop, isTmaOrBulk))
      continue;
    for (ptx::InstructionOpInterface store : scope.opsIn(loop)) {
      if (!isStoreTo(store, ".shared"))
        continue;
      for (const RegAccess &value : regAccesses(store)) {
        if (value.operand == 0 || !value.read)
          continue;
        ptx::InstructionOpInterface load =
            globalLoadFeeding(scope, loop, value.value, 3);
        if (!load)
          continue;
        Fallback &found = scope.report(
            FallbackKind::LdStCopyInsteadOfTma, store,
            llvm::formatv("{0} was requested but a loop copies tiles "
                          "through registers (ld.global into st.shared)",
                          requested),
            alternative);
        found.related = load;
        found.relatedMessage = "the stored register is loaded from global "
                               "memory here";
        return;
      }
    }
  }
}

/// TMA or bulk copies requested, none of them runs and no copy the TMA rules
/// name either: the kernel reads global memory with per-thread loads
/// straight into registers, the usual fallback of a memory-bound kernel.
void checkGlobalLoads(KernelScope &scope) {
  if (!(scope.isRequested(Family::Tma) ||
        scope.isRequested(Family::BulkCopy)) ||
      scope.uses({Family::Tma, Family::BulkCopy}))
    return;
  bool named = llvm::any_of(scope.out, [&](const Fallback &f) {
    return f.kernel == scope.kernel &&
           (f.kind == FallbackKind::CpAsyncInsteadOfTma ||
            f.kind == FallbackKind::LdStCopyInsteadOfTma);
  });
  if (named || !scope.filter(isMnemonic("cp.async")).empty())
    return;
  auto loads = scope.filter(
      [](ptx::InstructionOpInterface op) { return isLoadFrom(op, ".global"); });
  if (loads.empty())
    return;
  scope.report(
      FallbackKind::LdGlobalInsteadOfBulkCopy, loads.front(),
      llvm::formatv("{0} was requested but the kernel reads global memory "
                    "with per-thread loads into registers ({1})",
                    requestedCopies(scope),
                    count(loads.size(), "ld.global instruction"))
          .str(),
      scope.isRequested(Family::BulkCopy)
          ? copyAlternative(scope)
          : "on sm_90a and later one thread issues cp.async.bulk.tensor with "
            "a tensor map into shared memory, completing on an mbarrier with "
            "expect_tx");
}

void checkMbarrier(KernelScope &scope) {
  if (!(scope.isRequested(Family::Mbarrier) ||
        scope.isRequested(Family::MbarrierTx)) ||
      scope.uses({Family::Mbarrier, Family::MbarrierTx}))
    return;
  auto barriers = scope.filter(isBarrierSync);
  if (barriers.empty())
    return;
  scope.report(FallbackKind::BarSyncInsteadOfMbarrier, barriers.front(),
               llvm::formatv("mbarrier was requested but the kernel only "
                             "synchronizes with CTA-wide barriers ({0})",
                             count(barriers.size(), "bar.sync")),
               "pipeline stages with mbarrier.arrive/try_wait (expect_tx for "
               "TMA) so producers and consumers wait only for their stage");
}

void checkTcgen05(KernelScope &scope) {
  if (!scope.isRequested(Family::Tcgen05) || !scope.target ||
      scope.target->sm < 100 || !scope.target->isArchSpecific() ||
      scope.uses({Family::Tcgen05}))
    return;
  auto mmas = scope.filter(isWgmmaMma);
  if (mmas.empty())
    return;
  scope.report(FallbackKind::WgmmaInsteadOfTcgen05, mmas.front(),
               llvm::formatv("tcgen05 was requested on {0} but the matrix "
                             "math is sm_90a-style wgmma.mma_async",
                             scope.target->name),
               "on sm_100a one thread issues tcgen05.mma with the "
               "accumulator in tensor memory (tcgen05.alloc)");
}

} // namespace

void rules::checkInsteadOf(KernelScope &scope) {
  checkWgmma(scope);
  checkTma(scope);
  checkGlobalLoads(scope);
  checkMbarrier(scope);
  checkTcgen05(scope);
}
