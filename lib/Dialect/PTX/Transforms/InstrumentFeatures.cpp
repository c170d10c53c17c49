//===- InstrumentFeatures.cpp - Count executed feature instructions -------===//
//
// Rewrites kernels so each executed instruction of the requested feature
// families adds to a per-family 64-bit counter. Counts are exact per-thread
// counts (thread-instructions), added with one red.global per warp and
// instrumentation point: the active mask, narrowed by the instruction's
// guard, is counted with popc and the lowest active lane adds it. The
// sequence is in Passes.td. With `work`, weighted counters follow
// (WorkCounters.h): each matrix instruction adds its FLOPs, each run of
// CUDA-core arithmetic its FLOPs, each global load its bytes, each
// expect_tx its transaction count, so a run says how much of the task's
// work went through which instruction. With `knockout`, the harness can
// switch each kind of matrix instruction off, so another run says whether
// its work reached the outputs.
//
// The counters' address and the knockout settings come from a module
// variable (the control block, under a name the caller chooses): the
// kernels' signatures stay as they were, so an instrumented launch passes
// the very parameters of a timed one.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/Transforms/Passes.h"

#include "ptxbench/Analysis/FeatureAnalysis.h"
#include "ptxbench/Analysis/InstructionAccess.h"
#include "ptxbench/ISA/WorkCounters.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

#include <array>

