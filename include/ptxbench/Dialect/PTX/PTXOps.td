//===- PTXOps.td - Operations of the ptx dialect -----------*- tablegen -*-===//
//
// Module structure (module, global, func, alias, file, section), body
// declarations (reg, var, label, scope markers, debug and other directives)
// and instructions: the generic ptx.inst and typed ops for the families the
// analysis inspects. Control flow is explicit: labels start blocks and every
// block ends in a branch, a return or an (unprinted) fallthrough.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_PTXOPS_TD
#define PTXBENCH_DIALECT_PTX_PTXOPS_TD

include "ptxbench/Dialect/PTX/PTXDialect.td"
include "ptxbench/Dialect/PTX/PTXAttributes.td"
include "ptxbench/Dialect/PTX/PTXInterfaces.td"
include "ptxbench/Dialect/PTX/PTXTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

class PTX_Op<string mnemonic, list<Trait> traits = []>
    : Op<PTX_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Module structure
//===----------------------------------------------------------------------===//

def PTX_ModuleOp : PTX_Op<"module", [IsolatedFromAbove, NoTerminator,
    SingleBlock, SymbolTable, NoRegionArguments]> {
  let summary = "a PTX module: .version, .target, .address_size and its items";
  let description = [{
    `source` names the PTX file the module was imported from. The exporter
    keeps every op whose location is in that file on its original line, so
    line-based debug information assembles the same.
  }];
  let arguments = (ins StrAttr:$version, StrArrayAttr:$target,
                       OptionalAttr<I32Attr>:$address_size,
                       OptionalAttr<StrAttr>:$source);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    `version` $version `target` $target (`address_size` $address_size^)?
    attr-dict-with-keyword $bodyRegion
  }];
  let builders = [OpBuilder<(ins "::llvm::StringRef":$version,
      "::llvm::ArrayRef<::llvm::StringRef>":$target,
      "::std::optional<uint32_t>":$addressSize)>];
  let hasVerifier = 1;
}

