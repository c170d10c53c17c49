//===- ptx-import-fuzzer.cpp - libFuzzer target: PTX text to ptx ----------===//
//
// The importer as `ptxbench analyze`, `run`, `summary` and eval call it
// (importPTX: parse, then verify) on arbitrary bytes. Besides crashes,
// hangs and leaks it checks what the importer promises: every error is
// located (a FileLineColLoc into the text, or a fused one), an imported
// module exports, and the export imports again and exports to the same
// text (the printer is a fixed point, as the round-trip tests assume).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Conversion/ExportPTX.h"
#include "ptxbench/Conversion/ImportPTX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace ptxbench;

namespace {

/// Stops the run with `what` and the texts involved.
[[noreturn]] void broken(const char *what, llvm::StringRef detail) {
  fprintf(stderr, "ptx-import-fuzzer: %s\n%.*s\n", what, int(detail.size()),
          detail.data());
  abort();
}

/// Imports `text`; on success returns true with the export in `exported`.
/// Every error must carry a place in the text.
bool importAndExport(llvm::StringRef text, std::string &exported) {
  mlir::MLIRContext context;
  context.disableMultithreading();
  std::string unlocated;
  context.getDiagEngine().registerHandler([&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error &&
        !llvm::isa<mlir::FileLineColLoc, mlir::FusedLoc>(diag.getLocation()))
      unlocated = diag.str();
    return mlir::success();
  });
  // A copy, NUL-terminated as every buffer the tools hand over is.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.ptx"), llvm::SMLoc());
  mlir::OwningOpRef<ptx::ModuleOp> module = importPTX(sourceMgr, &context);
  if (!unlocated.empty())
    broken("an import error without a place", unlocated);
  if (!module)
    return false;
  llvm::raw_string_ostream os(exported);
  if (mlir::failed(exportPTX(*module, os)))
    broken("an imported module does not export", text);
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::string first;
  if (!importAndExport(text, first))
    return 0;
  std::string second;
  if (!importAndExport(first, second))
    broken("the export of an imported module does not import", first);
  if (first != second)
    broken("export is not a fixed point; the first export is",
           first + "\n---- and the second ----\n" + second);
  return 0;
}