namespace ptxbench::ptx {
#define GEN_PASS_DEF_INSTRUMENTFEATURESPASS
#include "ptxbench/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace ptxbench::ptx

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::ptx;

namespace {

using isa::ControlWord;
using isa::KnockoutBit;

struct InstrumentFeaturesPass
    : public ptx::impl::InstrumentFeaturesPassBase<InstrumentFeaturesPass> {
  using InstrumentFeaturesPassBase::InstrumentFeaturesPassBase;
  void runOnOperation() override;
};

/// Builds instructions with `#ptx.r` placeholders for register operands.
class Emitter {
public:
  Emitter(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  Attribute r() { return RegOperandAttr::get(b.getContext(), ""); }
  Attribute imm(StringRef text) {
    return ImmOperandAttr::get(b.getContext(), text);
  }
  Attribute id(StringRef name) {
    return IdOperandAttr::get(b.getContext(), name);
  }
  Attribute addr(Attribute base, int64_t offset) {
    return AddrOperandAttr::get(b.getContext(), base, offset,
                                b.getArrayAttr({}));
  }
  Attribute sym(StringRef name) {
    return SymOperandAttr::get(b.getContext(),
                               FlatSymbolRefAttr::get(b.getContext(), name));
  }

  void inst(StringRef opcode, ArrayRef<Attribute> args, ValueRange refs,
            Value guard = {}, bool negated = false) {
    InstOp::create(b, loc, guard, negated, b.getStringAttr(opcode), refs,
                   b.getArrayAttr(args));
  }

private:
  OpBuilder &b;
  Location loc;
};

/// The registers one function's instrumentation uses, named with a prefix
/// no register or variable of the module starts with.
struct Registers {
  Value r[6];        // .b32
  Value base, count; // .b64: counter array address, the count to add
  Value pred;        // the leader lane
  // The work counters' (`work=true`) extra registers.
  Value w[2];  // .b32: a decoded tcgen05 descriptor
  Value addr;  // .b64: a generic load's address
  Value space; // .pred: the address is global
  // The copy log's registers (`work=true`).
  Value log[5];  // .b64: map address, key, word, slot, capacity/base
  Value logTemp; // .b32: an immediate to store
  Value logOk;   // .pred: the record fits
  // The knockout's (`knockout=true`) registers.
  Value mask[2];                         // .b64: the mask, one bit of it
  Value keep[isa::numKnockoutBits]; // .pred: that kind still runs
  Value guard;                           // .pred: an instruction's new guard
};

Registers declareRegisters(OpBuilder &b, Location loc, StringRef prefix,
                           bool work, bool knockout) {
  MLIRContext *ctx = b.getContext();
  Registers regs;
  auto declare = [&](unsigned n, StringRef type, StringRef suffix) {
    SmallVector<Type> types(n, RefType::get(ctx));
    return RegOp::create(b, loc, types, b.getStringAttr(type),
                         b.getStringAttr((prefix + suffix).str()),
                         n > 1 ? b.getI32IntegerAttr(n) : IntegerAttr());
  };
  auto r = declare(6, ".b32", "r");
  for (unsigned i = 0; i < 6; ++i)
    regs.r[i] = r.getResult(i);
  auto d = declare(2, ".b64", "d");
  regs.base = d.getResult(0);
  regs.count = d.getResult(1);
  regs.pred = declare(1, ".pred", "p").getResult(0);
  if (work) {
    auto w = declare(2, ".b32", "w");
    regs.w[0] = w.getResult(0);
    regs.w[1] = w.getResult(1);
    regs.addr = declare(1, ".b64", "a").getResult(0);
    regs.space = declare(1, ".pred", "g").getResult(0);
    auto l = declare(5, ".b64", "l");
    for (unsigned i = 0; i < 5; ++i)
      regs.log[i] = l.getResult(i);
    regs.logTemp = declare(1, ".b32", "e").getResult(0);
    regs.logOk = declare(1, ".pred", "o").getResult(0);
  }
  if (knockout) {
    auto x = declare(2, ".b64", "x");
    regs.mask[0] = x.getResult(0);
    regs.mask[1] = x.getResult(1);
    auto k = declare(isa::numKnockoutBits, ".pred", "k");
    for (unsigned i = 0; i < isa::numKnockoutBits; ++i)
      regs.keep[i] = k.getResult(i);
    regs.guard = declare(1, ".pred", "q").getResult(0);
  }
  return regs;
}

/// What one instrumentation point adds to its counter.
struct Point {
  Operation *op;
  unsigned counter;
  /// Per executing thread: a constant (`weight`), or a value read at run
  /// time from operand `runtimeOperand` (a transaction count, or a tcgen05
  /// instruction descriptor when `tcgen05K` is set).
  uint64_t weight = 1;
  std::optional<unsigned> runtimeOperand;
  uint64_t tcgen05K = 0;
  /// Count only the threads whose generic address operand is global.
  std::optional<unsigned> genericAddress;
  /// A load from global memory: also count its bytes per address range of
  /// the control block (the input tensors), its address being operand
  /// `rangeOperand`.
  std::optional<unsigned> rangeOperand;
};

/// Inserts the counting sequence of a constant weight before `inst`: the
/// active threads (narrowed by the guard, and to those whose address is
/// global for a generic load) counted by popc, times the weight, added by
/// the lowest active lane.
void instrumentCounted(InstructionOpInterface inst, const Point &point,
                       const Registers &regs) {
  Operation *op = inst.getOperation();
  OpBuilder b(op);
  Emitter e(b, op->getLoc());
  Value mask = regs.r[0], ballot = regs.r[1], n = regs.r[2], rev = regs.r[3],
        leader = regs.r[4], lane = regs.r[5];
  e.inst("activemask.b32", {e.r()}, {mask});
  Value counted = mask;
  if (point.genericAddress) {
    // space = guard && isspacep.global(address)
    auto addr = llvm::cast<AddrOperandAttr>(inst.getArgs()[*point.genericAddress]);
    Value base;
    for (const analysis::RegAccess &access : analysis::regAccesses(inst))
      if (access.operand == *point.genericAddress) {
        base = access.value;
        break;
      }
    e.inst("mov.pred", {e.r(), e.imm("0")}, {regs.space});
    e.inst("add.s64", {e.r(), e.r(), e.imm(std::to_string(addr.getOffset()))},
           {regs.addr, base});
    e.inst("isspacep.global", {e.r(), e.r()}, {regs.space, regs.addr},
           inst.getGuard(), inst.getNegated());
    e.inst("vote.sync.ballot.b32", {e.r(), e.r(), e.r()},
           {ballot, regs.space, mask});
    counted = ballot;
  } else if (Value guard = inst.getGuard()) {
    Attribute p = e.r();
    if (inst.getNegated())
      p = NotOperandAttr::get(b.getContext(), p);
    e.inst("vote.sync.ballot.b32", {e.r(), p, e.r()}, {ballot, guard, mask});
    counted = ballot;
  }
  e.inst("popc.b32", {e.r(), e.r()}, {n, counted});
  // The lowest active lane: bfind.shiftamt of the reversed mask.
  e.inst("brev.b32", {e.r(), e.r()}, {rev, mask});
  e.inst("bfind.shiftamt.u32", {e.r(), e.r()}, {leader, rev});
  e.inst("mov.u32", {e.r(), e.id("%laneid")}, {lane});
  e.inst("setp.eq.u32", {e.r(), e.r(), e.r()}, {regs.pred, lane, leader});
  if (point.weight == 1)
    e.inst("cvt.u64.u32", {e.r(), e.r()}, {regs.count, n});
  else
    e.inst("mul.wide.u32", {e.r(), e.r(), e.imm(std::to_string(point.weight))},
           {regs.count, n});
  e.inst("red.global.add.u64",
         {e.addr(e.r(), 8 * int64_t(point.counter)), e.r()},
         {regs.base, regs.count}, regs.pred);
}

/// After instrumentCounted's sequence (whose active mask and leader lane it
/// reuses), adds the bytes `inst` loads inside each of the control block's
/// address ranges to that range's counter: per range, the threads whose
/// address lies in it are counted with a ballot and the leader adds them.
void attributeLoad(InstructionOpInterface inst, const Point &point,
                   const Registers &regs, StringRef control,
                   unsigned firstRangeCounter) {
  auto addr = llvm::dyn_cast<AddrOperandAttr>(inst.getArgs()[*point.rangeOperand]);
  if (!addr || !llvm::isa<RegOperandAttr>(addr.getBase()))
    return; // a symbol's address is no task tensor's
  Value base;
  for (const analysis::RegAccess &access : analysis::regAccesses(inst))
    if (access.operand == *point.rangeOperand) {
      base = access.value;
      break;
    }
  if (!base || llvm::isa<BlockArgument>(base))
    return;
  Operation *op = inst.getOperation();
  OpBuilder b(op);
  Emitter e(b, op->getLoc());
  Value mask = regs.r[0], ballot = regs.r[1], n = regs.r[2];
  Value address = regs.log[0], lo = regs.log[1], hi = regs.log[2];
  Value in = regs.space;
  e.inst("add.s64", {e.r(), e.r(), e.imm(std::to_string(addr.getOffset()))},
         {address, base});
  for (unsigned t = 0; t < isa::maxRangeTensors; ++t) {
    int64_t word = 8 * (int64_t(ControlWord::Ranges) + 2 * t);
    e.inst("ld.global.u64", {e.r(), e.addr(e.sym(control), word)}, {lo});
    e.inst("ld.global.u64", {e.r(), e.addr(e.sym(control), word + 8)}, {hi});
    e.inst("mov.pred", {e.r(), e.imm("0")}, {in});
    e.inst("setp.ge.u64", {e.r(), e.r(), e.r()}, {in, address, lo},
           inst.getGuard(), inst.getNegated());
    e.inst("setp.lt.and.u64", {e.r(), e.r(), e.r(), e.r()},
           {in, address, hi, in});
    e.inst("vote.sync.ballot.b32", {e.r(), e.r(), e.r()}, {ballot, in, mask});
    e.inst("popc.b32", {e.r(), e.r()}, {n, ballot});
    e.inst("setp.ne.and.u32", {e.r(), e.r(), e.imm("0"), e.r()},
           {regs.logOk, n, regs.pred});
    e.inst("mul.wide.u32", {e.r(), e.r(), e.imm(std::to_string(point.weight))},
           {regs.count, n});
    e.inst("red.global.add.u64",
           {e.addr(e.r(), 8 * int64_t(firstRangeCounter + t)), e.r()},
           {regs.base, regs.count}, regs.logOk);
  }
}

/// Inserts the per-thread sequence of a run-time weight before `inst`:
/// every thread that executes it (under its guard) adds the value of its
/// operand (a transaction count), or the FLOPs its tcgen05 instruction
/// descriptor encodes. These instructions are issued by one or few threads.
void instrumentRuntime(InstructionOpInterface inst, const Point &point,
                       const Registers &regs) {
  Operation *op = inst.getOperation();
  OpBuilder b(op);
  Emitter e(b, op->getLoc());
  Attribute arg = inst.getArgs()[*point.runtimeOperand];
  Value value;
  for (const analysis::RegAccess &access : analysis::regAccesses(inst))
    if (access.operand == *point.runtimeOperand) {
      value = access.value;
      break;
    }
  bool imm = llvm::isa<ImmOperandAttr>(arg);
  if (!imm && !value)
    return;
  if (point.tcgen05K) {
    // M / 16 in bits 24-28, N / 8 in bits 17-22 of the descriptor.
    Value m = regs.w[0], nDim = regs.w[1];
    if (imm)
      e.inst("mov.u32", {e.r(), arg}, {m});
    else
      e.inst("mov.u32", {e.r(), e.r()}, {m, value});
    e.inst("bfe.u32", {e.r(), e.r(), e.imm("17"), e.imm("6")}, {nDim, m});
    e.inst("bfe.u32", {e.r(), e.r(), e.imm("24"), e.imm("5")}, {m, m});
    e.inst("mul.lo.u32", {e.r(), e.r(), e.r()}, {m, m, nDim});
    e.inst("mul.wide.u32",
           {e.r(), e.r(), e.imm(std::to_string(2 * 16 * 8 * point.tcgen05K))},
           {regs.count, m});
  } else if (imm) {
    e.inst("mov.u64", {e.r(), arg}, {regs.count});
  } else {
    e.inst("cvt.u64.u32", {e.r(), e.r()}, {regs.count, value});
  }
  e.inst("red.global.add.u64",
         {e.addr(e.r(), 8 * int64_t(point.counter)), e.r()},
         {regs.base, regs.count}, inst.getGuard(), inst.getNegated());
}

/// M, N and K of an `.mMnNkK` modifier.
std::optional<std::array<uint64_t, 3>> shapeOf(StringRef opcode) {
  SmallVector<StringRef, 8> parts;
  opcode.split(parts, '.');
  for (StringRef part : parts) {
    uint64_t m, n, k;
    StringRef rest = part;
    if (!rest.consume_front("m") || rest.consumeInteger(10, m) ||
        !rest.consume_front("n") || rest.consumeInteger(10, n) ||
        !rest.consume_front("k") || rest.consumeInteger(10, k) ||
        !rest.empty())
      continue;
    return std::array<uint64_t, 3>{m, n, k};
  }
  return std::nullopt;
}

/// Bytes one thread moves with a load: the vector width times the size of
/// the type modifier (.b8 ... .b128, .u/.s/.f).
uint64_t loadBytes(StringRef opcode) {
  SmallVector<StringRef, 8> parts;
  opcode.split(parts, '.');
  uint64_t vec = 1, bits = 0;
  for (StringRef part : parts) {
    if (part.size() >= 2 && part[0] == 'v' && !part.drop_front().getAsInteger(10, vec))
      continue;
    if (part.size() >= 2 && StringRef("busf").contains(part[0]) &&
        !part.drop_front().getAsInteger(10, bits))
      continue;
  }
  return vec * bits / 8;
}

/// Whether `op` is a generic ld/ldu (no state space) through a register.
bool isGenericLoad(InstructionOpInterface op) {
  StringRef opcode = op.getOpcode();
  StringRef head = opcode.split('.').first;
  if (head != "ld" && head != "ldu")
    return false;
  for (StringRef space : {".global", ".shared", ".local", ".param", ".const",
                          ".shared::cta", ".shared::cluster", ".param::entry",
                          ".param::func"})
    if (analysis::hasModifier(opcode, space))
      return false;
  ArrayAttr args = op.getArgs();
  if (args.size() < 2)
    return false;
  auto addr = llvm::dyn_cast<AddrOperandAttr>(args[1]);
  return addr && llvm::isa<RegOperandAttr>(addr.getBase());
}

/// The work counter `op` adds to, and how (docs of WorkCounters.h).
std::optional<Point> workPoint(InstructionOpInterface op, unsigned first) {
  using isa::WorkCounter;
  const isa::InstrInfo *info = analysis::instrInfo(op);
  StringRef name = info ? StringRef(info->mnemonic) : op.getOpcode();
  StringRef opcode = op.getOpcode();
  auto counter = [&](WorkCounter c) { return first + unsigned(c); };
  Point p{op.getOperation(), 0};
  if (name.starts_with("wgmma.mma_async")) {
    auto shape = shapeOf(opcode);
    if (!shape)
      return std::nullopt;
    p.counter = counter(WorkCounter::WgmmaFlops);
    p.weight = 2 * (*shape)[0] * (*shape)[1] * (*shape)[2] / 128;
    return p;
  }
  if ((name == "mma" || name.starts_with("mma.")) ||
      name.starts_with("wmma.mma")) {
    auto shape = shapeOf(opcode);
    if (!shape)
      return std::nullopt;
    p.counter = counter(name.starts_with("wmma") ? WorkCounter::WmmaFlops
                                                 : WorkCounter::MmaSyncFlops);
    p.weight = 2 * (*shape)[0] * (*shape)[1] * (*shape)[2] / 32;
    return p;
  }
  if (name.starts_with("tcgen05.mma") && !name.starts_with("tcgen05.mma.ws")) {
    p.counter = counter(WorkCounter::Tcgen05Flops);
    p.tcgen05K = opcode.contains("kind::tf32")                ? 8
                 : opcode.contains("kind::f16")               ? 16
                 : opcode.contains("kind::mxf4")              ? 64
                                                              : 32;
    p.runtimeOperand = analysis::hasModifier(opcode, ".sp") ? 4 : 3;
    if (*p.runtimeOperand >= op.getArgs().size())
      return std::nullopt;
    return p;
  }
  if (name.starts_with("mbarrier.") && name.ends_with("expect_tx")) {
    p.counter = counter(WorkCounter::TxBytes);
    p.runtimeOperand = op.getArgs().size() - 1;
    return p;
  }
  if (name == "mbarrier.complete_tx") {
    p.counter = counter(WorkCounter::CompleteTxBytes);
    p.runtimeOperand = op.getArgs().size() - 1;
    return p;
  }
  if (name == "cp.async") {
    std::optional<int64_t> size = analysis::immediateOperand(op, 2);
    if (!size || *size <= 0)
      return std::nullopt;
    p.counter = counter(WorkCounter::CpAsyncBytes);
    p.weight = uint64_t(*size);
    p.rangeOperand = 1;
    return p;
  }
  if (analysis::isLoadFrom(op, ".global") || isGenericLoad(op)) {
    uint64_t bytes = loadBytes(opcode);
    if (!bytes)
      return std::nullopt;
    p.counter = counter(WorkCounter::GlobalLoadBytes);
    p.weight = bytes;
    p.rangeOperand = 1;
    if (!analysis::isLoadFrom(op, ".global"))
      p.genericAddress = 1;
    return p;
  }
  return std::nullopt;
}

/// The CUDA-core FLOPs one thread does with `op`: fma/mad 2, add/sub/mul 1,
/// times the lanes of a packed type; 0 for anything else.
uint64_t scalarFlops(InstructionOpInterface op) {
  StringRef opcode = op.getOpcode();
  StringRef head = opcode.split('.').first;
  uint64_t perLane = head == "fma" || head == "mad"                    ? 2
                     : head == "add" || head == "sub" || head == "mul" ? 1
                                                                       : 0;
  if (!perLane)
    return 0;
  SmallVector<StringRef, 8> parts;
  opcode.split(parts, '.');
  for (StringRef part : llvm::reverse(parts)) {
    if (part == "f16" || part == "bf16" || part == "f32" || part == "f64")
      return perLane;
    if (part == "f16x2" || part == "bf16x2" || part == "f32x2")
      return 2 * perLane;
  }
  return 0; // an integer add, mul.wide, mad.lo, ...
}

/// The knockout kind of a matrix instruction.
std::optional<KnockoutBit> knockoutBitOf(InstructionOpInterface op) {
  StringRef opcode = op.getOpcode();
  if (opcode.starts_with("wgmma.mma_async"))
    return KnockoutBit::Wgmma;
  if (opcode == "mma" || opcode.starts_with("mma.") ||
      opcode.starts_with("mma_"))
    return KnockoutBit::MmaSync;
  if (opcode.starts_with("wmma.mma"))
    return KnockoutBit::Wmma;
  if (opcode.starts_with("tcgen05.mma"))
    return KnockoutBit::Tcgen05;
  return std::nullopt;
}

/// Makes `inst` run only while its kind's knockout bit is clear: its guard
/// becomes `keep` (and its old guard, negated where it was).
void knockOut(InstructionOpInterface inst, Value keep, const Registers &regs) {
  Value newGuard = keep;
  if (Value guard = inst.getGuard()) {
    OpBuilder b(inst.getOperation());
    Emitter e(b, inst->getLoc());
    if (inst.getNegated())
      e.inst("not.pred", {e.r(), e.r()}, {regs.guard, guard});
    e.inst("and.pred", {e.r(), e.r(), e.r()},
           {regs.guard, inst.getNegated() ? regs.guard : guard, keep});
    newGuard = regs.guard;
  }
  inst.getGuardMutable().assign(newGuard);
  inst.setNegated(false);
}

/// The copies the copy log records: TMA loads and bulk copies from global
/// memory (the second state space of `cp.async.bulk[.tensor].<dst>.<src>`).
enum class CopyKind { None, Tensor, Bulk };

CopyKind copyKindOf(InstructionOpInterface op) {
  StringRef opcode = op.getOpcode();
  if (!opcode.starts_with("cp.async.bulk.") ||
      opcode.starts_with("cp.async.bulk.prefetch") ||
      op.getArgs().size() < 2 || !llvm::isa<AddrOperandAttr>(op.getArgs()[1]))
    return CopyKind::None;
  SmallVector<StringRef, 8> parts;
  opcode.split(parts, '.');
  SmallVector<StringRef, 2> spaces;
  for (StringRef part : parts)
    if (part == "global" || part.starts_with("shared"))
      spaces.push_back(part);
  if (spaces.size() < 2 || spaces[1] != "global")
    return CopyKind::None;
  return opcode.starts_with("cp.async.bulk.tensor") ? CopyKind::Tensor
                                                    : CopyKind::Bulk;
}

/// Whether the TMA load `opcode` copies a tile box: `.tile`, or no load
/// mode at all (tile is the default, and Triton writes none); not im2col
/// nor the gather and scatter forms of tile (`.tile::gather4`).
bool isTileMode(StringRef opcode) {
  SmallVector<StringRef> parts;
  opcode.split(parts, '.');
  for (StringRef part : parts)
    if (part.starts_with("im2col") || part.starts_with("tile::"))
      return false;
  return true;
}

/// Appends a CopyRecord (WorkCounters.h) for `inst` to the copy log: the
/// hash of its tensor map's 128 bytes and its box coordinates, or its
/// source address and size; all under the instruction's own guard.
void logCopy(InstructionOpInterface inst, CopyKind kind, const Registers &regs,
             StringRef control) {
  Operation *op = inst.getOperation();
  auto addr = llvm::cast<AddrOperandAttr>(inst.getArgs()[1]);
  SmallVector<Value> values; // the address operand's registers, in order
  for (const analysis::RegAccess &access : analysis::regAccesses(inst))
    if (access.operand == 1)
      values.push_back(access.value);
  if (!llvm::isa<RegOperandAttr>(addr.getBase()) || values.empty())
    return; // an absolute or symbolic address: nothing of the task's
  OpBuilder b(op);
  Emitter e(b, op->getLoc());
  Value guard = inst.getGuard();
  bool negated = inst.getNegated();
  auto emit = [&](StringRef opcode, ArrayRef<Attribute> args,
                  ValueRange refs) {
    e.inst(opcode, args, refs, guard, negated);
  };
  auto word = [&](ControlWord w) {
    return e.addr(e.sym(control), 8 * int64_t(w));
  };
  Value map = regs.log[0], key = regs.log[1], w = regs.log[2],
        slot = regs.log[3], tmp = regs.log[4];
  Value base = values.front();
  // A kernel parameter is addressed by name: make it a generic address.
  if (llvm::isa<BlockArgument>(base)) {
    emit("mov.u64", {e.r(), e.r()}, {map, base});
    emit("cvta.param.u64", {e.r(), e.r()}, {map, map});
    if (addr.getOffset())
      emit("add.s64", {e.r(), e.r(), e.imm(std::to_string(addr.getOffset()))},
           {map, map});
  } else {
    emit("add.s64", {e.r(), e.r(), e.imm(std::to_string(addr.getOffset()))},
         {map, base});
  }
  if (kind == CopyKind::Tensor) {
    emit("mov.b64", {e.r(), e.imm("0")}, {key});
    for (int64_t i = 0; i < 16; ++i) {
      emit("ld.u64", {e.r(), e.addr(e.r(), 8 * i)}, {w, map});
      emit("xor.b64", {e.r(), e.r(), e.r()}, {key, key, w});
      emit("mul.lo.u64",
           {e.r(), e.r(), e.imm(std::to_string(isa::copyLogHashPrime))},
           {key, key});
    }
  } else {
    emit("mov.b64", {e.r(), e.r()}, {key, map});
  }
  // slot = atomicAdd(count, 1); the record fits below the capacity.
  emit("ld.global.u64", {e.r(), word(ControlWord::CopyLogCount)}, {w});
  emit("atom.global.add.u64", {e.r(), e.addr(e.r(), 0), e.imm("1")},
       {slot, w});
  emit("ld.global.u64", {e.r(), word(ControlWord::CopyLogCapacity)}, {tmp});
  Attribute ok = e.r();
  if (negated)
    ok = NotOperandAttr::get(b.getContext(), ok);
  if (guard)
    e.inst("setp.lt.and.u64", {e.r(), e.r(), e.r(), ok},
           {regs.logOk, slot, tmp, guard});
  else
    e.inst("setp.lt.u64", {e.r(), e.r(), e.r()}, {regs.logOk, slot, tmp});
  emit("ld.global.u64", {e.r(), word(ControlWord::CopyLog)}, {tmp});
  emit("mad.lo.u64", {e.r(), e.r(), e.imm("32"), e.r()}, {slot, slot, tmp});
  auto store32 = [&](int64_t offset, Attribute value, Value reg) {
    if (reg) {
      e.inst("st.global.u32", {e.addr(e.r(), offset), e.r()}, {slot, reg},
             regs.logOk);
      return;
    }
    e.inst("mov.b32", {e.r(), value}, {regs.logTemp}, regs.logOk);
    e.inst("st.global.u32", {e.addr(e.r(), offset), e.r()},
           {slot, regs.logTemp}, regs.logOk);
  };
  e.inst("st.global.u64", {e.addr(e.r(), 0), e.r()}, {slot, key}, regs.logOk);
  if (kind == CopyKind::Tensor) {
    // The coordinates: the address operand's vector, after its base.
    SmallVector<std::pair<Attribute, Value>, 5> coords;
    unsigned next = 1;
    for (Attribute element : addr.getRest()) {
      auto vec = llvm::dyn_cast<VecOperandAttr>(element);
      if (!vec)
        continue;
      for (Attribute c : vec.getElements()) {
        Value reg = llvm::isa<RegOperandAttr>(c) && next < values.size()
                        ? values[next++]
                        : Value();
        coords.push_back({c, reg});
      }
    }
    for (unsigned i = 0; i < 5; ++i)
      store32(8 + 4 * i, i < coords.size() ? coords[i].first : e.imm("0"),
              i < coords.size() ? coords[i].second : Value());
    uint32_t rank = coords.size();
    if (!isTileMode(inst.getOpcode()))
      rank |= isa::copyLogOtherMode;
    store32(28, e.imm(std::to_string(rank)), Value());
  } else {
    // The size: the copy's third operand, a register or an immediate.
    Attribute size = inst.getArgs().size() > 2 ? inst.getArgs()[2] : e.imm("0");
    Value sizeReg;
    for (const analysis::RegAccess &access : analysis::regAccesses(inst))
      if (access.operand == 2)
        sizeReg = access.value;
    if (!sizeReg && !llvm::isa<ImmOperandAttr>(size))
      size = e.imm("0");
    store32(8, size, sizeReg);
    for (unsigned i = 1; i < 5; ++i)
      store32(8 + 4 * i, e.imm("0"), Value());
    store32(28, e.imm("0"), Value());
  }
}

/// A register prefix (`%__pb`, `%__pb1`, ...) that no register or variable
/// of `module` starts with.
std::string freshPrefix(ptx::ModuleOp module) {
  llvm::StringSet<> names;
  module.walk([&](Operation *op) {
    if (auto reg = llvm::dyn_cast<RegOp>(op))
      names.insert(reg.getName());
    else if (auto var = llvm::dyn_cast<VarOp>(op))
      names.insert(var.getName());
  });
  for (unsigned n = 0;; ++n) {
    std::string prefix = "%__pb" + (n ? std::to_string(n) : std::string());
    if (llvm::none_of(names.keys(), [&](StringRef name) {
          return name.starts_with(prefix);
        }))
      return prefix;
  }
}

/// Whether any declaration or label of `module` is named `name`.
bool declares(ptx::ModuleOp module, StringRef name) {
  if (module.lookupSymbol(name))
    return true;
  bool found = false;
  module.walk([&](Operation *op) {
    if (auto var = llvm::dyn_cast<VarOp>(op))
      found |= var.getName() == name;
    else if (auto label = llvm::dyn_cast<LabelOp>(op))
      found |= label.getName() == name;
    else if (auto decl = llvm::dyn_cast<GlobalDeclOp>(op))
      found |= decl.getGlobal() == name;
  });
  return found;
}

} // namespace

void InstrumentFeaturesPass::runOnOperation() {
  ptx::ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  std::string unknown;
  std::optional<SmallVector<isa::Family>> list =
      analysis::parseFamilies(families, unknown);
  if (!list) {
    emitError(module.getLoc(), "unknown feature family '") << unknown << "'";
    return signalPassFailure();
  }
  if (list->empty()) {
    emitError(module.getLoc(),
              "--ptx-instrument-features needs families=... (at least one)");
    return signalPassFailure();
  }
  // activemask needs PTX ISA 6.2; the counter address is 64-bit.
  {
    unsigned major = 0, minor = 0;
    auto [majorText, minorText] = module.getVersion().split('.');
    if (majorText.getAsInteger(10, major) ||
        minorText.getAsInteger(10, minor) || major * 10 + minor < 62) {
      emitError(module.getLoc(), "feature counting needs PTX ISA 6.2 or "
                                 "newer (activemask); the module is .version ")
          << module.getVersion();
      return signalPassFailure();
    }
    if (module.getAddressSize() && *module.getAddressSize() != 64) {
      emitError(module.getLoc(), "feature counting needs .address_size 64");
      return signalPassFailure();
    }
  }
  // The control block's name is the caller's; it must be new to the module.
  if (control.empty() || declares(module, control)) {
    emitError(module.getLoc(), "the control block's name '")
        << control << "' is " << (control.empty() ? "empty" : "taken")
        << ": choose one the module does not declare";
    return signalPassFailure();
  }
  DenseMap<unsigned, unsigned> counterOf; // family -> counter index
  for (auto [i, family] : llvm::enumerate(*list))
    counterOf.try_emplace(unsigned(family), i);
  unsigned firstWork = list->size();

  // The instructions to count, per function, and with `knockout` those to
  // switch off.
  struct Todo {
    FuncOp func;
    SmallVector<Point> points;
    SmallVector<std::pair<Operation *, KnockoutBit>> knockouts;
    SmallVector<std::pair<Operation *, CopyKind>> copies;
  };
  SmallVector<Todo> todo;
  for (FuncOp func : module.getOps<FuncOp>()) {
    if (func.isExternal())
      continue;
    Todo t{func, {}, {}, {}};
    func.walk([&](Block *block) {
      // A run of CUDA-core arithmetic with no control transfer between its
      // instructions is counted once, before its first unguarded one.
      Operation *runStart = nullptr;
      uint64_t runFlops = 0;
      auto endRun = [&] {
        if (runStart && runFlops)
          t.points.push_back(
              {runStart, firstWork + unsigned(isa::WorkCounter::ScalarFlops),
               runFlops});
        runStart = nullptr;
        runFlops = 0;
      };
      for (Operation &op : *block) {
        auto inst = llvm::dyn_cast<InstructionOpInterface>(&op);
        if (!inst) {
          if (op.hasTrait<OpTrait::IsTerminator>())
            endRun();
          continue;
        }
        if (std::optional<isa::Family> family = analysis::familyOf(inst)) {
          auto it = counterOf.find(unsigned(*family));
          if (it != counterOf.end())
            t.points.push_back({&op, it->second});
        }
        if (work) {
          if (uint64_t flops = scalarFlops(inst)) {
            if (inst.getGuard()) {
              t.points.push_back(
                  {&op,
                   firstWork + unsigned(isa::WorkCounter::ScalarFlops),
                   flops});
            } else {
              if (!runStart)
                runStart = &op;
              runFlops += flops;
            }
          } else if (std::optional<Point> p = workPoint(inst, firstWork)) {
            t.points.push_back(*p);
          }
          if (CopyKind copy = copyKindOf(inst); copy != CopyKind::None)
            t.copies.push_back({&op, copy});
        }
        if (knockout)
          if (std::optional<KnockoutBit> bit = knockoutBitOf(inst))
            t.knockouts.push_back({&op, *bit});
        if (llvm::isa<CallOp>(op) || op.hasTrait<OpTrait::IsTerminator>() ||
            inst.getOpcode().starts_with("exit") ||
            inst.getOpcode().starts_with("trap"))
          endRun();
      }
      endRun();
    });
    if (!t.points.empty() || !t.knockouts.empty() || !t.copies.empty())
      todo.push_back(std::move(t));
  }

  // The control block, before the first function.
  {
    Operation *first = nullptr;
    for (Operation &op : module.getBody()->getOperations())
      if (llvm::isa<FuncOp, PrototypeOp>(op)) {
        first = &op;
        break;
      }
    OpBuilder b(ctx);
    if (first)
      b.setInsertionPoint(first);
    else
      b.setInsertionPointToEnd(module.getBody());
    GlobalOp::create(b, module.getLoc(), b.getStringAttr(control),
                     b.getStringAttr(""), b.getStringAttr(".global"),
                     b.getStringAttr(".align 8 .u64"),
                     b.getDenseI64ArrayAttr({int64_t(isa::numControlWords)}),
                     StringAttr(), ArrayAttr());
  }

  std::string prefix = freshPrefix(module);
  auto word = [&](Emitter &e, ControlWord w) {
    return e.addr(e.sym(control), 8 * int64_t(w));
  };
  for (Todo &t : todo) {
    Block &entry = t.func.getBody().front();
    Location loc = t.func.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Registers regs = declareRegisters(b, loc, prefix, work, knockout);
    Emitter e(b, loc);
    e.inst("ld.global.u64", {e.r(), word(e, ControlWord::Counters)},
           {regs.base});
    if (knockout && !t.knockouts.empty()) {
      e.inst("ld.global.u64", {e.r(), word(e, ControlWord::KnockoutMask)},
             {regs.mask[0]});
      for (unsigned bit = 0; bit < isa::numKnockoutBits; ++bit) {
        // keep = (mask & bit) == 0
        e.inst("and.b64",
               {e.r(), e.r(),
                e.imm(std::to_string(
                    isa::knockoutMask(KnockoutBit(bit))))},
               {regs.mask[1], regs.mask[0]});
        e.inst("setp.eq.u64", {e.r(), e.r(), e.imm("0")},
               {regs.keep[bit], regs.mask[1]});
      }
    }
    for (const Point &point : t.points) {
      auto inst = cast<InstructionOpInterface>(point.op);
      if (point.runtimeOperand) {
        instrumentRuntime(inst, point, regs);
      } else {
        instrumentCounted(inst, point, regs);
        if (point.rangeOperand)
          attributeLoad(inst, point, regs, control,
                        firstWork + isa::numWorkCounters);
      }
    }
    for (auto [op, copy] : t.copies)
      logCopy(cast<InstructionOpInterface>(op), copy, regs, control);
    for (auto [op, bit] : t.knockouts)
      knockOut(cast<InstructionOpInterface>(op), regs.keep[unsigned(bit)],
               regs);
  }
}
