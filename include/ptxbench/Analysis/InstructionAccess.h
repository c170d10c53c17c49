//===- InstructionAccess.h - What one PTX instruction touches ---*- C++ -*-===//
//
// Small queries on one instruction op that every analysis needs: which
// registers it reads and writes (from the ISA table's operand roles), the
// state space it accesses, the immediates it names, and the PTX and CUDA
// source locations it came from.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_ANALYSIS_INSTRUCTIONACCESS_H
#define PTXBENCH_ANALYSIS_INSTRUCTIONACCESS_H

#include "ptxbench/Dialect/PTX/PTX.h"
#include "ptxbench/ISA/ISA.h"

#include "mlir/IR/Location.h"

#include <optional>

namespace ptxbench::analysis {

/// One register or variable named by an instruction operand.
struct RegAccess {
  mlir::Value value;
  /// The index of the PTX operand (in `args`) that names it.
  unsigned operand;
  bool read;
  bool written;
};

/// The registers `op` names, in operand order. Address operands are read;
/// other operands follow the ISA table's roles. Operands of calls and of
/// instructions without a record are conservatively read and written.
llvm::SmallVector<RegAccess, 8> regAccesses(ptx::InstructionOpInterface op);

/// Whether `op` writes `value`.
bool writes(ptx::InstructionOpInterface op, mlir::Value value);

/// The instruction's ISA record (null for an unknown opcode).
const isa::InstrInfo *instrInfo(ptx::InstructionOpInterface op);

/// The feature family of `op`, when it has a record.
std::optional<isa::Family> familyOf(ptx::InstructionOpInterface op);

/// Whether the dotted `opcode` has the modifier `modifier` (with its dot).
bool hasModifier(llvm::StringRef opcode, llvm::StringRef modifier);

/// Whether `op` is an ld (or ldu) of state space `space` (".global", ...);
/// ".shared" also matches ".shared::cta" and ".shared::cluster".
bool isLoadFrom(ptx::InstructionOpInterface op, llvm::StringRef space);
/// Whether `op` is an st to state space `space`, matched as in isLoadFrom.
bool isStoreTo(ptx::InstructionOpInterface op, llvm::StringRef space);

/// The immediate operand `index` as an integer, when it is one.
std::optional<int64_t> immediateOperand(ptx::InstructionOpInterface op,
                                        unsigned index);

/// The PTX file location of `loc` (the first FileLineColLoc of a FusedLoc).
std::optional<mlir::FileLineColLoc> ptxLocation(mlir::Location loc);
/// The CUDA source location of `loc`: the second FileLineColLoc of the
/// FusedLoc the importer builds under a `.loc` directive.
std::optional<mlir::FileLineColLoc> cudaLocation(mlir::Location loc);

} // namespace ptxbench::analysis

#endif // PTXBENCH_ANALYSIS_INSTRUCTIONACCESS_H
