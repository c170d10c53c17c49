//===- FallbackAnalysis.cpp - Generic patterns instead of requested ones --===//
//
// Builds each kernel's view (the instructions and loops that can run, across
// the functions it calls), runs the rules on it and formats the findings.
//
//===----------------------------------------------------------------------===//

#include "FallbackRules.h"
#include "ptxbench/Analysis/InstructionAccess.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "ptx-fallbacks"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;
using namespace ptxbench::analysis::rules;

StringRef analysis::fallbackKindName(FallbackKind kind) {
  switch (kind) {
  case FallbackKind::MmaSyncInsteadOfWgmma:
    return "mma-sync-instead-of-wgmma";
  case FallbackKind::WmmaInsteadOfWgmma:
    return "wmma-instead-of-wgmma";
  case FallbackKind::FfmaLoopInsteadOfWgmma:
    return "ffma-loop-instead-of-wgmma";
  case FallbackKind::CpAsyncInsteadOfTma:
    return "cp-async-instead-of-tma";
  case FallbackKind::LdStCopyInsteadOfTma:
    return "ld-st-copy-instead-of-tma";
  case FallbackKind::LdGlobalInsteadOfBulkCopy:
    return "ld-global-instead-of-bulk-copy";
  case FallbackKind::BarSyncInsteadOfMbarrier:
    return "bar-sync-instead-of-mbarrier";
  case FallbackKind::WgmmaSerialized:
    return "wgmma-serialized";
  case FallbackKind::TmaWithoutExpectTx:
    return "tma-without-expect-tx";
  case FallbackKind::SetmaxnregWithoutCap:
    return "setmaxnreg-without-cap";
  case FallbackKind::SetmaxnregOutsideRoleBranch:
    return "setmaxnreg-outside-role-branch";
  case FallbackKind::LocalMemoryInLoop:
    return "local-memory-in-loop";
  case FallbackKind::WgmmaInsteadOfTcgen05:
    return "wgmma-instead-of-tcgen05";
  case FallbackKind::F16Accumulator:
    return "f16-accumulator";
  }
  llvm_unreachable("unknown fallback kind");
}

std::optional<FileLineColLoc> Fallback::ptxLoc() const {
  return ptxLocation(op->getLoc());
}

std::optional<FileLineColLoc> Fallback::cudaLoc() const {
  return cudaLocation(op->getLoc());
}

std::string Fallback::format() const {
  std::string text = llvm::formatv("[{0}] {1}; {2}", fallbackKindName(kind),
                                   message, alternative)
                         .str();
  if (std::optional<FileLineColLoc> cuda = cudaLoc())
    text += llvm::formatv(" (CUDA {0}:{1})", cuda->getFilename().getValue(),
                          cuda->getLine())
                .str();
  return text;
}

//===----------------------------------------------------------------------===//
// KernelScope
//===----------------------------------------------------------------------===//

StringRef rules::mnemonic(ptx::InstructionOpInterface op) {
  if (const isa::InstrInfo *info = instrInfo(op))
    return info->mnemonic;
  return op.getOpcode();
}

bool rules::isBarrierSync(ptx::InstructionOpInterface op) {
  StringRef name = mnemonic(op);
  return name == "bar.sync" || name == "barrier.sync" ||
         name == "bar.cta.sync" || name == "barrier.cta.sync";
}

SmallVector<ptx::InstructionOpInterface> KernelScope::filter(
    llvm::function_ref<bool(ptx::InstructionOpInterface)> pred) const {
  SmallVector<ptx::InstructionOpInterface> found;
  for (ptx::InstructionOpInterface op : ops)
    if (pred(op))
      found.push_back(op);
  return found;
}

bool KernelScope::uses(ArrayRef<isa::Family> families) const {
  return llvm::any_of(ops, [&](ptx::InstructionOpInterface op) {
    std::optional<isa::Family> family = familyOf(op);
    return family && llvm::is_contained(families, *family);
  });
}

SmallVector<ptx::InstructionOpInterface>
KernelScope::opsIn(const Loop &loop) const {
  SmallVector<ptx::InstructionOpInterface> found;
  for (Block *block : loop.blocks)
    for (auto op : block->getOps<ptx::InstructionOpInterface>())
      if (reachability.isExecutable(op))
        found.push_back(op);
  return found;
}

Fallback &KernelScope::report(FallbackKind kind, Operation *op,
                              std::string message, std::string alternative) {
  LLVM_DEBUG(llvm::dbgs() << "fallback " << fallbackKindName(kind) << " in "
                          << kernel.getSymName() << "\n");
  out.push_back(
      Fallback{kind, kernel, op, std::move(message), std::move(alternative)});
  return out.back();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

SmallVector<Fallback>
analysis::detectFallbacks(ptx::ModuleOp module,
                          const Reachability &reachability,
                          ArrayRef<isa::Family> requested,
                          const FallbackOptions &options) {
  SmallVector<Fallback> out;
  std::optional<Target> target = Target::of(module);
  for (ptx::FuncOp kernel : reachability.kernels()) {
    KernelScope scope{kernel, reachability, target, requested, options,
                      {},     {},           out};
    for (ptx::FuncOp func : reachability.reachableFunctions(kernel)) {
      func.walk([&](ptx::InstructionOpInterface op) {
        if (reachability.isExecutable(op))
          scope.ops.push_back(op);
      });
      for (Loop &loop : findLoops(func.getBody()))
        if (reachability.isReachable(loop.header))
          scope.loops.push_back(std::move(loop));
    }
    checkInsteadOf(scope);
    checkMisuse(scope);
  }
  return out;
}
