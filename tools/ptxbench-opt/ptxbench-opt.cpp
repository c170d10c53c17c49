//===- ptxbench-opt.cpp - Passes over the ptx dialect ---------------------===//
//
// mlir-opt for ptxbench: reads a .ptx file (imported directly) or a .mlir
// file, runs a pass pipeline, and writes MLIR or, with --emit=ptx, PTX.
// Supports --split-input-file and --verify-diagnostics, so lit tests check
// importer errors on PTX files themselves; --mlir-timing (the import and
// every pass) and --verify-roundtrip (the result printed and parsed back,
// generic and custom form, and exported to PTX and imported back, must
// print the same) as mlir-opt offers them.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Conversion/ExportPTX.h"
#include "ptxbench/Conversion/ImportPTX.h"
#include "ptxbench/Dialect/PTX/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace llvm;

namespace {

enum class Emit { MLIR, PTX };
enum class InputKind { Auto, PTX, MLIR };

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input file>"),
                                   cl::init("-"));
cl::opt<std::string> outputFilename("o", cl::desc("Output filename"),
                                    cl::value_desc("filename"), cl::init("-"));
cl::opt<Emit> emit("emit", cl::desc("What to write"), cl::init(Emit::MLIR),
                   cl::values(clEnumValN(Emit::MLIR, "mlir", "the ptx dialect"),
                              clEnumValN(Emit::PTX, "ptx", "PTX text")));
cl::opt<InputKind>
    inputKind("x",
              cl::desc("Input language (default: by extension or contents)"),
              cl::init(InputKind::Auto),
              cl::values(clEnumValN(InputKind::PTX, "ptx", "PTX text"),
                         clEnumValN(InputKind::MLIR, "mlir", "MLIR")));
cl::opt<bool> splitInputFile("split-input-file",
                             cl::desc("Process chunks split by '// -----'"));
cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check diagnostics against expected-* comments"));
cl::opt<bool> verifyRoundtrip(
    "verify-roundtrip",
    cl::desc("Check that the result prints and parses back to the same IR "
             "(generic and custom form) and that its PTX imports back to it"));

/// Whether `buffer` is PTX: the file is named .ptx, or its first token is a
/// PTX directive.
bool isPTX(StringRef name, StringRef buffer) {
  if (inputKind != InputKind::Auto)
    return inputKind == InputKind::PTX;
  if (name.ends_with(".ptx"))
    return true;
  if (name.ends_with(".mlir"))
    return false;
  // Skip blank lines and comments.
  while (!buffer.empty()) {
    buffer = buffer.ltrim();
    if (buffer.starts_with("//")) {
      buffer = buffer.drop_until([](char c) { return c == '\n'; });
      continue;
    }
    break;
  }
  return buffer.starts_with(".version");
}

/// `op` printed without locations, in the generic form or the custom one.
std::string printed(Operation *op, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  op->print(os, flags);
  return text;
}

/// Whether `got` equals `expected`; if not, an error at `op` naming the
/// round trip `how` with the first differing line of each as notes.
LogicalResult sameText(Operation *op, StringRef how, StringRef expected,
                       StringRef got) {
  if (got == expected)
    return success();
  SmallVector<StringRef> a, b;
  expected.split(a, '\n');
  got.split(b, '\n');
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    ++i;
  InFlightDiagnostic d = op->emitError() << "round trip through " << how
                                         << " changed line " << (i + 1);
  d.attachNote() << "before: " << (i < a.size() ? a[i].trim() : "(end)");
  d.attachNote() << "after:  " << (i < b.size() ? b[i].trim() : "(end)");
  return failure();
}

