//===- InstrumentFeatures.cpp - Count executed feature instructions -------===//
//
// Rewrites kernels so each executed instruction of the requested feature
// families adds to a per-family 64-bit counter in a buffer passed as an
// extra kernel parameter (appended last). Counts are exact per-thread counts
// (thread-instructions), added with one red.global per warp and
// instrumentation point: the active mask, narrowed by the instruction's
// guard, is counted with popc and the lowest active lane adds it. The
// sequence is in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/Transforms/Passes.h"

#include "ptxbench/Analysis/FeatureAnalysis.h"
#include "ptxbench/Analysis/InstructionAccess.h"

#include "mlir/IR/Builders.h"

namespace ptxbench::ptx {
#define GEN_PASS_DEF_INSTRUMENTFEATURESPASS
#include "ptxbench/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace ptxbench::ptx

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::ptx;

namespace {

constexpr llvm::StringLiteral counterParamName = "__ptxbench_counters_param";
constexpr llvm::StringLiteral counterGlobalName = "__ptxbench_counters";

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

/// The registers one function's instrumentation uses.
struct Registers {
  Value r[6];        // .b32
  Value base, count; // .b64: counter array address, the count to add
  Value pred;
};

Registers declareRegisters(OpBuilder &b, Location loc) {
  MLIRContext *ctx = b.getContext();
  Registers regs;
  SmallVector<Type> b32(6, RefType::get(ctx)), b64(2, RefType::get(ctx));
  auto r = RegOp::create(b, loc, b32, b.getStringAttr(".b32"),
                         b.getStringAttr("%__pbr"), b.getI32IntegerAttr(6));
  for (unsigned i = 0; i < 6; ++i)
    regs.r[i] = r.getResult(i);
  auto d = RegOp::create(b, loc, b64, b.getStringAttr(".b64"),
                         b.getStringAttr("%__pbd"), b.getI32IntegerAttr(2));
  regs.base = d.getResult(0);
  regs.count = d.getResult(1);
  auto p = RegOp::create(b, loc, TypeRange{RefType::get(ctx)},
                         b.getStringAttr(".pred"), b.getStringAttr("%__pbp"),
                         IntegerAttr());
  regs.pred = p.getResult(0);
  return regs;
}

/// Inserts the counting sequence before `inst`.
void instrument(InstructionOpInterface inst, unsigned index,
                const Registers &regs) {
  Operation *op = inst.getOperation();
  OpBuilder b(op);
  Emitter e(b, op->getLoc());
  Value mask = regs.r[0], ballot = regs.r[1], n = regs.r[2], rev = regs.r[3],
        leader = regs.r[4], lane = regs.r[5];
  e.inst("activemask.b32", {e.r()}, {mask});
  Value counted = mask;
  if (Value guard = inst.getGuard()) {
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
  e.inst("cvt.u64.u32", {e.r(), e.r()}, {regs.count, n});
  e.inst("red.global.add.u64", {e.addr(e.r(), 8 * int64_t(index)), e.r()},
         {regs.base, regs.count}, regs.pred);
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
  DenseMap<unsigned, unsigned> counterOf; // family -> counter index
  for (auto [i, family] : llvm::enumerate(*list))
    counterOf.try_emplace(unsigned(family), i);

  // The instructions to count, per function.
  SmallVector<std::pair<FuncOp, SmallVector<std::pair<Operation *, unsigned>>>>
      work;
  bool functionsCount = false;
  for (FuncOp func : module.getOps<FuncOp>()) {
    if (func.isExternal())
      continue;
    SmallVector<std::pair<Operation *, unsigned>> points;
    func.walk([&](InstructionOpInterface inst) {
      if (std::optional<isa::Family> family = analysis::familyOf(inst)) {
        auto it = counterOf.find(unsigned(*family));
        if (it != counterOf.end())
          points.push_back({inst.getOperation(), it->second});
      }
    });
    if (!func.getEntry() && points.empty())
      continue;
    functionsCount |= !func.getEntry();
    work.push_back({func, std::move(points)});
  }

  // Functions find the counters through a module variable the kernels set.
  if (functionsCount) {
    if (module.lookupSymbol(counterGlobalName)) {
      emitError(module.getLoc(), "the module already defines '")
          << counterGlobalName << "'";
      return signalPassFailure();
    }
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
    GlobalOp::create(b, module.getLoc(), b.getStringAttr(counterGlobalName),
                     b.getStringAttr(""), b.getStringAttr(".global"),
                     b.getStringAttr(".align 8 .u64"), DenseI64ArrayAttr(),
                     StringAttr(), ArrayAttr());
  }

  for (auto &[func, points] : work) {
    Block &entry = func.getBody().front();
    Location loc = func.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Registers regs = declareRegisters(b, loc);
    Emitter e(b, loc);
    if (func.getEntry()) {
      SmallVector<Attribute> params(func.getParams().begin(),
                                    func.getParams().end());
      params.push_back(ParamAttr::get(ctx, ".param", ".u64", counterParamName,
                                      b.getDenseI64ArrayAttr({})));
      func.setParamsAttr(b.getArrayAttr(params));
      Value param = entry.addArgument(RefType::get(ctx), loc);
      e.inst("ld.param.u64", {e.r(), e.addr(e.r(), 0)}, {regs.base, param});
      e.inst("cvta.to.global.u64", {e.r(), e.r()}, {regs.base, regs.base});
      if (functionsCount)
        e.inst("st.global.u64", {e.addr(e.sym(counterGlobalName), 0), e.r()},
               {regs.base});
      // Keep prototypes of the kernel in step with its signature.
      for (PrototypeOp proto : module.getOps<PrototypeOp>())
        if (proto.getCallee() == func.getSymName())
          proto.setParamsAttr(b.getArrayAttr(params));
    } else {
      e.inst("ld.global.u64", {e.r(), e.addr(e.sym(counterGlobalName), 0)},
             {regs.base});
    }
    for (auto [op, index] : points)
      instrument(cast<InstructionOpInterface>(op), index, regs);
  }
}
