//===- Reachability.cpp - What can run, from each kernel entry ------------===//
//
// A forward walk over each function's blocks that skips the successors a
// constant guard rules out, a small constant evaluator for `.pred` registers,
// and the call graph closure of each kernel.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Analysis/Reachability.h"
#include "ptxbench/Analysis/InstructionAccess.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "ptx-reachability"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;

namespace {

/// The instructions that write `reg`, or std::nullopt when one of them is
/// guarded (a conditional write is never a constant).
std::optional<SmallVector<ptx::InstructionOpInterface>> writers(Value reg) {
  SmallVector<ptx::InstructionOpInterface> out;
  for (Operation *user : reg.getUsers()) {
    auto inst = llvm::dyn_cast<ptx::InstructionOpInterface>(user);
    if (!inst || !writes(inst, reg) || llvm::is_contained(out, inst))
      continue;
    if (inst.getGuard())
      return std::nullopt;
    out.push_back(inst);
  }
  return out;
}

/// The integer every write of `reg` stores: each is a `mov` of the same
/// immediate.
std::optional<int64_t> constantInteger(Value reg) {
  std::optional<SmallVector<ptx::InstructionOpInterface>> defs = writers(reg);
  if (!defs || defs->empty())
    return std::nullopt;
  std::optional<int64_t> value;
  for (ptx::InstructionOpInterface def : *defs) {
    if (def.getOpcode().split('.').first != "mov")
      return std::nullopt;
    std::optional<int64_t> imm = immediateOperand(def, 1);
    if (!imm || (value && *value != *imm))
      return std::nullopt;
    value = imm;
  }
  return value;
}

/// Operand `index` of `op` as an integer: an immediate, or a register only
/// ever set to one immediate.
std::optional<int64_t> integerOperand(ptx::InstructionOpInterface op,
                                      unsigned index) {
  if (std::optional<int64_t> imm = immediateOperand(op, index))
    return imm;
  if (!llvm::isa<ptx::RegOperandAttr>(op.getArgs()[index]))
    return std::nullopt;
  for (const RegAccess &access : regAccesses(op))
    if (access.operand == index)
      return constantInteger(access.value);
  return std::nullopt;
}

/// Evaluates `setp.cmp.type a, b` on integer constants.
std::optional<bool> evaluateSetp(ptx::InstructionOpInterface op) {
  if (op.getArgs().size() != 3)
    return std::nullopt;
  std::optional<int64_t> lhs = integerOperand(op, 1);
  std::optional<int64_t> rhs = integerOperand(op, 2);
  if (!lhs || !rhs)
    return std::nullopt;
  StringRef cmp, type;
  for (StringRef part : llvm::drop_begin(llvm::split(op.getOpcode(), '.'))) {
    if (part.size() > 1 && llvm::is_contained({'s', 'u', 'b'}, part[0]) &&
        llvm::all_of(part.drop_front(),
                     [](char c) { return llvm::isDigit(c); }))
      type = part;
    else if (cmp.empty())
      cmp = part;
  }
  unsigned width = 0;
  if (type.empty() || type.drop_front().getAsInteger(10, width) || !width ||
      width > 64)
    return std::nullopt;
  bool isSigned = type[0] == 's';
  uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
  uint64_t ua = uint64_t(*lhs) & mask, ub = uint64_t(*rhs) & mask;
  auto sext = [&](uint64_t v) {
    return width == 64 ? int64_t(v)
                       : int64_t(v << (64 - width)) >> (64 - width);
  };
  int64_t sa = sext(ua), sb = sext(ub);
  auto lt = [&] { return isSigned ? sa < sb : ua < ub; };
  auto eq = ua == ub;
  if (cmp == "eq")
    return eq;
  if (cmp == "ne")
    return !eq;
  if (cmp == "lt")
    return lt();
  if (cmp == "le")
    return lt() || eq;
  if (cmp == "gt")
    return !lt() && !eq;
  if (cmp == "ge")
    return !lt();
  if (cmp == "lo")
    return ua < ub;
  if (cmp == "ls")
    return ua <= ub;
  if (cmp == "hi")
    return ua > ub;
  if (cmp == "hs")
    return ua >= ub;
  return std::nullopt;
}

/// The constant `op` writes into `pred`, if it is one.
std::optional<bool> writtenConstant(ptx::InstructionOpInterface op,
                                    Value pred) {
  StringRef head = op.getOpcode().split('.').first;
  if (head == "mov") {
    std::optional<int64_t> imm = immediateOperand(op, 1);
    if (!imm)
      return std::nullopt;
    return *imm != 0;
  }
  if (head != "setp")
    return std::nullopt;
  std::optional<bool> result = evaluateSetp(op);
  if (!result)
    return std::nullopt;
  // `setp p|q, ...` writes the comparison into p and its negation into q.
  unsigned position = 0;
  for (const RegAccess &access : regAccesses(op)) {
    if (access.operand != 0)
      continue;
    if (access.value == pred)
      return position == 0 ? *result : !*result;
    ++position;
  }
  return std::nullopt;
}

} // namespace

