//===- ptxbench-translate.cpp - PTX <-> ptx dialect -----------------------===//
//
// `--import-ptx in.ptx -o out.mlir` and `--export-ptx in.mlir -o out.ptx`.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Conversion/ExportPTX.h"
#include "ptxbench/Conversion/ImportPTX.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  ptxbench::registerImportPTXTranslation();
  ptxbench::registerExportPTXTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "ptxbench PTX translation tool"));
}
