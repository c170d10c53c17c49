//===- FallbackInsteadOf.cpp - Generic patterns instead of requested ones -===//
//
// The "instead-of" rules: a requested architecture-specific family is not
// used (no instruction of it can run in the kernel) and the kernel does the
// same work with the generic pattern models fall back to.
//
//===----------------------------------------------------------------------===//

#include "FallbackRules.h"
#include "ptxbench/Analysis/InstructionAccess.h"

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

void checkWgmma(KernelScope &scope) {
  if (!scope.isRequested(Family::Wgmma) || !scope.filter(isWgmmaMma).empty())
    return;
  auto mmas =
      scope.filter([](auto op) { return familyOf(op) == Family::MmaSync; });
  if (!mmas.empty())
    scope.report(FallbackKind::MmaSyncInsteadOfWgmma, mmas.front(),
                 llvm::formatv("wgmma was requested but the matrix math is "
                               "warp-level {0} ({1})",
                               mmas.front().getOpcode(),
                               count(mmas.size(), "instruction")),
                 kWgmmaAlternative);
  auto wmmas = scope.filter(isMnemonic("wmma.mma"));
  if (!wmmas.empty())
    scope.report(FallbackKind::WmmaInsteadOfWgmma, wmmas.front(),
                 llvm::formatv("wgmma was requested but the matrix math is "
                               "legacy wmma.mma ({0})",
                               count(wmmas.size(), "instruction")),
                 kWgmmaAlternative);
  if (scope.uses(
          {Family::Wgmma, Family::MmaSync, Family::Wmma, Family::Tcgen05}))
    return;
  // The smallest loop whose floating-point arithmetic is mostly f32 FMAs.
  const Loop *best = nullptr;
  ptx::InstructionOpInterface firstFma;
  for (const Loop &loop : scope.loops) {
    unsigned fmas = 0, floats = 0;
    ptx::InstructionOpInterface first;
    for (ptx::InstructionOpInterface op : scope.opsIn(loop)) {
      floats += familyOf(op) == Family::FloatArith;
      if (isFfmaF32(op) && !fmas++)
        first = op;
    }
    if (!fmas || 2 * fmas < floats)
      continue;
    if (!best || loop.blocks.size() < best->blocks.size()) {
      best = &loop;
      firstFma = first;
    }
  }
  if (!best)
    return;
  Fallback &found = scope.report(
      FallbackKind::FfmaLoopInsteadOfWgmma, firstFma,
      "wgmma was requested but the matrix math is a loop of scalar f32 FMAs "
      "and the kernel has no tensor-core instruction",
      kWgmmaAlternative);
  found.related = blockAnchor(best->header);
  found.relatedMessage = "the loop starts here";
}

void checkTma(KernelScope &scope) {
  if (!scope.isRequested(Family::Tma) ||
      scope.uses({Family::Tma, Family::BulkCopy}))
    return;
  auto copies = scope.filter(isMnemonic("cp.async"));
  if (!copies.empty())
    scope.report(
        FallbackKind::CpAsyncInsteadOfTma, copies.front(),
        llvm::formatv("TMA was requested but tiles are copied by "
                      "threads with cp.async ({0})",
                      count(copies.size(), "instruction")),
        "on sm_90a and later one thread issues cp.async.bulk.tensor with a "
        "tensor map, completing on an mbarrier");
  // A loop where a register loaded from global memory is stored to shared.
  for (const Loop &loop : scope.loops) {
    for (ptx::InstructionOpInterface store : scope.opsIn(loop)) {
      if (!isStoreTo(store, ".shared"))
        continue;
      for (const RegAccess &value : regAccesses(store)) {
        if (value.operand == 0 || !value.read)
          continue;
        for (Operation *user : value.value.getUsers()) {
          auto load = llvm::dyn_cast<ptx::InstructionOpInterface>(user);
          if (!load || !isLoadFrom(load, ".global") ||
              !writes(load, value.value) || !loop.contains(load->getBlock()) ||
              !scope.reachability.isExecutable(load))
            continue;
          Fallback &found = scope.report(
              FallbackKind::LdStCopyInsteadOfTma, store,
              "TMA was requested but a loop copies tiles through registers "
              "(ld.global into st.shared)",
              "on sm_90a and later one thread issues cp.async.bulk.tensor with "
              "a "
              "tensor map, completing on an mbarrier");
          found.related = load;
          found.relatedMessage = "the stored register is loaded from global "
                                 "memory here";
          return;
        }
      }
    }
  }
}

void checkMbarrier(KernelScope &scope) {
  if (!(scope.isRequested(Family::Mbarrier) ||
        scope.isRequested(Family::MbarrierTx)) ||
      scope.uses({Family::Mbarrier, Family::MbarrierTx}))
    return;
  auto barriers = scope.filter([](ptx::InstructionOpInterface op) {
    StringRef name = mnemonic(op);
    return name == "bar.sync" || name == "barrier.sync" ||
           name == "bar.cta.sync" || name == "barrier.cta.sync";
  });
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
  checkMbarrier(scope);
  checkTcgen05(scope);
}
