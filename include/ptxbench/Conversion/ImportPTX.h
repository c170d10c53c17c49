//===- ImportPTX.h - PTX text to the ptx dialect ----------------*- C++ -*-===//
//
// Parses a PTX module into a ptx.module. Errors are reported through the
// context's diagnostic engine at `file:line:col` of the PTX text.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CONVERSION_IMPORTPTX_H
#define PTXBENCH_CONVERSION_IMPORTPTX_H

#include "ptxbench/Dialect/PTX/PTX.h"

#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace ptxbench {

/// Imports the main buffer of `sourceMgr` as a PTX module; null on error.
/// The result is verified.
mlir::OwningOpRef<ptx::ModuleOp> importPTX(llvm::SourceMgr &sourceMgr,
                                           mlir::MLIRContext *context);

/// Registers `--import-ptx` with mlir-translate style tools.
void registerImportPTXTranslation();

} // namespace ptxbench

#endif // PTXBENCH_CONVERSION_IMPORTPTX_H
