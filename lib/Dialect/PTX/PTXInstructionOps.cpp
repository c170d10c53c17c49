//===- PTXInstructionOps.cpp - Verifiers of the instruction ops -----------===//
//
// Every instruction op is checked against the ISA table: the opcode names a
// known instruction whose typed op is this one, every modifier fits one of
// its slots, and the operand count fits its operand roles. The typed ops add
// the checks of their family (wgmma accumulator sizes, TMA coordinate
// counts, setmaxnreg's range, ...).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/PTX.h"
#include "ptxbench/ISA/ISA.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::ptx;

namespace {

/// The op kind each instruction op stands for.
template <typename OpTy> constexpr isa::OpKind opKindOf();
#define PTXBENCH_OP_KIND(Op, Kind)                                             \
  template <> constexpr isa::OpKind opKindOf<Op>() { return isa::OpKind::Kind; }
PTXBENCH_OP_KIND(InstOp, Generic)
PTXBENCH_OP_KIND(WgmmaOp, Wgmma)
PTXBENCH_OP_KIND(TmaOp, Tma)
PTXBENCH_OP_KIND(MbarrierOp, Mbarrier)
PTXBENCH_OP_KIND(Tcgen05Op, Tcgen05)
PTXBENCH_OP_KIND(SetMaxNRegOp, SetMaxNReg)
PTXBENCH_OP_KIND(MmaSyncOp, MmaSync)
PTXBENCH_OP_KIND(CpAsyncOp, CpAsync)
PTXBENCH_OP_KIND(MatrixMoveOp, MatrixMove)
PTXBENCH_OP_KIND(CallOp, Call)
PTXBENCH_OP_KIND(BraOp, Branch)
PTXBENCH_OP_KIND(BrxOp, BranchIndex)
PTXBENCH_OP_KIND(RetOp, Return)
#undef PTXBENCH_OP_KIND

/// The checks shared by all instruction ops. Returns the instruction's
/// record, or null after reporting an error.
template <typename OpTy> const isa::InstrInfo *verifyInstruction(OpTy op) {
  StringRef opcode = op.getOpcode();
  const isa::InstrInfo *info = isa::lookup(opcode);
  if (!info) {
    op.emitOpError("unknown PTX instruction '") << opcode << "'";
    return nullptr;
  }
  if (info->kind != opKindOf<OpTy>()) {
    op.emitOpError("'") << opcode << "' is not a '" << OpTy::getOperationName()
                        << "' instruction";
    return nullptr;
  }
  StringRef modifier;
  if (!isa::hasValidModifiers(opcode, *info, &modifier)) {
    InFlightDiagnostic diag = op.emitOpError("unknown modifier '")
                              << modifier << "' in '" << opcode << "'";
    std::string slots;
    for (const isa::Slot &slot : info->slots)
      slots += (slots.empty() ? "" : ", ") + slot.name.str();
    diag.attachNote() << "'" << info->mnemonic << "' takes modifiers for: "
                      << (slots.empty() ? "none" : slots);
    return nullptr;
  }
  unsigned numArgs = op.getArgs().size();
  std::optional<unsigned> maxArgs = info->maxOperands();
  if (numArgs < info->minOperands() || (maxArgs && numArgs > *maxArgs)) {
    InFlightDiagnostic diag = op.emitOpError("'")
                              << opcode << "' takes " << info->minOperands();
    if (!maxArgs)
      diag << " or more";
    else if (*maxArgs != info->minOperands())
      diag << " to " << *maxArgs;
    diag << " operands, not " << numArgs;
    return nullptr;
  }
  if (countRegOperands(op.getArgs()) != op.getRefs().size()) {
    op.emitOpError("has ") << op.getRefs().size() << " register operands for "
                           << countRegOperands(op.getArgs())
                           << " '#ptx.r' placeholders";
    return nullptr;
  }
  if (Value guard = op.getGuard())
    if (auto reg = guard.getDefiningOp<RegOp>();
        reg && !reg.getDecl().contains(".pred")) {
      op.emitOpError("guard ")
          << reg.getRegName(llvm::cast<OpResult>(guard).getResultNumber())
          << " is not a .pred register";
      return nullptr;
    }
  return info;
}

/// The modifier of `opcode` that starts with `prefix` (".m64n"), or "".
StringRef findModifier(StringRef opcode, StringRef prefix) {
  for (StringRef part : llvm::split(opcode, '.'))
    if (("." + part).str().rfind(prefix, 0) == 0)
      return part;
  return {};
}

bool hasModifier(StringRef opcode, StringRef modifier) {
  for (StringRef part : llvm::split(opcode, '.'))
    if (part == modifier)
      return true;
  return false;
}

/// The element count of vector operand `arg`, or none.
std::optional<size_t> vectorSize(Attribute arg) {
  if (auto vec = llvm::dyn_cast<VecOperandAttr>(arg))
    return vec.getElements().size();
  return std::nullopt;
}

/// Successor count: `base`, plus the fallthrough when guarded.
LogicalResult verifySuccessors(Operation *op, bool guarded, unsigned base) {
  unsigned expected = base + (guarded ? 1 : 0);
  if (op->getNumSuccessors() != expected)
    return op->emitOpError("needs ")
           << expected << " successors ("
           << (guarded ? "targets and fallthrough" : "targets") << "), has "
           << op->getNumSuccessors();
  return success();
}

} // namespace

LogicalResult InstOp::verify() {
  return success(verifyInstruction(*this) != nullptr);
}

LogicalResult CallOp::verify() {
  return success(verifyInstruction(*this) != nullptr);
}

