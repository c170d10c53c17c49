//===- CountedCopy.cpp - The submission instrumented for credit -----------===//
//
// Alternatives of a requirement ("bulk_copy|tma") are counted family by
// family; the control block's name is drawn from std::random_device per
// run, so a submission cannot write to it by name.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Run/CountedCopy.h"

#include "ptxbench/Analysis/FeatureAnalysis.h"
#include "ptxbench/Analysis/Reachability.h"
#include "ptxbench/Conversion/ExportPTX.h"
#include "ptxbench/Conversion/ImportPTX.h"
#include "ptxbench/Dialect/PTX/Transforms/Passes.h"
#include "ptxbench/ISA/ISA.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

using namespace llvm;
using namespace ptxbench;

namespace {

/// Collects the errors `context` reports while it lives, "; "-separated.
struct ErrorCollector : mlir::ScopedDiagnosticHandler {
  ErrorCollector(mlir::MLIRContext &context, std::string &into)
      : ScopedDiagnosticHandler(&context, [&into](mlir::Diagnostic &d) {
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
            into += d.str() + "; ";
          return mlir::success();
        }) {}
};

} // namespace

mlir::OwningOpRef<ptx::ModuleOp>
run::importSubmission(StringRef ptx, StringRef name, mlir::MLIRContext &context,
                      std::string &diagnostics) {
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(ptx, name),
                               SMLoc());
  context.disableMultithreading();
  ErrorCollector errors(context, diagnostics);
  return importPTX(sourceMgr, &context);
}

run::CountedCopy run::instrumentSubmission(const runtime::Task &task,
                                           StringRef ptx, StringRef arch,
                                           StringRef name) {
  CountedCopy result;
  auto it = task.features.find(arch.str());
  if (it == task.features.end() || it->second.empty()) {
    result.note = ("the task requests no features for " + arch).str();
    return result;
  }
  for (const std::string &f : it->second) {
    std::optional<SmallVector<isa::Family, 2>> families =
        isa::familiesOfRequirement(f);
    if (!families) {
      result.note += "unknown family '" + f + "' in the task; ";
      continue;
    }
    for (isa::Family family : *families)
      if (!is_contained(result.families, isa::familyName(family).str()))
        result.families.push_back(isa::familyName(family).str());
  }
  if (result.families.empty())
    return result;
  mlir::MLIRContext context;
  std::string diagnostics;
  mlir::OwningOpRef<ptx::ModuleOp> module =
      importSubmission(ptx, name, context, diagnostics);
  if (!module) {
    result.note += "the submission's PTX does not import: " + diagnostics;
    return result;
  }
  ErrorCollector errors(context, diagnostics);
  {
    analysis::Reachability reachability(*module);
    analysis::FeatureAnalysis features(*module, reachability);
    for (const std::string &family : result.families) {
      isa::Family f = *isa::familyByName(family);
      int64_t n = 0;
      for (const auto &kernel : features.kernels())
        if (const analysis::FamilyUse *use = kernel.features.find(f))
          n += use->reachable();
      result.inCode[family] = n;
    }
  }
  mlir::PassManager pm(&context, ptx::ModuleOp::getOperationName());
  ptx::InstrumentFeaturesPassOptions passOptions;
  passOptions.families.assign(result.families.begin(), result.families.end());
  passOptions.work = true;
  passOptions.knockout = true;
  std::random_device random;
  result.control =
      formatv("__ptxbench_control_{0:x-8}{1:x-8}", random(), random()).str();
  passOptions.control = result.control;
  pm.addPass(ptx::createInstrumentFeaturesPass(passOptions));
  if (mlir::failed(pm.run(*module))) {
    result.note += "instrumentation failed: " + diagnostics;
    return result;
  }
  std::string text;
  raw_string_ostream os(text);
  if (mlir::failed(exportPTX(*module, os))) {
    result.note += "the instrumented module does not export";
    return result;
  }
  result.ptx = std::move(text);
  return result;
}
