//===- PTXInterfaces.td - Interfaces of the ptx dialect ----*- tablegen -*-===//
//
// The instruction interface: every op that is one PTX instruction (the
// generic ptx.inst and the typed ops) stores it the same way, and passes see
// them all through this interface.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_PTXINTERFACES_TD
#define PTXBENCH_DIALECT_PTX_PTXINTERFACES_TD

include "mlir/IR/OpBase.td"

def PTX_InstructionOpInterface : OpInterface<"InstructionOpInterface"> {
  let cppNamespace = "::ptxbench::ptx";
  let description = [{
    One PTX instruction: an optional guard predicate (`@p` / `@!p`), the full
    dotted opcode, its operands as attributes (`args`) and the registers and
    variables they name as SSA operands (`refs`, in the order of the
    `#ptx.r` placeholders in `args`).
  }];
  let methods = [
    InterfaceMethod<"The guard predicate, or null.", "::mlir::Value",
      "getGuard", (ins), [{ return $_op.getGuard(); }]>,
    InterfaceMethod<"Whether the guard is negated (@!p).", "bool",
      "getNegated", (ins), [{ return $_op.getNegated(); }]>,
    InterfaceMethod<"The full opcode, e.g. add.s32.", "::llvm::StringRef",
      "getOpcode", (ins), [{ return $_op.getOpcode(); }]>,
    InterfaceMethod<"The operands, one attribute each.", "::mlir::ArrayAttr",
      "getArgs", (ins), [{ return $_op.getArgs(); }]>,
    InterfaceMethod<"The registers and variables the operands name.",
      "::mlir::OperandRange", "getRefs", (ins), [{ return $_op.getRefs(); }]>,
    InterfaceMethod<"The guard, to change (assign one value, or clear).",
      "::mlir::MutableOperandRange", "getGuardMutable", (ins),
      [{ return $_op.getGuardMutable(); }]>,
    InterfaceMethod<"Sets whether the guard is negated.", "void",
      "setNegated", (ins "bool":$negated),
      [{ $_op.setNegated(negated); }]>,
    InterfaceMethod<"The named registers, to change.",
      "::mlir::MutableOperandRange", "getRefsMutable", (ins),
      [{ return $_op.getRefsMutable(); }]>,
    InterfaceMethod<"Replaces the operands' attributes.", "void",
      "setArgs", (ins "::mlir::ArrayAttr":$args),
      [{ $_op.setArgsAttr(args); }]>,
  ];
}

#endif // PTXBENCH_DIALECT_PTX_PTXINTERFACES_TD
