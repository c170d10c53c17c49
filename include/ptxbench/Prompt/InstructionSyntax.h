//===- InstructionSyntax.h - Instruction syntax from the ISA table -*- C++ -*-===//
//
// The `brief` hardware context of a prompt: for each requested feature
// family, the syntax of its instructions as the ISA table knows it (the
// mnemonic, its modifier slots, its operand roles and what target it
// needs), restricted to the records the target architecture has. Large
// modifier slots are written compactly (`.m64n{8..256 step 8}k16`), and
// slots shared by several records are listed once per family.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_INSTRUCTIONSYNTAX_H
#define PTXBENCH_PROMPT_INSTRUCTIONSYNTAX_H

#include "ptxbench/ISA/ISA.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxbench::prompt {

/// The SM number of a target name such as "sm_90a" (90); std::nullopt for
/// anything that is not `sm_<digits>[a|f]`.
std::optional<unsigned> targetSM(llvm::StringRef arch);

/// Whether `info` exists on `arch` (e.g. "sm_90a").
bool availableOn(const isa::InstrInfo &info, llvm::StringRef arch);

/// A slot's values, compacted: groups of more than sixteen values that differ
/// only in their numbers are written with a `{...}` per varying number
/// (`.m64n{8..256 step 8}k{16,32}`); the rest are listed, space-separated.
std::string compactValues(llvm::ArrayRef<llvm::StringRef> values);

/// The families worth showing next to `requested`: the requested ones in
/// order, then the families their instructions are used with (mbarrier for
/// tma, tmem for tcgen05, ...), each once. Unknown names are errors.
llvm::Expected<std::vector<std::pair<isa::Family, bool>>>
familiesToShow(llvm::ArrayRef<std::string> requested);

/// The syntax section (Markdown) for `requested` on `arch`.
llvm::Expected<std::string>
renderInstructionSyntax(llvm::ArrayRef<std::string> requested,
                        llvm::StringRef arch);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_INSTRUCTIONSYNTAX_H