std::optional<bool> analysis::constantPredicate(Value pred) {
  std::optional<SmallVector<ptx::InstructionOpInterface>> defs = writers(pred);
  if (!defs || defs->empty())
    return std::nullopt;
  std::optional<bool> value;
  for (ptx::InstructionOpInterface def : *defs) {
    std::optional<bool> written = writtenConstant(def, pred);
    if (!written || (value && *value != *written))
      return std::nullopt;
    value = written;
  }
  return value;
}

//===----------------------------------------------------------------------===//
// Reachability
//===----------------------------------------------------------------------===//

namespace {

/// The successors of `block` that its terminator can take; `guard` gives
/// the value of a terminator's guard.
SmallVector<Block *, 2> liveSuccessors(
    Block *block,
    llvm::function_ref<std::optional<bool>(ptx::InstructionOpInterface)>
        guard) {
  Operation *term = block->getTerminator();
  SmallVector<Block *, 2> all(term->getSuccessors());
  auto inst = llvm::dyn_cast<ptx::InstructionOpInterface>(term);
  if (!inst || !inst.getGuard() || all.empty())
    return all;
  std::optional<bool> taken = guard(inst);
  if (!taken)
    return all;
  // Guarded terminators list their targets, then the fallthrough block.
  if (llvm::isa<ptx::RetOp>(term))
    return *taken ? SmallVector<Block *, 2>{} : all;
  if (*taken)
    return SmallVector<Block *, 2>(ArrayRef(all).drop_back());
  return {all.back()};
}

/// The function `sym` names, looking through aliases.
ptx::FuncOp resolveFunction(ptx::ModuleOp module, FlatSymbolRefAttr sym) {
  Operation *target = SymbolTable::lookupSymbolIn(module, sym);
  for (unsigned depth = 0;
       auto alias = llvm::dyn_cast_or_null<ptx::AliasOp>(target); ++depth) {
    if (depth > 8)
      return {};
    target = SymbolTable::lookupSymbolIn(module, alias.getAliaseeAttr());
  }
  return llvm::dyn_cast_or_null<ptx::FuncOp>(target);
}

/// The callee argument of a call: the first operand that is not a
/// parenthesized list.
Attribute calleeOperand(ptx::CallOp call) {
  for (Attribute arg : call.getArgs())
    if (!llvm::isa<ptx::ListOperandAttr>(arg))
      return arg;
  return {};
}

} // namespace

Reachability::Reachability(ptx::ModuleOp module) : module(module) {
  // Functions whose address is taken: symbols named outside a call's callee
  // position, in initializers and in call target tables.
  auto addAddress = [&](FlatSymbolRefAttr sym) {
    if (ptx::FuncOp func = resolveFunction(module, sym))
      addressTakenList.insert(func);
  };
  module.walk([&](Operation *op) {
    if (auto global = llvm::dyn_cast<ptx::GlobalOp>(op)) {
      if (ArrayAttr refs = global.getRefsAttr())
        for (auto sym : refs.getAsRange<FlatSymbolRefAttr>())
          addAddress(sym);
    } else if (auto targets = llvm::dyn_cast<ptx::CallTargetsOp>(op)) {
      for (auto sym : targets.getCallees().getAsRange<FlatSymbolRefAttr>())
        addAddress(sym);
    } else if (auto inst = llvm::dyn_cast<ptx::InstructionOpInterface>(op)) {
      Attribute callee;
      if (auto call = llvm::dyn_cast<ptx::CallOp>(op))
        callee = calleeOperand(call);
      for (Attribute arg : inst.getArgs())
        if (arg != callee)
          arg.walk([&](ptx::SymOperandAttr sym) { addAddress(sym.getName()); });
    }
  });

  for (auto func : module.getOps<ptx::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (func.getEntry())
      kernelList.push_back(func);
    computeBlocks(func);
    computeCallees(func);
  }
  for (ptx::FuncOp kernel : kernelList) {
    SetVector<ptx::FuncOp> live = closure(kernel, /*executable=*/true);
    SetVector<ptx::FuncOp> named = closure(kernel, /*executable=*/false);
    for (ptx::FuncOp func : live)
      reachableFuncs.insert(func);
    for (ptx::FuncOp func : named)
      calledFuncs.insert(func);
    reachableClosure[kernel] = SmallVector<ptx::FuncOp>(live.getArrayRef());
    calledClosure[kernel] = SmallVector<ptx::FuncOp>(named.getArrayRef());
  }
}