def PTX_GlobalOp : PTX_Op<"global", [Symbol, HasParent<"ModuleOp">]> {
  let summary = "a module-scope variable";
  let description = [{
    `space` is the state space (`.global`, `.const`, `.shared`, ...),
    `linkage` is empty or one of `.visible`, `.extern`, `.weak`, `.common`;
    `decl` is the declaration between state space and name as written
    (`.align 8 .b8`, `.v4 .f32`, `.texref`); `dims` the array dimensions
    (-1 for `[]`); `init` the initializer as written after `=`, and `refs`
    the symbols it names (`generic(sym)`, `sym+8`).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       DefaultValuedStrAttr<StrAttr, "">:$linkage,
                       StrAttr:$space, StrAttr:$decl,
                       OptionalAttr<DenseI64ArrayAttr>:$dims,
                       OptionalAttr<StrAttr>:$init,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$refs);
  let assemblyFormat = [{
    $linkage $space $decl $sym_name (`dims` $dims^)? (`=` $init^)?
    (`refs` $refs^)? attr-dict
  }];
}

def PTX_GlobalDeclOp : PTX_Op<"global_decl", [HasParent<"ModuleOp">]> {
  let summary = "a further declaration of a module-scope variable";
  let description = [{
    PTX lets a variable be declared `.extern` again (and again) before or
    after its definition or first declaration, which is the symbol `@g`.
    Each further declaration stays in place as this op, as written.
  }];
  let arguments = (ins FlatSymbolRefAttr:$global,
                       DefaultValuedStrAttr<StrAttr, "">:$linkage,
                       StrAttr:$space, StrAttr:$decl,
                       OptionalAttr<DenseI64ArrayAttr>:$dims);
  let assemblyFormat = [{
    $linkage $space $decl $global (`dims` $dims^)? attr-dict
  }];
}

def PTX_FuncOp : PTX_Op<"func", [IsolatedFromAbove, Symbol,
    HasParent<"ModuleOp">, DeclareOpInterfaceMethods<OpAsmOpInterface,
    ["getAsmBlockArgumentNames"]>]> {
  let summary = "a kernel (.entry) or function (.func)";
  let description = [{
    The body's entry block takes one `!ptx.ref` argument per return
    parameter and then per parameter, in order; instructions address
    parameters through them. A declaration (prototype or `.extern`) has an
    empty body. `directives` holds the performance directives between the
    signature and the body, in order.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, UnitAttr:$entry,
                       DefaultValuedStrAttr<StrAttr, "">:$linkage,
                       TypedArrayAttrBase<PTX_ParamAttr, "results">:$results,
                       TypedArrayAttrBase<PTX_ParamAttr, "parameters">:$params,
                       TypedArrayAttrBase<PTX_DirectiveAttr, "directives">:$directives,
                       OptionalAttr<LocationAttr>:$body_end);
  let regions = (region AnyRegion:$body);
  let assemblyFormat = [{
    (`entry` $entry^)? $linkage $sym_name `(` $params `)` `->` `(` $results `)`
    `directives` $directives attr-dict-with-keyword $body
  }];
  let extraClassDeclaration = [{
    /// A prototype or .extern declaration: no body.
    bool isExternal() { return getBody().empty(); }
  }];
  let hasVerifier = 1;
}

def PTX_PrototypeOp : PTX_Op<"prototype", [HasParent<"ModuleOp">]> {
  let summary = "a further declaration of a function";
  let description = [{
    PTX lets a function be declared (`.func f(...);`) any number of times
    before it is defined. The definition (or, without one, the last
    declaration) is the symbol `@f`; every other declaration stays in place
    as this op, with its own signature as written.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, UnitAttr:$entry,
                       DefaultValuedStrAttr<StrAttr, "">:$linkage,
                       TypedArrayAttrBase<PTX_ParamAttr, "results">:$results,
                       TypedArrayAttrBase<PTX_ParamAttr, "parameters">:$params,
                       TypedArrayAttrBase<PTX_DirectiveAttr, "directives">:$directives);
  let assemblyFormat = [{
    (`entry` $entry^)? $linkage $callee `(` $params `)` `->` `(` $results `)`
    `directives` $directives attr-dict
  }];
}

def PTX_AliasOp : PTX_Op<"alias", [Symbol, HasParent<"ModuleOp">]> {
  let summary = "a function alias (.alias alias, aliasee;)";
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$aliasee);
  let assemblyFormat = "$sym_name `=` $aliasee attr-dict";
}

def PTX_FileOp : PTX_Op<"file", [HasParent<"ModuleOp">]> {
  let summary = "a debug file entry (.file N \"path\", timestamp, size)";
  let arguments = (ins I32Attr:$index, StrAttr:$path,
                       OptionalAttr<I64Attr>:$timestamp,
                       OptionalAttr<I64Attr>:$size);
  let assemblyFormat = "$index $path (`timestamp` $timestamp^)? (`size` $size^)? attr-dict";
}

def PTX_SectionOp : PTX_Op<"section", [HasParent<"ModuleOp">]> {
  let summary = "an opaque .section (DWARF data), its body kept verbatim";
  let description = [{
    `header` is the text from `.section` to its `{` as written, when it is
    not the exporter's own `.section<TAB>NAME<NEWLINE><TAB>` (older debug
    targets write `.section .debug_info {` on one line): a cubin with line
    info records the text of the section's lines and their numbers, so
    the header is exported as it was.
  }];
  let arguments = (ins StrAttr:$name, StrAttr:$contents,
                       OptionalAttr<StrAttr>:$header);
  let assemblyFormat = "$name $contents attr-dict";
}

def PTX_ModulePragmaOp : PTX_Op<"module_pragma", [HasParent<"ModuleOp">]> {
  let summary = "a module-scope .pragma";
  let arguments = (ins StrArrayAttr:$values);
  let assemblyFormat = "$values attr-dict";
}

//===----------------------------------------------------------------------===//
// Declarations and directives in a body
//===----------------------------------------------------------------------===//

def PTX_RegOp : PTX_Op<"reg", [DeclareOpInterfaceMethods<OpAsmOpInterface,
    ["getAsmResultNames"]>]> {
  let summary = "register declaration: .reg .b32 %r<N>; or .reg .pred %p;";
  let description = [{
    Declares one register (`count` absent) or the range `name0` ..
    `name{count-1}` (`count` present), one result each. `decl` is the
    declaration as written between `.reg` and the name (`.b32`, `.v2 .f32`).
  }];
  let arguments = (ins StrAttr:$decl, StrAttr:$name,
                       OptionalAttr<I32Attr>:$count);
  let results = (outs Variadic<PTX_RefType>:$regs);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The PTX name of result \p index (`%r7` for index 7 of `%r<N>`).
    std::string getRegName(unsigned index);
  }];
}

def PTX_VarOp : PTX_Op<"var", [DeclareOpInterfaceMethods<OpAsmOpInterface,
    ["getAsmResultNames"]>]> {
  let summary = "a variable declared in a body (.local, .shared, .param)";
  let arguments = (ins StrAttr:$space, StrAttr:$decl, StrAttr:$name,
                       OptionalAttr<DenseI64ArrayAttr>:$dims,
                       OptionalAttr<StrAttr>:$init);
  let results = (outs PTX_RefType:$var);
  let assemblyFormat = [{
    $space $decl $name (`dims` $dims^)? (`=` $init^)? attr-dict
  }];
}

def PTX_LabelOp : PTX_Op<"label"> {
  let summary = "the label that starts its block";
  let arguments = (ins StrAttr:$name);
  let assemblyFormat = "$name attr-dict";
  let hasVerifier = 1;
}

def PTX_ScopeBeginOp : PTX_Op<"scope_begin"> {
  let summary = "an opening brace of a nested { } scope";
  let assemblyFormat = "attr-dict";
}

def PTX_ScopeEndOp : PTX_Op<"scope_end"> {
  let summary = "a closing brace of a nested { } scope";
  let assemblyFormat = "attr-dict";
}

