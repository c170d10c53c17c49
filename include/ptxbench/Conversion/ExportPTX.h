//===- ExportPTX.h - The ptx dialect to PTX text ----------------*- C++ -*-===//
//
// Prints a ptx.module as PTX. Exporting an imported module gives PTX that
// ptxas assembles to the same cubin as the original.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CONVERSION_EXPORTPTX_H
#define PTXBENCH_CONVERSION_EXPORTPTX_H

#include "ptxbench/Dialect/PTX/PTX.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace ptxbench {

/// Writes `module` as PTX to `os`.
mlir::LogicalResult exportPTX(ptx::ModuleOp module, llvm::raw_ostream &os);

/// Exports the single ptx.module in `op` (a ptx.module or a builtin module
/// holding one); reports an error when there is none or several.
mlir::LogicalResult exportPTX(mlir::Operation *op, llvm::raw_ostream &os);

/// Registers `--export-ptx` with mlir-translate style tools.
void registerExportPTXTranslation();

} // namespace ptxbench

#endif // PTXBENCH_CONVERSION_EXPORTPTX_H
