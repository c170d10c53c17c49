//===- AnalyzeCommand.cpp - ptxbench analyze ------------------------------===//
//
// `ptxbench analyze FILE [--arch sm_90a] [--require wgmma,tma,...] [--task T]
//  [--format text|json|sarif] [--sass] [-o OUT]`
//
// Does the kernel really use the requested architecture-specific
// instructions? FILE is PTX, CUDA C++ compiled with NVRTC (compile errors
// at their .cu lines), or a Triton submission compiled against --task's
// tensors (runtime::buildTriton; errors at their .py lines). The module is
// imported, analyzed
// (feature use and reachability, target checks, fallback patterns),
// assembled with nvJitLink (resources, ptxas's performance warnings) and,
// with --sass, checked in machine code. Exit status 0 when the analysis
// ran, whatever it found; 1 for bad input.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Conversion/ImportPTX.h"
#include "ptxbench/Report/BuildReport.h"
#include "ptxbench/Runtime/TritonPlan.h"
#include "ptxbench/Task/Task.h"
#include "ptxbench/Toolchain/CudaCompiler.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace ptxbench;

namespace {

enum class Format { Text, JSON, SARIF };

cl::SubCommand analyzeCmd("analyze", "Check a kernel's use of requested "
                                     "architecture-specific instructions");
cl::opt<std::string> input(cl::Positional, cl::Required,
                           cl::desc("<file.ptx|file.cu|file.py>"), cl::sub(analyzeCmd));
cl::opt<std::string>
    arch("arch",
         cl::desc("Target (sm_90a, sm_100a); default: the PTX's .target"),
         cl::sub(analyzeCmd));
cl::list<std::string> require("require", cl::CommaSeparated,
                              cl::desc("Requested feature families"),
                              cl::value_desc("wgmma,tma,..."),
                              cl::sub(analyzeCmd));
cl::opt<Format> format("format", cl::desc("Output format"),
                       cl::init(Format::Text),
                       cl::values(clEnumValN(Format::Text, "text", "for people"),
                                  clEnumValN(Format::JSON, "json", "for programs"),
                                  clEnumValN(Format::SARIF, "sarif",
                                             "SARIF 2.1.0, for editors and CI")),
                       cl::sub(analyzeCmd));
cl::opt<bool> sass("sass", cl::desc("Confirm families in machine code"),
                   cl::sub(analyzeCmd));
cl::opt<bool> noAssemble("no-assemble",
                         cl::desc("Skip nvJitLink (no resources or ptxas "
                                  "warnings)"),
                         cl::sub(analyzeCmd));
cl::opt<std::string>
    accumulate("accumulate",
               cl::desc("Accumulator precision the task requires: f32 flags "
                        "f16 accumulators of mma/wmma/wgmma (default: any)"),
               cl::init("any"), cl::value_desc("any|f32"),
               cl::sub(analyzeCmd));
cl::opt<std::string> output("o", cl::desc("Output file"), cl::init("-"),
                            cl::value_desc("file"), cl::sub(analyzeCmd));

cl::opt<double> compileTimeout(
    "compile-timeout",
    cl::desc("Seconds NVRTC may take to compile a .cu input (it runs in a "
             "child process, stopped past it)"),
    cl::init(60), cl::sub(analyzeCmd));

int fail(const Twine &message, int status = cli::ExitUsage) {
  return cli::fail("analyze", message, status);
}

cl::opt<std::string> task("task",
                          cl::desc("The task a Triton (.py) submission is "
                                   "compiled against (its tensors' types)"),
                          cl::value_desc("name|dir"), cl::sub(analyzeCmd));
cl::opt<std::string> tasksDir("tasks", cl::desc("The tasks folder"),
                              cl::value_desc("dir"), cl::init("tasks"),
                              cl::sub(analyzeCmd));

/// Reports a compile's outcome at the source's lines; false (after saying
/// `failure`) when it did not compile.
bool reportCompile(bool ok, bool timedOut,
                   ArrayRef<toolchain::CompilerMessage> messages,
                   StringRef log, const Twine &failure) {
  if (timedOut) {
    fail("COMPILE_TIMEOUT: " + log, cli::ExitFailed);
    return false;
  }
  for (const toolchain::CompilerMessage &message : messages)
    errs() << message.location() << ": "
           << (message.error ? "error: " : "warning: ") << message.text
           << "\n";
  if (ok)
    return true;
  if (messages.empty())
    errs() << log << "\n";
  fail(failure, cli::ExitFailed);
  return false;
}

/// A Triton submission compiled against --task. Returns false after
/// reporting why it did not compile.
bool loadTriton(const MemoryBuffer &file, std::string &ptx) {
  if (task.empty()) {
    fail("a Triton submission needs --task (its kernel's signature comes "
         "from the task's tensors)");
    return false;
  }
  auto loaded = runtime::loadTask(cli::resolveTaskPath(task, tasksDir));
  if (!loaded) {
    fail(toString(loaded.takeError()));
    return false;
  }
  toolchain::TritonLimits limits;
  limits.helper = sys::fs::getMainExecutable(nullptr, nullptr);
  limits.seconds = compileTimeout;
  runtime::TritonBuild build =
      runtime::buildTriton(file.getBuffer(), input, arch, *loaded, limits);
  if (!build.planError.empty()) {
    errs() << build.planError << "\n";
    fail("PLAN_ERROR: the launch plan of '" + input + "' does not fit",
         cli::ExitFailed);
    return false;
  }
  const toolchain::CompiledTriton &c = build.compiled;
  bool refused = c.stage == toolchain::TritonStage::Gate ||
                 c.stage == toolchain::TritonStage::Refused;
  if (!reportCompile(c.ok, c.timedOut, c.messages, c.log,
                     "'" + input + "' " +
                         (refused ? "is refused (" +
                                        tritonStageName(c.stage).str() + ")"
                                  : std::string("does not compile")) +
                         " for " + arch))
    return false;
  ptx = c.ptx;
  return true;
}

/// The PTX to analyze: the file itself, or NVRTC's output for a .cu file,
/// or Triton's for a .py file. Returns false after reporting compile errors
/// at their source lines.
bool loadPTX(const MemoryBuffer &file, std::string &ptx) {
  if (runtime::isTritonSource(input))
    return loadTriton(file, ptx);
  if (!StringRef(input).ends_with(".cu")) {
    ptx = file.getBuffer().str();
    return true;
  }
  toolchain::CompileLimits limits;
  limits.helper = sys::fs::getMainExecutable(nullptr, nullptr);
  limits.seconds = compileTimeout;
  toolchain::CompiledSource compiled =
      toolchain::compileCUDA(file.getBuffer(), input, arch, limits);
  if (!reportCompile(compiled.ok, compiled.timedOut, compiled.messages,
                     compiled.log,
                     "'" + input + "' does not compile for " + arch))
    return false;
  ptx = std::move(compiled.ptx);
  return true;
}

int runAnalyze() {
  std::string errorMessage;
  std::unique_ptr<MemoryBuffer> file = mlir::openInputFile(input, &errorMessage);
  if (!file)
    return fail(errorMessage);
  std::string unknown;
  report::AnalyzeOptions options;
  for (const std::string &name : require) {
    std::optional<report::Requirement> requirement =
        report::parseRequirement(name);
    if (!requirement)
      return fail("unknown feature family " +
                  Twine(StringRef(name).contains('|') ? "in " : "") + "'" +
                  name + "' in --require (docs/isa-coverage.md lists them)");
    options.requested.push_back(std::move(*requirement));
  }
  if (!arch.empty())
    if (Error e = toolchain::checkTargetName(arch))
      return fail("--arch: " + toString(std::move(e)));
  if (StringRef(input).ends_with(".cu") && arch.empty())
    return fail("--arch is needed to compile CUDA C++");
  if (runtime::isTritonSource(input) && arch.empty())
    return fail("--arch is needed to compile Triton");
  std::string ptx;
  if (!loadPTX(*file, ptx))
    return cli::ExitFailed;

  // Import: errors are the user's, at file:line:col of the PTX.
  std::string ptxName = StringRef(input).ends_with(".cu") ||
                                runtime::isTritonSource(input)
                            ? input + ".ptx"
                            : std::string(input);
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(MemoryBuffer::getMemBuffer(ptx, ptxName),
                               SMLoc());
  // Single-threaded: with threading on, every attribute and location the
  // importer creates takes the uniquer's locks, and parallel verification
  // does not win that back (docs/performance.md).
  mlir::MLIRContext context;
  context.disableMultithreading();
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<ptx::ModuleOp> module = importPTX(sourceMgr, &context);
  if (!module)
    return cli::ExitFailed;

  options.arch =
      arch.empty()
          ? llvm::cast<mlir::StringAttr>(module->getTarget()[0]).str()
          : std::string(arch);
  if (arch.empty())
    if (Error e = toolchain::checkTargetName(options.arch))
      return fail(input + ": its .target: " + toString(std::move(e)),
                  cli::ExitFailed);
  options.assemble = !noAssemble;
  options.sass = sass;
  if (accumulate != "any" && accumulate != "f32")
    return fail("--accumulate must be 'any' or 'f32', not '" + accumulate +
                "'");
  options.f32Accumulate = accumulate == "f32";
  report::AnalysisReport result =
      report::buildReport(*module, ptx, ptxName, options);

  std::unique_ptr<ToolOutputFile> out =
      mlir::openOutputFile(output, &errorMessage);
  if (!out)
    return fail(errorMessage);
  switch (format) {
  case Format::Text:
    report::printText(result, out->os(),
                      output == "-" && sys::Process::StandardOutHasColors());
    break;
  case Format::JSON:
    out->os() << formatv("{0:2}", report::toJSON(result)) << "\n";
    break;
  case Format::SARIF:
    out->os() << formatv("{0:2}", report::toSARIF(result)) << "\n";
    break;
  }
  out->keep();
  // ptxas refused the module: the analysis stands, the kernel does not.
  return result.assemblyNote.rfind("ptxas rejected", 0) == 0 ? cli::ExitFailed
                                                             : cli::ExitDone;
}

} // namespace

cli::Command cli::analyzeCommand() { return {analyzeCmd, runAnalyze}; }
