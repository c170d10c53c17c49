//===- PTXAttributes.td - Attributes of the ptx dialect ----*- tablegen -*-===//
//
// Instruction operands (one attribute per PTX operand, in order; registers
// stand as `#ptx.r` placeholders for the instruction's next SSA operand),
// function parameters and performance directives.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_PTXATTRIBUTES_TD
#define PTXBENCH_DIALECT_PTX_PTXATTRIBUTES_TD

include "ptxbench/Dialect/PTX/PTXDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class PTX_Attr<string name, string attrMnemonic> : AttrDef<PTX_Dialect, name> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Instruction operands
//===----------------------------------------------------------------------===//

def PTX_RegOperandAttr : PTX_Attr<"RegOperand", "r"> {
  let summary = "the instruction's next register or variable SSA operand";
  let description = [{
    Stands for the next value of the instruction's `refs`, in order.
    `component` is a vector-register element selector (`%v.x`) or empty.
  }];
  let parameters = (ins StringRefParameter<"element selector", "\"\"">:$component);
  let assemblyFormat = "(`<` $component^ `>`)?";
}

def PTX_ImmOperandAttr : PTX_Attr<"ImmOperand", "imm"> {
  let summary = "an immediate, kept as written (42, -1, 0x1F, 0f3F800000, 1.5)";
  let parameters = (ins StringRefParameter<"literal text">:$text);
  let assemblyFormat = "`<` $text `>`";
}

def PTX_SymOperandAttr : PTX_Attr<"SymOperand", "sym"> {
  let summary = "a module-scope symbol: a global variable or a function";
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$name);
  let assemblyFormat = "`<` $name `>`";
}

def PTX_IdOperandAttr : PTX_Attr<"IdOperand", "id"> {
  let summary = "a special register (%tid.x), the sink `_`, or a name declared "
                "in the body that is not storage (a call prototype, a branch "
                "target table)";
  let parameters = (ins StringRefParameter<"identifier">:$name);
  let assemblyFormat = "`<` $name `>`";
}

def PTX_AddrOperandAttr : PTX_Attr<"AddrOperand", "addr"> {
  let summary = "a memory operand [base+offset] or [base+offset, e1, ...]";
  let description = [{
    `base` is a register placeholder, a symbol, an identifier or an immediate
    (absolute address); `offset` is added to it (printed as `+N`); `rest`
    holds further elements, as in a tensor-map operand
    `[%tmap, {%x, %y} ]`.
  }];
  let parameters = (ins "::mlir::Attribute":$base, "int64_t":$offset,
                        "::mlir::ArrayAttr":$rest);
  let assemblyFormat = "`<` $base `,` $offset `,` $rest `>`";
}

def PTX_VecOperandAttr : PTX_Attr<"VecOperand", "vec"> {
  let summary = "a vector operand {a, b, ...}";
  let parameters = (ins "::mlir::ArrayAttr":$elements);
  let assemblyFormat = "`<` $elements `>`";
}

def PTX_ListOperandAttr : PTX_Attr<"ListOperand", "list"> {
  let summary = "a parenthesized operand list (a, b), as in call";
  let parameters = (ins "::mlir::ArrayAttr":$elements);
  let assemblyFormat = "`<` $elements `>`";
}

def PTX_PairOperandAttr : PTX_Attr<"PairOperand", "pair"> {
  let summary = "a destination pair p|q";
  let parameters = (ins "::mlir::Attribute":$first, "::mlir::Attribute":$second);
  let assemblyFormat = "`<` $first `,` $second `>`";
}

def PTX_NotOperandAttr : PTX_Attr<"NotOperand", "not"> {
  let summary = "a negated predicate operand !p";
  let parameters = (ins "::mlir::Attribute":$operand);
  let assemblyFormat = "`<` $operand `>`";
}

def PTX_LabelOperandAttr : PTX_Attr<"LabelOperand", "label"> {
  let summary = "a branch target: the label of the op's successor `index`";
  let parameters = (ins "unsigned":$index);
  let assemblyFormat = "`<` $index `>`";
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

def PTX_ParamAttr : PTX_Attr<"Param", "param"> {
  let summary = "a kernel or function parameter";
  let description = [{
    `decl` is the parameter's declaration as written after its state space,
    without the name (e.g. `.u64 .ptr.global.align 16`, `.align 8 .b8`);
    `dims` its array dimensions (-1 for `[]`).
  }];
  let parameters = (ins StringRefParameter<"state space">:$space,
                        StringRefParameter<"declaration">:$decl,
                        StringRefParameter<"name">:$name,
                        "::mlir::DenseI64ArrayAttr":$dims);
  let assemblyFormat = "`<` $space `,` $decl `,` $name `,` $dims `>`";
}

def PTX_DirectiveAttr : PTX_Attr<"Directive", "directive"> {
  let summary = "a performance directive (.maxntid 256, 1, 1) or .pragma";
  let parameters = (ins StringRefParameter<"name without the dot">:$name,
                        "::mlir::ArrayAttr":$values);
  let assemblyFormat = "`<` $name `,` $values `>`";
}

#endif // PTXBENCH_DIALECT_PTX_PTXATTRIBUTES_TD
