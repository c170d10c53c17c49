//===- PTXTypes.td - Types of the ptx dialect --------------*- tablegen -*-===//
//
// One type: a handle on a name a function declares for storage (a register
// from `.reg`, a variable from `.local`/`.shared`/`.param` in a body, or a
// parameter). The PTX type lives on the declaration, as it does in PTX, so a
// handle is all an instruction needs to say which storage it touches.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_PTXTYPES_TD
#define PTXBENCH_DIALECT_PTX_PTXTYPES_TD

include "ptxbench/Dialect/PTX/PTXDialect.td"
include "mlir/IR/AttrTypeBase.td"

def PTX_RefType : TypeDef<PTX_Dialect, "Ref"> {
  let mnemonic = "ref";
  let summary = "a register, function-local variable or parameter";
}

#endif // PTXBENCH_DIALECT_PTX_PTXTYPES_TD
