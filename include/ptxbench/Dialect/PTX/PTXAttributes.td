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
  let summary = "an immediate or constant expression, kept as written "
                "(42, -1, 0x1F, 0f3F800000, 1.5, ((128 >> 4) << 16), WARP_SZ)";
  let parameters = (ins StringRefParameter<"literal text">:$text);
  let assemblyFormat = "`<` $text `>`";
  let extraClassDeclaration = [{
    /// The value, when the text is an integer constant expression.
    std::optional<int64_t> getIntegerValue() const;
  }];
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
    `[%tmap, {%x, %y} ]`. `offsetText` is the offset as written when that
    differs from `+N` (a constant expression such as `+288+128` or `+8*4`,
    or a written `+0`), so the export can say it the same way.
  }];
  let parameters = (ins "::mlir::Attribute":$base, "int64_t":$offset,
                        "::mlir::ArrayAttr":$rest,
                        StringRefParameter<"offset as written", "\"\"">:$offsetText);
  let assemblyFormat = "`<` $base `,` $offset `,` $rest (`,` $offsetText^)? `>`";
  let builders = [
    AttrBuilder<(ins "::mlir::Attribute":$base, "int64_t":$offset,
                     "::mlir::ArrayAttr":$rest), [{
      return $_get($_ctxt, base, offset, rest, "");
    }]>
  ];
}

def PTX_OffsetOperandAttr : PTX_Attr<"OffsetOperand", "plus"> {
  let summary = "a register or symbol plus a constant, outside brackets "
                "(%r2+4, sym+8)";
  let description = [{
    A source operand that adds a constant to a register or to a symbol's
    address, as ptxas allows in place of any source (`add.u32 %r1, %r2+4, 1`,
    `mov.u64 %rd1, sym+8`). `offsetText` is the constant as written when it
    differs from `+N`.
  }];
  let parameters = (ins "::mlir::Attribute":$base, "int64_t":$offset,
                        StringRefParameter<"offset as written", "\"\"">:$offsetText);
  let assemblyFormat = "`<` $base `,` $offset (`,` $offsetText^)? `>`";
}

def PTX_ElementOperandAttr : PTX_Attr<"ElementOperand", "elem"> {
  let summary = "an array element a[i] (a[1], a[N-1], a[%r2], a[%r2+4])";
  let description = [{
    PTX's square-bracket indexing of an array variable: `base` is the array
    (a symbol, or a variable declared in the body) and `index` an immediate,
    a register or a register plus a constant.
  }];
  let parameters = (ins "::mlir::Attribute":$base, "::mlir::Attribute":$index);
  let assemblyFormat = "`<` $base `,` $index `>`";
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
