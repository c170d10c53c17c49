//===- InstructionAccess.cpp - What one PTX instruction touches -----------===//
//
// Register reads and writes from the ISA table's operand roles, state spaces
// from the opcode's modifiers, integer immediates and source locations.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Analysis/InstructionAccess.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::analysis;

namespace {

/// Collects the registers under one operand: `inAddress` marks an address
/// (always read), `role` is the operand's role.
void collect(Attribute arg, unsigned operand, bool read, bool written,
             OperandRange::iterator &next, SmallVectorImpl<RegAccess> &out) {
  if (llvm::isa<ptx::RegOperandAttr>(arg)) {
    out.push_back({*next++, operand, read, written});
    return;
  }
  if (auto sum = llvm::dyn_cast<ptx::OffsetOperandAttr>(arg)) {
    collect(sum.getBase(), operand, true, false, next, out);
    return;
  }
  if (auto element = llvm::dyn_cast<ptx::ElementOperandAttr>(arg)) {
    collect(element.getBase(), operand, true, false, next, out);
    collect(element.getIndex(), operand, true, false, next, out);
    return;
  }
  if (auto addr = llvm::dyn_cast<ptx::AddrOperandAttr>(arg)) {
    collect(addr.getBase(), operand, true, false, next, out);
    for (Attribute element : addr.getRest())
      collect(element, operand, true, false, next, out);
    return;
  }
  if (auto vec = llvm::dyn_cast<ptx::VecOperandAttr>(arg)) {
    for (Attribute element : vec.getElements())
      collect(element, operand, read, written, next, out);
    return;
  }
  if (auto list = llvm::dyn_cast<ptx::ListOperandAttr>(arg)) {
    for (Attribute element : list.getElements())
      collect(element, operand, read, written, next, out);
    return;
  }
  if (auto pair = llvm::dyn_cast<ptx::PairOperandAttr>(arg)) {
    collect(pair.getFirst(), operand, read, written, next, out);
    collect(pair.getSecond(), operand, read, written, next, out);
    return;
  }
  if (auto negated = llvm::dyn_cast<ptx::NotOperandAttr>(arg))
    collect(negated.getOperand(), operand, true, false, next, out);
}

} // namespace

SmallVector<RegAccess, 8>
analysis::regAccesses(ptx::InstructionOpInterface op) {
  SmallVector<RegAccess, 8> out;
  const isa::InstrInfo *info = instrInfo(op);
  bool conservative = !info || llvm::isa<ptx::CallOp>(op.getOperation());
  OperandRange refs = op.getRefs();
  OperandRange::iterator next = refs.begin();
  for (auto [index, arg] : llvm::enumerate(op.getArgs())) {
    bool read = true, written = conservative;
    if (!conservative)
      if (std::optional<isa::OperandRole> role = info->operandRole(index)) {
        read = role->read;
        written = role->written;
      }
    collect(arg, index, read, written, next, out);
    if (next == refs.end())
      break;
  }
  return out;
}

bool analysis::writes(ptx::InstructionOpInterface op, Value value) {
  return llvm::any_of(regAccesses(op), [&](const RegAccess &access) {
    return access.written && access.value == value;
  });
}

const isa::InstrInfo *analysis::instrInfo(ptx::InstructionOpInterface op) {
  return isa::lookup(op.getOpcode());
}

std::optional<isa::Family> analysis::familyOf(ptx::InstructionOpInterface op) {
  if (const isa::InstrInfo *info = instrInfo(op))
    return info->family;
  return std::nullopt;
}

bool analysis::hasModifier(StringRef opcode, StringRef modifier) {
  assert(modifier.starts_with(".") && "modifiers start with a dot");
  SmallVector<StringRef, 8> parts;
  opcode.split(parts, '.');
  return llvm::is_contained(parts, modifier.drop_front());
}

namespace {
bool accessesSpace(ptx::InstructionOpInterface op, StringRef space,
                   ArrayRef<StringRef> mnemonics) {
  StringRef opcode = op.getOpcode();
  StringRef head = opcode.split('.').first;
  if (!llvm::is_contained(mnemonics, head))
    return false;
  if (hasModifier(opcode, space))
    return true;
  if (space == ".shared")
    return hasModifier(opcode, ".shared::cta") ||
           hasModifier(opcode, ".shared::cluster");
  return false;
}
} // namespace

bool analysis::isLoadFrom(ptx::InstructionOpInterface op, StringRef space) {
  return accessesSpace(op, space, {"ld", "ldu"});
}

bool analysis::isStoreTo(ptx::InstructionOpInterface op, StringRef space) {
  return accessesSpace(op, space, {"st"});
}

std::optional<int64_t>
analysis::immediateOperand(ptx::InstructionOpInterface op, unsigned index) {
  ArrayAttr args = op.getArgs();
  if (index >= args.size())
    return std::nullopt;
  auto imm = llvm::dyn_cast<ptx::ImmOperandAttr>(args[index]);
  if (!imm)
    return std::nullopt;
  return imm.getIntegerValue();
}

namespace {
/// The source line of code inlined at `call`: the inlined line itself
/// when it is in the caller's file (a helper of the submission's own), else
/// the call site (Triton's library or a toolkit header, inlined into the
/// submission's line).
std::optional<FileLineColLoc> sourceOfCall(CallSiteLoc call) {
  auto callee = llvm::dyn_cast<FileLineColLoc>(call.getCallee());
  auto caller = llvm::dyn_cast<FileLineColLoc>(call.getCaller());
  if (callee && caller && callee.getFilename() == caller.getFilename())
    return callee;
  if (caller)
    return caller;
  if (callee)
    return callee;
  return std::nullopt;
}

SmallVector<FileLineColLoc, 2> fileLocations(Location loc) {
  SmallVector<FileLineColLoc, 2> out;
  if (auto file = llvm::dyn_cast<FileLineColLoc>(loc)) {
    out.push_back(file);
    return out;
  }
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations()) {
      if (auto file = llvm::dyn_cast<FileLineColLoc>(inner))
        out.push_back(file);
      else if (auto call = llvm::dyn_cast<CallSiteLoc>(inner))
        if (std::optional<FileLineColLoc> source = sourceOfCall(call))
          out.push_back(*source);
    }
  return out;
}
} // namespace

std::optional<FileLineColLoc> analysis::ptxLocation(Location loc) {
  SmallVector<FileLineColLoc, 2> locs = fileLocations(loc);
  if (locs.empty())
    return std::nullopt;
  return locs.front();
}

std::optional<FileLineColLoc> analysis::cudaLocation(Location loc) {
  SmallVector<FileLineColLoc, 2> locs = fileLocations(loc);
  if (locs.size() < 2)
    return std::nullopt;
  return locs[1];
}
