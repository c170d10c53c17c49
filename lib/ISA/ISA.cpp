//===- ISA.cpp - Lookups in the PTX instruction table ---------------------===//
//
// The generated records (ISATable.inc) and the queries on them: the record
// for an opcode, its modifiers, operand counts and feature families.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/ISA/ISA.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace ptxbench::isa;
using llvm::StringRef;

namespace ptxbench::isa {
#include "ptxbench/ISA/ISATable.inc"
} // namespace ptxbench::isa

namespace {
struct FamilyInfo {
  StringRef name;
  StringRef summary;
  bool archSpecific;
};
const FamilyInfo familyTable[] = {
#define PTXBENCH_FAMILY(Enum, Name, Summary, ArchSpecific)                     \
  {Name, Summary, ArchSpecific},
#include "ptxbench/ISA/ISAFamilies.inc"
};

const llvm::StringMap<const InstrInfo *> &mnemonicIndex() {
  static const llvm::StringMap<const InstrInfo *> index = [] {
    llvm::StringMap<const InstrInfo *> map;
    for (const InstrInfo &info : instrTable)
      map[info.mnemonic] = &info;
    return map;
  }();
  return index;
}
} // namespace

llvm::ArrayRef<InstrInfo> ptxbench::isa::instructions() { return instrTable; }

/// The longest-prefix search behind lookup().
static const InstrInfo *findRecord(StringRef opcode) {
  const auto &index = mnemonicIndex();
  // Try the whole opcode, then drop one trailing .modifier at a time.
  StringRef prefix = opcode;
  while (!prefix.empty()) {
    auto it = index.find(prefix);
    if (it != index.end())
      return it->second;
    size_t dot = prefix.rfind('.');
    if (dot == StringRef::npos || dot == 0)
      return nullptr;
    prefix = prefix.take_front(dot);
  }
  return nullptr;
}

const InstrInfo *ptxbench::isa::lookup(StringRef opcode) {
  // A module repeats a few hundred distinct opcodes many times: remember
  // each full opcode's record (per thread, so no locking; bounded, so
  // hostile input cannot grow it without limit).
  thread_local llvm::StringMap<const InstrInfo *> cache;
  auto it = cache.find(opcode);
  if (it != cache.end())
    return it->second;
  const InstrInfo *info = findRecord(opcode);
  if (cache.size() < 16384)
    cache[opcode] = info;
  return info;
}

bool ptxbench::isa::hasValidModifiers(StringRef opcode, const InstrInfo &info,
                                      StringRef *firstInvalid) {
  thread_local llvm::StringMap<bool> valid;
  if (valid.count(opcode))
    return true;
  for (StringRef modifier : modifiers(opcode, info))
    if (!info.allowsModifier(modifier)) {
      if (firstInvalid)
        *firstInvalid = modifier;
      return false;
    }
  if (valid.size() < 16384)
    valid[opcode] = true;
  return true;
}

llvm::SmallVector<StringRef, 8>
ptxbench::isa::modifiers(StringRef opcode, const InstrInfo &info) {
  llvm::SmallVector<StringRef, 8> result;
  StringRef rest = opcode.drop_front(info.mnemonic.size());
  while (!rest.empty()) {
    size_t next = rest.find('.', 1);
    result.push_back(rest.take_front(next));
    rest = next == StringRef::npos ? StringRef() : rest.drop_front(next);
  }
  return result;
}

unsigned InstrInfo::minOperands() const {
  unsigned count = 0;
  for (OperandRole role : operands)
    count += !role.optional && !role.variadic;
  return count;
}

std::optional<unsigned> InstrInfo::maxOperands() const {
  if (!operands.empty() && operands.back().variadic)
    return std::nullopt;
  return operands.size();
}

std::optional<OperandRole> InstrInfo::operandRole(unsigned index) const {
  if (index < operands.size())
    return operands[index];
  if (!operands.empty() && operands.back().variadic)
    return operands.back();
  return std::nullopt;
}

bool InstrInfo::allowsModifier(StringRef modifier) const {
  return std::binary_search(allModifiers.begin(), allModifiers.end(), modifier);
}

StringRef ptxbench::isa::familyName(Family family) {
  return familyTable[static_cast<unsigned>(family)].name;
}

StringRef ptxbench::isa::familySummary(Family family) {
  return familyTable[static_cast<unsigned>(family)].summary;
}

bool ptxbench::isa::isArchSpecificFamily(Family family) {
  return familyTable[static_cast<unsigned>(family)].archSpecific;
}

std::optional<Family> ptxbench::isa::familyByName(StringRef name) {
  for (unsigned i = 0; i < numFamilies(); ++i)
    if (familyTable[i].name == name)
      return static_cast<Family>(i);
  return std::nullopt;
}

std::optional<llvm::SmallVector<Family, 2>>
ptxbench::isa::familiesOfRequirement(StringRef requirement) {
  llvm::SmallVector<StringRef, 2> names;
  requirement.split(names, '|');
  llvm::SmallVector<Family, 2> families;
  for (StringRef name : names) {
    std::optional<Family> family = familyByName(name.trim());
    if (!family)
      return std::nullopt;
    if (!llvm::is_contained(families, *family))
      families.push_back(*family);
  }
  return families;
}