void Reachability::computeBlocks(ptx::FuncOp func) {
  SmallVector<Block *> worklist{&func.getBody().front()};
  reachableBlocks.insert(worklist.front());
  while (!worklist.empty()) {
    Block *block = worklist.pop_back_val();
    for (auto inst : block->getOps<ptx::InstructionOpInterface>())
      if (inst.getGuard() && cachedGuard(inst) == std::optional<bool>(false))
        falseGuarded.insert(inst);
    auto guard = [&](ptx::InstructionOpInterface op) {
      return cachedGuard(op);
    };
    for (Block *succ : liveSuccessors(block, guard))
      if (reachableBlocks.insert(succ).second)
        worklist.push_back(succ);
  }
  LLVM_DEBUG({
    unsigned dead = 0;
    for (Block &block : func.getBody())
      dead += !reachableBlocks.contains(&block);
    llvm::dbgs() << "reachability: " << func.getSymName() << ": " << dead
                 << " unreachable blocks\n";
  });
}

void Reachability::computeCallees(ptx::FuncOp func) {
  auto &list = callees[func.getOperation()];
  func.walk([&](ptx::CallOp call) {
    ptx::FuncOp callee;
    if (auto sym =
            llvm::dyn_cast_or_null<ptx::SymOperandAttr>(calleeOperand(call)))
      callee = resolveFunction(module, sym.getName());
    list.push_back({callee, isExecutable(call)});
  });
}

SetVector<ptx::FuncOp> Reachability::closure(ptx::FuncOp kernel,
                                             bool executable) {
  SetVector<ptx::FuncOp> out;
  out.insert(kernel);
  for (unsigned i = 0; i < out.size(); ++i) {
    ptx::FuncOp caller = out[i];
    for (auto [callee, live] : callees.lookup(caller.getOperation())) {
      if (executable && !live)
        continue;
      if (callee) {
        if (!callee.isExternal())
          out.insert(callee);
        continue;
      }
      for (ptx::FuncOp target : addressTakenList)
        if (!target.isExternal())
          out.insert(target);
    }
  }
  return out;
}

std::optional<bool> Reachability::cachedGuard(ptx::InstructionOpInterface op) {
  Value guard = op.getGuard();
  if (!guard)
    return true;
  auto [it, inserted] = predicateCache.try_emplace(guard, std::nullopt);
  if (inserted)
    it->second = constantPredicate(guard);
  if (!it->second)
    return std::nullopt;
  return *it->second != op.getNegated();
}

bool Reachability::isExecutable(Operation *op) const {
  return reachableBlocks.contains(op->getBlock()) && !falseGuarded.contains(op);
}

ArrayRef<ptx::FuncOp>
Reachability::reachableFunctions(ptx::FuncOp kernel) const {
  auto it = reachableClosure.find(kernel.getOperation());
  return it == reachableClosure.end() ? ArrayRef<ptx::FuncOp>()
                                      : ArrayRef(it->second);
}

ArrayRef<ptx::FuncOp> Reachability::calledFunctions(ptx::FuncOp kernel) const {
  auto it = calledClosure.find(kernel.getOperation());
  return it == calledClosure.end() ? ArrayRef<ptx::FuncOp>()
                                   : ArrayRef(it->second);
}

bool Reachability::isReachableFrom(ptx::FuncOp kernel, Operation *op) const {
  auto func = op->getParentOfType<ptx::FuncOp>();
  return func && llvm::is_contained(reachableFunctions(kernel), func) &&
         isExecutable(op);
}
