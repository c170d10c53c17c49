//===- PTX.h - The ptx dialect ----------------------------------*- C++ -*-===//
//
// The ptx dialect: its types, attributes, interfaces and ops.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_PTX_H
#define PTXBENCH_DIALECT_PTX_PTX_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"

#include "ptxbench/Dialect/PTX/PTXOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ptxbench/Dialect/PTX/PTXOpsTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ptxbench/Dialect/PTX/PTXAttributes.h.inc"

#include "ptxbench/Dialect/PTX/PTXInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ptxbench/Dialect/PTX/PTXOps.h.inc"

namespace ptxbench::ptx {

/// The discardable attribute holding a statement's PTX text as written. The
/// importer keeps it for modules with debug line info, where ptxas embeds
/// the PTX text in the cubin; the exporter prints it in place of its own
/// spelling when both say the same thing.
constexpr llvm::StringLiteral kTextAttrName = "ptx.text";

/// Calls `fn` on every `#ptx.r` placeholder in `arg`, in order; nested
/// operands (addresses, vectors, lists, pairs) are walked depth first.
void walkRegOperands(mlir::Attribute arg,
                     llvm::function_ref<void(RegOperandAttr)> fn);

/// The number of `#ptx.r` placeholders in `args`.
unsigned countRegOperands(mlir::ArrayAttr args);

} // namespace ptxbench::ptx

#endif // PTXBENCH_DIALECT_PTX_PTX_H