/// The round trips of --verify-roundtrip: the IR printed (generic and
/// custom form) and parsed back must print the same; a ptx.module's PTX
/// imported back must export the same PTX (the source file's name and
/// locations are the importer's, so the IR itself is not compared).
LogicalResult checkRoundtrip(Operation *op, TimingScope &timing) {
  TimingScope scope = timing.nest("verify round trip");
  MLIRContext *context = op->getContext();
  for (bool generic : {true, false}) {
    std::string text = printed(op, generic);
    OwningOpRef<Operation *> back =
        parseSourceString(text, ParserConfig(context));
    if (!back)
      return op->emitError() << "the " << (generic ? "generic" : "custom")
                             << " form of the result does not parse back";
    if (failed(sameText(op, generic ? "the generic form" : "the custom form",
                        text, printed(back.get(), generic))))
      return failure();
  }
  if (!isa<ptxbench::ptx::ModuleOp>(op))
    return success();
  std::string ptx, again;
  llvm::raw_string_ostream os(ptx), osAgain(again);
  if (failed(ptxbench::exportPTX(op, os)))
    return failure();
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(ptx, "exported.ptx"), SMLoc());
  OwningOpRef<ptxbench::ptx::ModuleOp> back =
      ptxbench::importPTX(sourceMgr, context);
  if (!back)
    return op->emitError() << "the exported PTX does not import back";
  if (failed(ptxbench::exportPTX(*back, osAgain)))
    return failure();
  return sameText(op, "PTX", ptx, again);
}

LogicalResult processBuffer(std::unique_ptr<MemoryBuffer> buffer,
                            raw_ostream &os, PassPipelineCLParser &pipeline) {
  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();
  MLIRContext context;
  context.loadDialect<ptxbench::ptx::PTXDialect>();
  // Expected diagnostics are written without the op dump mlir-opt appends.
  if (verifyDiagnostics)
    context.printOpOnDiagnostic(false);
  context.allowUnregisteredDialects(false);
  bool ptxInput = isPTX(inputFilename, buffer->getBuffer());

  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), SMLoc());

  auto run = [&]() -> LogicalResult {
    OwningOpRef<Operation *> op;
    {
      TimingScope read = timing.nest(ptxInput ? "import PTX" : "parse MLIR");
      if (ptxInput) {
        OwningOpRef<ptxbench::ptx::ModuleOp> module =
            ptxbench::importPTX(sourceMgr, &context);
        if (!module)
          return failure();
        op = OwningOpRef<Operation *>(module.release().getOperation());
      } else {
        op = parseSourceFile(sourceMgr, &context);
        if (!op)
          return failure();
      }
    }
    PassManager pm(&context, op.get()->getName().getStringRef());
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(timing);
    auto errorHandler = [&](const Twine &msg) {
      emitError(UnknownLoc::get(&context)) << msg;
      return failure();
    };
    if (failed(pipeline.addToPipeline(pm, errorHandler)) ||
        failed(pm.run(op.get())))
      return failure();
    if (verifyRoundtrip && failed(checkRoundtrip(op.get(), timing)))
      return failure();
    TimingScope write = timing.nest("output");
    if (emit == Emit::PTX)
      return ptxbench::exportPTX(op.get(), os);
    op.get()->print(os);
    os << '\n';
    return success();
  };

  if (!verifyDiagnostics) {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    return run();
  }
  // Under --verify-diagnostics a failure is expected; the handler decides.
  SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
  (void)run();
  return handler.verify();
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  ptxbench::ptx::registerPTXPasses();
  PassPipelineCLParser pipeline("", "Passes to run");
  cl::ParseCommandLineOptions(argc, argv, "ptxbench analysis driver\n");

  std::string errorMessage;
  std::unique_ptr<MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    errs() << errorMessage << "\n";
    return 1;
  }
  auto chunkFn = [&](std::unique_ptr<MemoryBuffer> chunk, raw_ostream &os) {
    return processBuffer(std::move(chunk), os, pipeline);
  };
  if (failed(splitAndProcessBuffer(std::move(input), chunkFn, output->os(),
                                   splitInputFile ? kDefaultSplitMarker : "",
                                   kDefaultSplitMarker)))
    return 1;
  output->keep();
  return 0;
}
