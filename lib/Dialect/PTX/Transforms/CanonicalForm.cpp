//===- CanonicalForm.cpp - Naming- and debug-free form of a module --------===//
//
// Registers: every register a function uses is redeclared in one range per
// declaration (`.b32` -> %r, `.b64` -> %rd, `.f32` -> %f, `.pred` -> %p,
// ...), numbered from 1 in order of first use, at the top of the body;
// unused registers disappear. Labels become $L0, $L1, ... in block order.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/Transforms/CanonicalForm.h"
#include "ptxbench/Conversion/ExportPTX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SHA256.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::ptx;

namespace {

/// The register prefix nvcc uses for a declaration.
StringRef basePrefix(StringRef decl) {
  decl = decl.trim();
  if (decl.starts_with(".v"))
    return "%v";
  return llvm::StringSwitch<StringRef>(decl)
      .Case(".pred", "%p")
      .Cases({".b8", ".u8", ".s8"}, "%rc")
      .Cases({".b16", ".u16", ".s16"}, "%rs")
      .Cases({".b32", ".u32", ".s32"}, "%r")
      .Cases({".b64", ".u64", ".s64"}, "%rd")
      .Case(".b128", "%rq")
      .Case(".f16", "%h")
      .Case(".f16x2", "%hh")
      .Case(".bf16", "%hb")
      .Case(".bf16x2", "%hhb")
      .Case(".f32", "%f")
      .Case(".f64", "%fd")
      .Default("%x");
}

void renameRegisters(ptx::FuncOp func) {
  // Registers by declaration, each in order of first use.
  llvm::MapVector<StringRef, SmallVector<Value>> groups;
  llvm::DenseSet<Value> seen;
  auto visit = [&](Value value) {
    auto reg = value.getDefiningOp<ptx::RegOp>();
    if (reg && seen.insert(value).second)
      groups[reg.getDecl()].push_back(value);
  };
  SmallVector<ptx::RegOp> oldRegs;
  func.walk([&](Operation *op) {
    if (auto reg = llvm::dyn_cast<ptx::RegOp>(op))
      oldRegs.push_back(reg);
    if (auto inst = llvm::dyn_cast<ptx::InstructionOpInterface>(op)) {
      if (Value guard = inst.getGuard())
        visit(guard);
      for (Value ref : inst.getRefs())
        visit(ref);
    }
  });

  Block &entry = func.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  llvm::StringSet<> prefixes;
  Type refType = ptx::RefType::get(func.getContext());
  for (auto &[decl, values] : groups) {
    std::string prefix = basePrefix(decl).str();
    for (char suffix = 'a'; !prefixes.insert(prefix).second; ++suffix)
      prefix = (basePrefix(decl) + "_" + Twine(suffix)).str();
    unsigned count = values.size() + 1;
    auto reg = ptx::RegOp::create(
        builder, func.getLoc(), SmallVector<Type>(count, refType),
        builder.getStringAttr(decl), builder.getStringAttr(prefix),
        builder.getI32IntegerAttr(count));
    for (auto [index, value] : llvm::enumerate(values))
      value.replaceAllUsesWith(reg.getResult(index + 1));
  }
  for (ptx::RegOp reg : oldRegs)
    reg.erase();
}

void renameLabels(ptx::FuncOp func) {
  // Branch tables name their labels; a name defined in several scopes would
  // need the table's scope to resolve, so such a function keeps its names.
  llvm::StringMap<unsigned> definitions;
  func.walk([&](ptx::LabelOp label) { ++definitions[label.getName()]; });
  bool hasTables = false;
  func.walk([&](ptx::BranchTargetsOp) { hasTables = true; });
  if (hasTables && llvm::any_of(definitions, [](const auto &entry) {
        return entry.second > 1;
      }))
    return;
  llvm::StringMap<std::string> renamed;
  unsigned next = 0;
  Builder builder(func.getContext());
  for (Block &block : func.getBody()) {
    if (block.empty())
      continue;
    auto label = llvm::dyn_cast<ptx::LabelOp>(block.front());
    if (!label)
      continue;
    std::string name = "$L" + std::to_string(next++);
    renamed.try_emplace(label.getName(), name);
    label.setName(name);
  }
  func.walk([&](ptx::BranchTargetsOp table) {
    SmallVector<std::string> labels;
    for (StringRef label : table.getLabels().getAsValueRange<StringAttr>()) {
      auto it = renamed.find(label);
      labels.push_back(it == renamed.end() ? label.str() : it->second);
    }
    table.setLabelsAttr(builder.getStrArrayAttr(
        SmallVector<StringRef>(labels.begin(), labels.end())));
  });
}

} // namespace

void ptx::canonicalizeFunction(ptx::FuncOp func) {
  if (func.isExternal())
    return;
  renameRegisters(func);
  renameLabels(func);
}

void ptx::canonicalize(ptx::ModuleOp module) {
  module.removeSourceAttr();
  SmallVector<Operation *> dropped;
  module.walk([&](Operation *op) {
    op->removeAttr(ptx::kTextAttrName);
    if (llvm::isa<ptx::LocOp, ptx::FileOp, ptx::SectionOp>(op))
      dropped.push_back(op);
  });
  for (Operation *op : dropped)
    op->erase();
  for (auto func : module.getOps<ptx::FuncOp>())
    canonicalizeFunction(func);
}

std::string ptx::canonicalHash(ptx::ModuleOp module) {
  OwningOpRef<ptx::ModuleOp> copy(module.clone());
  canonicalize(*copy);
  std::string text;
  llvm::raw_string_ostream os(text);
  (void)exportPTX(*copy, os);
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}