def PTX_LocOp : PTX_Op<"loc"> {
  let summary = "a .loc debug directive";
  let description = [{
    `.loc file line column`, with `rest` the text after the column as written
    (`, function_name $L__info_string0, inlined_at 1 22 5`).
  }];
  let arguments = (ins I32Attr:$file, I32Attr:$line, I32Attr:$column,
                       DefaultValuedStrAttr<StrAttr, "">:$rest);
  let assemblyFormat = "$file $line $column ($rest^)? attr-dict";
}

def PTX_PragmaOp : PTX_Op<"pragma"> {
  let summary = "a .pragma in a body";
  let arguments = (ins StrArrayAttr:$values);
  let assemblyFormat = "$values attr-dict";
}

def PTX_BranchTargetsOp : PTX_Op<"branchtargets"> {
  let summary = "a branch target table: name: .branchtargets L1, L2;";
  let arguments = (ins StrAttr:$name, StrArrayAttr:$labels);
  let assemblyFormat = "$name $labels attr-dict";
}

def PTX_CallTargetsOp : PTX_Op<"calltargets"> {
  let summary = "a call target list: name: .calltargets f1, f2;";
  let arguments = (ins StrAttr:$name, FlatSymbolRefArrayAttr:$callees);
  let assemblyFormat = "$name $callees attr-dict";
}

def PTX_CallPrototypeOp : PTX_Op<"callprototype"> {
  let summary = "an indirect-call prototype: name: .callprototype ...;";
  let arguments = (ins StrAttr:$name, StrAttr:$signature);
  let assemblyFormat = "$name $signature attr-dict";
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

class PTX_InstrOp<string mnemonic, list<Trait> traits = []>
    : PTX_Op<mnemonic, !listconcat(traits, [AttrSizedOperandSegments,
        PTX_InstructionOpInterface])> {
  dag instrArgs = (ins Optional<PTX_RefType>:$guard, UnitAttr:$negated,
                       StrAttr:$opcode, Variadic<PTX_RefType>:$refs,
                       ArrayAttr:$args);
  let arguments = instrArgs;
  let assemblyFormat = [{
    (`if` $guard^)? $opcode `(` $refs `)` $args attr-dict
  }];
  let hasVerifier = 1;
}

def PTX_InstOp : PTX_InstrOp<"inst"> {
  let summary = "any PTX instruction without a typed op";
}

def PTX_WgmmaOp : PTX_InstrOp<"wgmma"> {
  let summary = "wgmma.mma_async, wgmma.fence, commit_group, wait_group";
}

def PTX_TmaOp : PTX_InstrOp<"tma"> {
  let summary = "cp.async.bulk.tensor and its reduce and prefetch forms";
}

def PTX_MbarrierOp : PTX_InstrOp<"mbarrier"> {
  let summary = "mbarrier.* operations";
}

def PTX_Tcgen05Op : PTX_InstrOp<"tcgen05"> {
  let summary = "tcgen05.* operations";
}

def PTX_SetMaxNRegOp : PTX_InstrOp<"setmaxnreg"> {
  let summary = "setmaxnreg.inc/dec";
}

def PTX_MmaSyncOp : PTX_InstrOp<"mma_sync"> {
  let summary = "mma.sync and mma.sp (warp-level matrix multiply)";
}

def PTX_CpAsyncOp : PTX_InstrOp<"cp_async"> {
  let summary = "cp.async and its commit/wait/mbarrier.arrive";
}

def PTX_MatrixMoveOp : PTX_InstrOp<"matrix_move"> {
  let summary = "ldmatrix, stmatrix, movmatrix";
}

def PTX_CallOp : PTX_InstrOp<"call"> {
  let summary = "call (direct or indirect)";
}

class PTX_TerminatorOp<string mnemonic>
    : PTX_InstrOp<mnemonic, [Terminator]> {
  let arguments = instrArgs;
  let successors = (successor VariadicSuccessor<AnySuccessor>:$dests);
  let assemblyFormat = [{
    (`if` $guard^)? $opcode `(` $refs `)` $args `to` `[` $dests `]` attr-dict
  }];
}

def PTX_BraOp : PTX_TerminatorOp<"bra"> {
  let summary = "bra: the target, then the fallthrough block when guarded";
}

def PTX_BrxOp : PTX_TerminatorOp<"brx"> {
  let summary = "brx.idx: the table's targets, then the fallthrough when guarded";
}

def PTX_RetOp : PTX_TerminatorOp<"ret"> {
  let summary = "ret or exit: the fallthrough block when guarded";
}

def PTX_FallthroughOp : PTX_Op<"fallthrough", [Terminator]> {
  let summary = "falls through into the next (labelled) block; prints nothing";
  let successors = (successor VariadicSuccessor<AnySuccessor>:$dests);
  let assemblyFormat = "`[` $dests `]` attr-dict";
}

#endif // PTXBENCH_DIALECT_PTX_PTXOPS_TD