LogicalResult MbarrierOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  // Every mbarrier instruction but pending_count (which reads a state
  // register) names the barrier object by address.
  if (!getOpcode().starts_with("mbarrier.pending_count") &&
      !llvm::any_of(getArgs(), llvm::IsaPred<AddrOperandAttr>))
    return emitOpError("needs the mbarrier's address operand [addr]");
  return success();
}

LogicalResult WgmmaOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  StringRef opcode = getOpcode();
  if (!opcode.starts_with("wgmma.mma_async"))
    return success();
  // wgmma.mma_async.sync.aligned.m64nNkK.dtype...: the accumulator {d...}
  // holds N/2 32-bit registers for .f32/.s32 and N/4 for .f16.
  StringRef shape = findModifier(opcode, ".m64n");
  unsigned n = 0;
  if (shape.empty() || shape.drop_front(4).consumeInteger(10, n))
    return emitOpError("needs a .m64nNkK shape");
  StringRef dtype = opcode.substr(opcode.find(shape) + shape.size());
  bool halfAccumulator = dtype.starts_with(".f16");
  size_t expected = halfAccumulator ? n / 4 : n / 2;
  std::optional<size_t> got = vectorSize(getArgs()[0]);
  if (!got || *got != expected)
    return emitOpError("accumulator of ")
           << shape << (halfAccumulator ? " with .f16" : "")
           << " needs a vector of " << expected << " registers";
  return success();
}

LogicalResult TmaOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  // .Nd: the tensor operand [tmap, {c0, ..., cN-1}] has N coordinates.
  StringRef dim;
  for (StringRef part : llvm::split(getOpcode(), '.'))
    if (part.size() == 2 && part[1] == 'd' && llvm::isDigit(part[0]))
      dim = part;
  if (dim.empty())
    return success();
  size_t rank = dim[0] - '0';
  for (Attribute arg : getArgs()) {
    auto addr = llvm::dyn_cast<AddrOperandAttr>(arg);
    if (!addr || addr.getRest().empty())
      continue;
    std::optional<size_t> coords = vectorSize(addr.getRest()[0]);
    if (coords && *coords != rank)
      return emitOpError(".") << dim << " tensor copy needs " << rank
                              << " coordinates, has " << *coords;
  }
  return success();
}

LogicalResult Tcgen05Op::verify() {
  if (!verifyInstruction(*this))
    return failure();
  StringRef opcode = getOpcode();
  static const char *const needsCtaGroup[] = {
      "tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit",
      "tcgen05.mma",   "tcgen05.commit",  "tcgen05.cp",
      "tcgen05.shift"};
  for (StringRef prefix : needsCtaGroup)
    if ((opcode == prefix || opcode.starts_with((prefix + ".").str())) &&
        findModifier(opcode, ".cta_group::").empty())
      return emitOpError("'") << opcode << "' needs .cta_group::1 or ::2";
  return success();
}

LogicalResult SetMaxNRegOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  if (!hasModifier(getOpcode(), "inc") && !hasModifier(getOpcode(), "dec"))
    return emitOpError("needs .inc or .dec");
  auto imm = llvm::dyn_cast<ImmOperandAttr>(getArgs()[0]);
  std::optional<int64_t> count = imm ? imm.getIntegerValue() : std::nullopt;
  if (!count)
    return emitOpError("register count must be an integer immediate");
  if (*count < 24 || *count > 256 || *count % 8 != 0)
    return emitOpError("register count must be a multiple of 8 in [24, 256], "
                       "not ")
           << *count;
  return success();
}

LogicalResult MmaSyncOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  if (findModifier(getOpcode(), ".m").empty())
    return emitOpError("needs a .mMnNkK shape");
  return success();
}

LogicalResult CpAsyncOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  StringRef opcode = getOpcode();
  bool ca = opcode.starts_with("cp.async.ca."),
       cg = opcode.starts_with("cp.async.cg.");
  if (!ca && !cg)
    return success();
  auto size = llvm::dyn_cast<ImmOperandAttr>(getArgs()[2]);
  std::optional<int64_t> value = size ? size.getIntegerValue() : std::nullopt;
  if (!value)
    return emitOpError("copy size must be an integer immediate");
  int64_t bytes = *value;
  if (cg ? bytes != 16 : (bytes != 4 && bytes != 8 && bytes != 16))
    return emitOpError("copy size must be ")
           << (cg ? "16 for .cg" : "4, 8 or 16") << ", not " << bytes;
  return success();
}

LogicalResult MatrixMoveOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  StringRef opcode = getOpcode();
  StringRef num = findModifier(opcode, ".x");
  unsigned count = 0;
  if (num.empty() || num.drop_front().getAsInteger(10, count))
    return success();
  // ldmatrix writes operand 0; stmatrix reads operand 1.
  unsigned index = opcode.starts_with("stmatrix") ? 1 : 0;
  if (index >= getArgs().size())
    return success();
  // A 16x16 matrix of bytes (ldmatrix .m16n16) is two registers per thread;
  // every other shape is one.
  unsigned perMatrix = hasModifier(opcode, "m16n16") ? 2 : 1;
  std::optional<size_t> got = vectorSize(getArgs()[index]);
  size_t regs = got ? *got : 1;
  if (regs != count * perMatrix)
    return emitOpError(".x") << count << " moves " << count * perMatrix
                             << " registers per thread, operand has " << regs;
  return success();
}

LogicalResult BraOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  return verifySuccessors(*this, getGuard() != nullptr, 1);
}

LogicalResult BrxOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  if (getNumSuccessors() < (getGuard() ? 2u : 1u))
    return emitOpError("needs its table's targets as successors");
  return success();
}

LogicalResult RetOp::verify() {
  if (!verifyInstruction(*this))
    return failure();
  return verifySuccessors(*this, getGuard() != nullptr, 0);
}
