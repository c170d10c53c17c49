//===- SummaryCommand.cpp - ptxbench summary ------------------------------===//
//
// `ptxbench summary FILE.ptx [--export OUT.ptx]` imports a PTX module, prints
// its kernels with their instruction counts and the feature families they
// use (architecture-specific ones apart), and optionally exports it back.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Conversion/ExportPTX.h"
#include "ptxbench/Conversion/ImportPTX.h"
#include "ptxbench/ISA/ISA.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <array>

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand summaryCmd("summary",
                          "Import a PTX module and summarize its kernels");
cl::opt<std::string> summaryInput(cl::Positional, cl::Required,
                                  cl::desc("<file.ptx>"), cl::sub(summaryCmd));
cl::opt<std::string> summaryExport(
    "export", cl::desc("Also export the imported module as PTX to this file"),
    cl::value_desc("file"), cl::sub(summaryCmd));

/// Instruction counts per family for one function.
struct FunctionSummary {
  std::string name;
  bool entry = false;
  unsigned instructions = 0;
  std::array<unsigned, isa::numFamilies()> families{};
};

FunctionSummary summarize(ptx::FuncOp func) {
  FunctionSummary summary;
  summary.name = func.getSymName().str();
  summary.entry = func.getEntry();
  func.walk([&](ptx::InstructionOpInterface inst) {
    ++summary.instructions;
    if (const isa::InstrInfo *info = isa::lookup(inst.getOpcode()))
      ++summary.families[static_cast<unsigned>(info->family)];
  });
  return summary;
}

void printSummary(ptx::ModuleOp module, raw_ostream &os) {
  os << "PTX " << module.getVersion() << ", target "
     << llvm::join(module.getTarget().getAsValueRange<mlir::StringAttr>(), ", ")
     << "\n";
  for (ptx::FuncOp func : module.getBody()->getOps<ptx::FuncOp>()) {
    if (func.isExternal())
      continue;
    FunctionSummary summary = summarize(func);
    os << (summary.entry ? "kernel " : "function ") << summary.name << ": "
       << summary.instructions << " instructions\n";
    std::string archSpecific, generic;
    for (unsigned i = 0; i < isa::numFamilies(); ++i) {
      if (!summary.families[i])
        continue;
      auto family = static_cast<isa::Family>(i);
      std::string entry =
          (isa::familyName(family) + "=" + Twine(summary.families[i])).str();
      std::string &list =
          isa::isArchSpecificFamily(family) ? archSpecific : generic;
      list += (list.empty() ? "" : " ") + entry;
    }
    os << "  architecture-specific: "
       << (archSpecific.empty() ? "none" : archSpecific) << "\n";
    os << "  generic: " << (generic.empty() ? "none" : generic) << "\n";
  }
}

int runSummary() {
  std::string errorMessage;
  std::unique_ptr<MemoryBuffer> input =
      mlir::openInputFile(summaryInput, &errorMessage);
  if (!input)
    return cli::fail("summary", errorMessage);
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  mlir::MLIRContext context;
  context.disableMultithreading();
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<ptx::ModuleOp> module = importPTX(sourceMgr, &context);
  if (!module)
    return cli::ExitFailed;
  printSummary(*module, outs());
  if (summaryExport.empty())
    return 0;
  std::unique_ptr<ToolOutputFile> output =
      mlir::openOutputFile(summaryExport, &errorMessage);
  if (!output)
    return cli::fail("summary", errorMessage);
  if (mlir::failed(exportPTX(*module, output->os())))
    return cli::ExitFailed;
  output->keep();
  outs() << "exported to " << summaryExport << "\n";
  return 0;
}

} // namespace

cli::Command cli::summaryCommand() { return {summaryCmd, runSummary}; }
