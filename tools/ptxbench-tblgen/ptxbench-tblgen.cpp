//===- ptxbench-tblgen.cpp - TableGen backends for the ISA table ----------===//
//
// Generates, from include/ptxbench/ISA/Instructions.td:
//   -gen-isa-families  the Family enum entries (ISAFamilies.inc)
//   -gen-isa-opkinds   the OpKind enum entries (ISAOpKinds.inc)
//   -gen-isa-table     the instruction records as C++ arrays (ISATable.inc)
//   -gen-isa-doc       the coverage page in Markdown (docs/isa-coverage.md)
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;

namespace {

enum class Action { Families, OpKinds, Table, Doc };

cl::opt<Action>
    action(cl::desc("What to generate:"),
           cl::values(clEnumValN(Action::Families, "gen-isa-families",
                                 "Family enum entries"),
                      clEnumValN(Action::OpKinds, "gen-isa-opkinds",
                                 "OpKind enum entries"),
                      clEnumValN(Action::Table, "gen-isa-table",
                                 "instruction records as C++ arrays"),
                      clEnumValN(Action::Doc, "gen-isa-doc",
                                 "the coverage page in Markdown")));

/// `FamWgmma` -> `Wgmma`, `OpGeneric` -> `Generic`.
StringRef enumName(const Record *rec, StringRef prefix) {
  StringRef name = rec->getName();
  name.consume_front(prefix);
  return name;
}

std::vector<const Record *> sortedInstrs(const RecordKeeper &records) {
  std::vector<const Record *> instrs(
      records.getAllDerivedDefinitions("Instr").begin(),
      records.getAllDerivedDefinitions("Instr").end());
  llvm::stable_sort(instrs, [](const Record *a, const Record *b) {
    return a->getValueAsString("Mnemonic") < b->getValueAsString("Mnemonic");
  });
  return instrs;
}

/// Checks the records: unique mnemonics, well-formed operand roles and
/// modifiers. Returns true on error.
bool verifyRecords(ArrayRef<const Record *> instrs) {
  bool failed = false;
  for (size_t i = 0; i < instrs.size(); ++i) {
    const Record *rec = instrs[i];
    StringRef mnemonic = rec->getValueAsString("Mnemonic");
    if (i > 0 && instrs[i - 1]->getValueAsString("Mnemonic") == mnemonic) {
      PrintError(rec, "duplicate mnemonic '" + mnemonic + "' (also " +
                          instrs[i - 1]->getName() + ")");
      failed = true;
    }
    std::vector<StringRef> ops = rec->getValueAsListOfStrings("Operands");
    for (size_t k = 0; k < ops.size(); ++k) {
      StringRef role = ops[k];
      bool variadic = role.consume_back("*");
      role.consume_back("?");
      if ((role != "d" && role != "s" && role != "ds") ||
          (variadic && k + 1 != ops.size())) {
        PrintError(rec, "bad operand role '" + ops[k] + "' in " + mnemonic);
        failed = true;
      }
    }
    for (const Record *slot : rec->getValueAsListOfDefs("Slots"))
      for (StringRef value : slot->getValueAsListOfStrings("Values"))
        if (!value.starts_with(".")) {
          PrintError(rec, "modifier '" + value + "' of slot " +
                              slot->getName() + " must start with '.'");
          failed = true;
        }
  }
  return failed;
}

void emitFamilies(raw_ostream &os, const RecordKeeper &records) {
  emitSourceFileHeader("ptxbench ISA feature families", os, records);
  os << "#ifndef PTXBENCH_FAMILY\n#error define PTXBENCH_FAMILY\n#endif\n";
  for (const Record *fam : records.getAllDerivedDefinitions("Family"))
    os << "PTXBENCH_FAMILY(" << enumName(fam, "Fam") << ", \""
       << fam->getValueAsString("Name") << "\", \""
       << fam->getValueAsString("Summary") << "\", "
       << (fam->getValueAsBit("ArchSpecific") ? "true" : "false") << ")\n";
  os << "#undef PTXBENCH_FAMILY\n";
}

void emitOpKinds(raw_ostream &os, const RecordKeeper &records) {
  emitSourceFileHeader("ptxbench ISA op kinds", os, records);
  os << "#ifndef PTXBENCH_OPKIND\n#error define PTXBENCH_OPKIND\n#endif\n";
  for (const Record *kind : records.getAllDerivedDefinitions("OpKind"))
    os << "PTXBENCH_OPKIND(" << enumName(kind, "Op") << ")\n";
  os << "#undef PTXBENCH_OPKIND\n";
}

void emitStringArray(raw_ostream &os, StringRef name,
                     ArrayRef<StringRef> values) {
  os << "static const ::llvm::StringRef " << name << "[] = {";
  for (StringRef v : values)
    os << "\"" << v << "\", ";
  if (values.empty())
    os << "\"\"";
  os << "};\n";
}

/// The union of an instruction's slot values, sorted and unique, for a
/// binary search per modifier.
std::vector<StringRef> sortedModifiers(const Record *rec) {
  std::vector<StringRef> all;
  for (const Record *slot : rec->getValueAsListOfDefs("Slots"))
    for (StringRef value : slot->getValueAsListOfStrings("Values"))
      all.push_back(value);
  llvm::sort(all);
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

bool emitTable(raw_ostream &os, const RecordKeeper &records) {
  std::vector<const Record *> instrs = sortedInstrs(records);
  if (verifyRecords(instrs))
    return true;
  emitSourceFileHeader("ptxbench ISA instruction table", os, records);

  // Slots are shared between instructions: emit each once.
  std::vector<const Record *> slots(
      records.getAllDerivedDefinitions("Slot").begin(),
      records.getAllDerivedDefinitions("Slot").end());
  for (const Record *slot : slots)
    emitStringArray(os, "slotValues_" + slot->getName().str(),
                    slot->getValueAsListOfStrings("Values"));

  for (auto [index, rec] : llvm::enumerate(instrs)) {
    std::string id = std::to_string(index);
    os << "static const Slot slots_" << id << "[] = {";
    for (const Record *slot : rec->getValueAsListOfDefs("Slots"))
      os << "{\"" << slot->getValueAsString("Name") << "\", slotValues_"
         << slot->getName() << "}, ";
    os << "{\"\", {}}};\n";
    os << "static const OperandRole operands_" << id << "[] = {";
    for (StringRef role : rec->getValueAsListOfStrings("Operands")) {
      bool variadic = role.consume_back("*");
      bool optional = role.consume_back("?");
      os << "{" << (role.contains('s') ? 1 : 0) << ", "
         << (role.contains('d') ? 1 : 0) << ", " << optional << ", " << variadic
         << "}, ";
    }
    os << "{0, 0, 0, 0}};\n";
    os << "static const uint16_t arch_" << id << "[] = {";
    for (int64_t sm : rec->getValueAsListOfInts("ArchSpecificSM"))
      os << sm << ", ";
    os << "0};\n";
    emitStringArray(os, "sass_" + id, rec->getValueAsListOfStrings("Sass"));
    emitStringArray(os, "modifiers_" + id, sortedModifiers(rec));
  }

  os << "template <typename T>\n"
        "static ::llvm::ArrayRef<T> arrayRef(const T *data, size_t size) {\n"
        "  return ::llvm::ArrayRef<T>(data, size);\n}\n";
  os << "static const InstrInfo instrTable[] = {\n";
  for (auto [index, rec] : llvm::enumerate(instrs)) {
    std::string id = std::to_string(index);
    size_t numSlots = rec->getValueAsListOfDefs("Slots").size();
    size_t numOps = rec->getValueAsListOfStrings("Operands").size();
    size_t numArch = rec->getValueAsListOfInts("ArchSpecificSM").size();
    size_t numSass = rec->getValueAsListOfStrings("Sass").size();
    os << "  {\"" << rec->getValueAsString("Mnemonic")
       << "\", Family::" << enumName(rec->getValueAsDef("Fam"), "Fam")
       << ", OpKind::" << enumName(rec->getValueAsDef("Kind"), "Op") << ", "
       << rec->getValueAsInt("MinPTX") << ", " << rec->getValueAsInt("MinSM")
       << ", arrayRef(arch_" << id << ", " << numArch << "), arrayRef(operands_"
       << id << ", " << numOps << "), arrayRef(slots_" << id << ", " << numSlots
       << "), arrayRef(sass_" << id << ", " << numSass
       << "), arrayRef(modifiers_" << id << ", " << sortedModifiers(rec).size()
       << "), \"" << rec->getValueAsString("Summary") << "\"},\n";
  }
  os << "};\n";
  return false;
}

/// "90" -> "9.0".
std::string ptxVersion(int64_t v) {
  return std::to_string(v / 10) + "." + std::to_string(v % 10);
}

bool emitDoc(raw_ostream &os, const RecordKeeper &records) {
  std::vector<const Record *> instrs = sortedInstrs(records);
  if (verifyRecords(instrs))
    return true;
  os << "<!-- Generated by ptxbench-tblgen -gen-isa-doc from "
        "include/ptxbench/ISA/Instructions.td. Do not edit. -->\n\n";
  os << "# PTX ISA coverage\n\n";
  os << instrs.size() << " instruction records. Operand roles: `d` written, "
     << "`s` read, `ds` both; `?` optional, `*` any number more.\n\n";
  for (const Record *fam : records.getAllDerivedDefinitions("Family")) {
    std::vector<const Record *> members;
    for (const Record *rec : instrs)
      if (rec->getValueAsDef("Fam") == fam)
        members.push_back(rec);
    os << "## " << fam->getValueAsString("Name") << "\n\n"
       << fam->getValueAsString("Summary")
       << (fam->getValueAsBit("ArchSpecific") ? " (architecture-specific)" : "")
       << ".\n\n";
    if (members.empty()) {
      os << "No instructions.\n\n";
      continue;
    }
    os << "| instruction | operands | PTX | target | SASS | summary |\n"
       << "|---|---|---|---|---|---|\n";
    for (const Record *rec : members) {
      std::string target = "sm_" + std::to_string(rec->getValueAsInt("MinSM"));
      std::vector<int64_t> arch = rec->getValueAsListOfInts("ArchSpecificSM");
      if (!arch.empty()) {
        target.clear();
        for (auto [i, sm] : llvm::enumerate(arch))
          target += (i ? ", sm_" : "sm_") + std::to_string(sm) + "a";
      }
      os << "| `" << rec->getValueAsString("Mnemonic") << "` | "
         << llvm::join(rec->getValueAsListOfStrings("Operands"), " ") << " | "
         << ptxVersion(rec->getValueAsInt("MinPTX")) << " | " << target << " | "
         << llvm::join(rec->getValueAsListOfStrings("Sass"), " ") << " | "
         << rec->getValueAsString("Summary") << " |\n";
    }
    os << "\n";
  }
  return false;
}

bool generate(raw_ostream &os, const RecordKeeper &records) {
  switch (action) {
  case Action::Families:
    emitFamilies(os, records);
    return false;
  case Action::OpKinds:
    emitOpKinds(os, records);
    return false;
  case Action::Table:
    return emitTable(os, records);
  case Action::Doc:
    return emitDoc(os, records);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "ptxbench ISA table generator\n");
  return TableGenMain(argv[0], generate);
}
