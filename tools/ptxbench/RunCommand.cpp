//===- RunCommand.cpp - ptxbench run --------------------------------------===//
//
// `ptxbench run --task tasks/<name> --solution FILE [--arch A]
// [--shapes dev|heldout|all|WORKLOAD] [--json out.json]` compiles the
// submission (NVRTC, no GPU needed) and checks its launch plan against the
// task and the compiled module (every mistake at once, no GPU needed), then
// runs it in supervised worker processes: check against the reference, time
// against the baseline library. Prints a readable summary and optionally
// writes the same as JSON.
//
// Exit status: 0 every workload passed; 1 some workload failed; 2 a usage
// or task-file error; 3 no CUDA driver/GPU available.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "RunSanitize.h"

#include "ptxbench/Analysis/FeatureAnalysis.h"
#include "ptxbench/Analysis/Reachability.h"
#include "ptxbench/Conversion/ExportPTX.h"
#include "ptxbench/Conversion/ImportPTX.h"
#include "ptxbench/Dialect/PTX/Transforms/Passes.h"
#include "ptxbench/Eval/ModuleKernels.h"
#include "ptxbench/Reference/PythonReference.h"
#include "ptxbench/Support/Python.h"
#include "ptxbench/Toolchain/Assembler.h"
#include "ptxbench/Toolchain/CudaCompiler.h"

#include "ptxbench/Runtime/Containment.h"
#include "ptxbench/Runtime/Harness.h"
#include "ptxbench/Runtime/HarnessCache.h"
#include "ptxbench/Runtime/PlanCheck.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Runtime/TritonPlan.h"
#include "ptxbench/Runtime/Worker.h"
#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Task/Task.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <random>

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::runtime;

namespace {

cl::SubCommand runCmd("run", "Check and time a submission on the GPU");
cl::opt<std::string> runTask("task",
                             cl::desc("Task: a name under --tasks, a folder "
                                      "or a task.json"),
                             cl::value_desc("name|dir"), cl::Required,
                             cl::sub(runCmd));
cl::opt<std::string> runTasksDir("tasks", cl::desc("The tasks folder"),
                                 cl::value_desc("dir"), cl::init("tasks"),
                                 cl::sub(runCmd));
cl::opt<std::string> runSolution("solution",
                                 cl::desc("The submission (.cu, .ptx or a "
                                          "Triton .py) with its launch plan"),
                                 cl::value_desc("file"), cl::Required,
                                 cl::sub(runCmd));
cl::opt<std::string>
    runArch("arch",
            cl::desc("Target architecture to compile for (default: the GPU's; "
                     "sm_90a without one)"),
            cl::sub(runCmd));
cl::opt<std::string>
    runShapes("shapes",
              cl::desc("Workloads: dev, heldout, all or one workload's name"),
              cl::init("dev"), cl::sub(runCmd));
cl::opt<std::string> runJson("json", cl::desc("Also write the result as JSON"),
                             cl::value_desc("file"), cl::sub(runCmd));
cl::opt<uint64_t> runSeed("seed",
                          cl::desc("Input seed (default: a fresh one per "
                                   "run; printed for reproduction)"),
                          cl::init(0), cl::sub(runCmd));
cl::opt<double> runTimeout("timeout",
                           cl::desc("Seconds a worker may go without "
                                    "progress before it is killed"),
                           cl::init(60), cl::sub(runCmd));
cl::opt<double> runCompileTimeout(
    "compile-timeout",
    cl::desc("Seconds NVRTC, and the driver's PTX JIT, may take to compile "
             "the submission (COMPILE_TIMEOUT past it)"),
    cl::init(60), cl::sub(runCmd));
cl::opt<bool> runNoBaseline("no-baseline",
                            cl::desc("Do not time the baseline library"),
                            cl::sub(runCmd));
cl::opt<bool> runNoCounts("no-feature-counts",
                          cl::desc("Do not run the instrumented variant that "
                                   "counts executed feature instructions"),
                          cl::sub(runCmd));
cl::opt<bool> runRemeasure("remeasure-peaks",
                           cl::desc("Measure the card's speed of light again "
                                    "instead of reading the cached figure"),
                           cl::sub(runCmd));
cl::opt<bool> runSanitize(
    "sanitize",
    cl::desc("Also run the checked trials of the smallest workload under "
             "compute-sanitizer (memcheck, racecheck, synccheck) and record "
             "its findings"),
    cl::sub(runCmd));
cl::opt<double> runSanitizeTimeout(
    "sanitize-timeout",
    cl::desc("Seconds each compute-sanitizer tool may run with --sanitize "
             "before it is stopped (default 120)"),
    cl::init(120), cl::sub(runCmd));
cl::opt<bool> runCacheReferences(
    "cache-references",
    cl::desc("With --seed: keep each input set's reference outputs (and "
             "derived inputs) in the harness cache and reuse them in later "
             "runs of the same task, workload and seed (a sweep's "
             "submissions)"),
    cl::sub(runCmd));
cl::opt<bool> runReuseBaseline(
    "reuse-baseline",
    cl::desc("With --seed: reuse the library baseline's time and checks "
             "kept by a run of the same task, workload and seed on this "
             "card in the last ten minutes (a sweep's submissions)"),
    cl::sub(runCmd));
cl::opt<std::string> runTaskKey("task-key", cl::Hidden, cl::sub(runCmd));
cl::opt<std::string> runGpuLock(
    "gpu-lock",
    cl::desc("A lock file the worker holds while it uses the GPU, so runs "
             "that share a GPU overlap only in their CPU part (eval passes "
             "one per GPU)"),
    cl::value_desc("file"), cl::sub(runCmd));
cl::opt<bool> runVerbose("verbose",
                          cl::desc("Also print where the run's time went "
                                   "(compile, set-up, inputs, references, "
                                   "checks, timing, counted run, baseline) "
                                   "and how a Triton kernel is launched"),
                          cl::sub(runCmd));
cl::opt<bool> runCheckOnly("check-only",
                           cl::desc("(internal) the checked trials only"),
                           cl::Hidden, cl::sub(runCmd));
cl::opt<std::string> runCountPtx("count-ptx", cl::Hidden, cl::sub(runCmd));
cl::opt<std::string> runCountControl("count-control", cl::Hidden,
                                     cl::sub(runCmd));
cl::opt<std::string> runPtx("ptx",
                            cl::desc("(internal) the submission compiled to "
                                     "PTX by the parent"),
                            cl::Hidden, cl::sub(runCmd));
cl::opt<std::string> runCompiledPtx(
    "compiled-ptx",
    cl::desc("(internal) the .cu solution as NVRTC already compiled it for "
             "--arch (eval's static stage), used instead of compiling again"),
    cl::Hidden, cl::sub(runCmd));
cl::opt<std::string> runCubin("cubin", cl::Hidden, cl::sub(runCmd));
cl::opt<std::string> runTritonBuild(
    "triton-build",
    cl::desc("(internal) a Triton kernel's compile metadata (JSON): with "
             "--compiled-ptx, used instead of compiling the .py again"),
    cl::Hidden, cl::sub(runCmd));
cl::opt<std::string> runSaveCompiled(
    "save-compiled",
    cl::desc("Also write the compiled PTX to PREFIX.ptx (and a Triton "
             "kernel's metadata to PREFIX.triton.json), for a later run on "
             "a host without the compiler: --compiled-ptx, --triton-build"),
    cl::value_desc("prefix"), cl::sub(runCmd));
cl::opt<std::string> runCountCubin("count-cubin", cl::Hidden,
                                   cl::sub(runCmd));
cl::list<std::string> runCountFamilies("count-families", cl::Hidden,
                                       cl::CommaSeparated, cl::sub(runCmd));
cl::opt<bool> runWorkerMode("worker", cl::desc("(internal) run as a worker"),
                            cl::Hidden, cl::sub(runCmd));
cl::opt<unsigned> runFirst("first-workload", cl::Hidden, cl::init(0),
                           cl::sub(runCmd));
cl::opt<int> runResultFd("result-fd", cl::Hidden, cl::init(1), cl::sub(runCmd));

/// A temporary file removed when it goes out of scope.
struct TempPath {
  std::string path;
  bool create(StringRef text, StringRef suffix = "ptx") {
    SmallString<128> p;
    int fd;
    if (sys::fs::createTemporaryFile("ptxbench-submission", suffix, fd, p))
      return false;
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << text;
    path = std::string(p);
    return !os.has_error();
  }
  ~TempPath() {
    if (!path.empty())
      sys::fs::remove(path);
  }
};

int writeJson(const Task &task, RunResult run) {
  markSplits(task, run);
  if (runJson.empty())
    return 0;
  std::error_code ec;
  raw_fd_ostream os(runJson, ec);
  if (ec) {
    errs() << "ptxbench: cannot write " << runJson << ": " << ec.message()
           << "\n";
    return 2;
  }
  os << formatv("{0:2}", toJSON(run)) << "\n";
  return 0;
}

/// The submission instrumented for run-time feature counts and knockouts.
struct Instrumented {
  std::string path; // temporary .ptx; empty when not instrumented
  /// The control block's name: random, so no submission can know it.
  std::string control;
  std::vector<std::string> families;
  /// Reachable instructions of each family in the submission.
  std::map<std::string, int64_t> inCode;
  std::string note; // why there are no counts
};

/// Collects the errors `context` reports while it lives, "; "-separated.
struct ErrorCollector : mlir::ScopedDiagnosticHandler {
  ErrorCollector(mlir::MLIRContext &context, std::string &into)
      : ScopedDiagnosticHandler(&context, [&into](mlir::Diagnostic &d) {
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
            into += d.str() + "; ";
          return mlir::success();
        }) {}
};

/// The submission's PTX imported, with the importer's errors in
/// `diagnostics`; null when it does not import.
mlir::OwningOpRef<ptx::ModuleOp> importSubmission(StringRef ptx,
                                                  mlir::MLIRContext &context,
                                                  std::string &diagnostics) {
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(ptx, sys::path::filename(runSolution)),
      SMLoc());
  context.disableMultithreading();
  ErrorCollector errors(context, diagnostics);
  return importPTX(sourceMgr, &context);
}

/// Counts the requested families in the submission's PTX for `arch`
/// (FeatureAnalysis, reachable instructions), runs
/// --ptx-instrument-features and writes the result to a temporary file.
Instrumented instrumentSubmission(const Task &task, StringRef ptx,
                                  StringRef arch) {
  Instrumented result;
  auto it = task.features.find(arch.str());
  if (it == task.features.end() || it->second.empty()) {
    result.note = ("the task requests no features for " + arch).str();
    return result;
  }
  // Alternatives ("bulk_copy|tma") are counted family by family.
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
      importSubmission(ptx, context, diagnostics);
  if (!module) {
    result.note += "the submission's PTX does not import: " + diagnostics;
    return result;
  }
  ErrorCollector errors(context, diagnostics);
  {
    analysis::Reachability reachability(*module);
    analysis::FeatureAnalysis features(*module, reachability);
    for (const std::string &name : result.families) {
      isa::Family family = *isa::familyByName(name);
      int64_t n = 0;
      for (const auto &kernel : features.kernels())
        if (const analysis::FamilyUse *use = kernel.features.find(family))
          n += use->reachable();
      result.inCode[name] = n;
    }
  }
  mlir::PassManager pm(&context, ptx::ModuleOp::getOperationName());
  ptx::InstrumentFeaturesPassOptions passOptions;
  passOptions.families.assign(result.families.begin(), result.families.end());
  passOptions.work = true;
  passOptions.knockout = true;
  std::random_device random;
  result.control = formatv("__ptxbench_control_{0:x-8}{1:x-8}", random(),
                           random())
                       .str();
  passOptions.control = result.control;
  pm.addPass(ptx::createInstrumentFeaturesPass(passOptions));
  if (mlir::failed(pm.run(*module))) {
    result.note += "instrumentation failed: " + diagnostics;
    return result;
  }
  SmallString<128> path;
  int fd;
  if (sys::fs::createTemporaryFile("ptxbench-counted", "ptx", fd, path)) {
    result.note += "cannot create a temporary file";
    return result;
  }
  raw_fd_ostream os(fd, /*shouldClose=*/true);
  if (mlir::failed(exportPTX(*module, os))) {
    result.note += "the instrumented module does not export";
    return result;
  }
  result.path = std::string(path);
  return result;
}

int runRun() {
  // A bare name means TASKS/NAME; the worker is given the path.
  std::string taskPath = cli::resolveTaskPath(runTask, runTasksDir);
  auto task = loadTask(taskPath);
  if (!task) {
    errs() << "ptxbench: " << toString(task.takeError()) << "\n";
    return 2;
  }
  auto workloads = selectWorkloads(*task, runShapes);
  if (!workloads) {
    errs() << "ptxbench: " << toString(workloads.takeError()) << "\n";
    return 2;
  }
  auto buffer = MemoryBuffer::getFile(runSolution);
  if (!buffer) {
    errs() << "ptxbench: cannot read " << runSolution << ": "
           << buffer.getError().message() << "\n";
    return 2;
  }
  StringRef source = (*buffer)->getBuffer();

  if (runWorkerMode) {
    auto plan = submissionPlan(source, runSolution, *task, runTritonBuild);
    if (!plan) {
      consumeError(plan.takeError());
      return 2; // the parent checked it already
    }
    WorkerOptions options;
    options.solutionPath = runSolution;
    options.seed = runSeed;
    options.cacheReferences = runCacheReferences && !runTaskKey.empty();
    options.reuseBaseline = runReuseBaseline && !runTaskKey.empty();
    options.taskKey = runTaskKey;
    options.gpuLock = runGpuLock;
    options.first = runFirst;
    options.baseline = !runNoBaseline;
    options.resultFd = runResultFd;
    options.instrumentedPtxPath = runCountPtx;
    options.controlSymbol = runCountControl;
    options.countFamilies.assign(runCountFamilies.begin(),
                                 runCountFamilies.end());
    options.remeasurePeaks = runRemeasure;
    options.ptxPath = runPtx;
    options.cubinPath = runCubin;
    options.countCubinPath = runCountCubin;
    options.checkOnly = runCheckOnly;
    // A Python reference: its folder made and its server started now,
    // while the worker is one thread and may still start programs and
    // write anywhere; the server stays outside the worker's sandbox.
    SmallString<128> referenceDir;
    llvm::scope_exit removeReferenceDir([&] {
      if (!referenceDir.empty())
        sys::fs::remove_directories(referenceDir, true);
    });
    if (task->python) {
      reference::PythonReferenceOptions ref;
      ref.helper = sys::fs::getMainExecutable(nullptr, nullptr);
      ref.device = reference::Device::CUDA;
      if (std::error_code ec = sys::fs::createUniqueDirectory(
              "ptxbench-worker-reference", referenceDir))
        referenceDir.clear();
      else
        ref.tempDir = referenceDir.str().str();
      // Without a server the reference's operator says so per workload.
      if (auto server = reference::ReferenceServer::start(*task, ref))
        options.referenceServer = std::move(*server);
      else
        errs() << "ptxbench run: " << toString(server.takeError()) << "\n";
    }
    // Everything the worker reads of the submission is read: it closes
    // itself off before the driver starts.
    if (auto sandbox = sandboxWorker(options, taskPath))
      options.sandbox =
          sandbox->describe() +
          (sandbox->missing.empty() ? "" : " (" + sandbox->missing + ")");
    else
      options.sandboxError = toString(sandbox.takeError());
    return runWorker(*task, *plan, source, *workloads, options);
  }

  RunResult run;
  run.task = task->name;
  run.solution = runSolution;
  run.baseline = task->baseline;
  // Where the parent's time goes (run.phases; --verbose prints them).
  auto mark = std::chrono::steady_clock::now();
  auto phase = [&](StringRef name) {
    auto now = std::chrono::steady_clock::now();
    run.phases.push_back(
        {name.str(),
         std::chrono::duration<double, std::milli>(now - mark).count()});
    mark = now;
  };

  // The target: --arch, else the GPU's, else sm_90a (nothing runs then).
  std::string why, deviceArch;
  bool haveGpu = probeGpu(why, nullptr, &deviceArch);
  std::string arch = !runArch.empty() ? std::string(runArch)
                     : haveGpu        ? deviceArch
                                      : std::string("sm_90a");
  if (Error e = toolchain::checkTargetName(arch)) {
    errs() << "ptxbench: --arch: " << toString(std::move(e)) << "\n";
    return 2;
  }
  // sm_90 code runs on an sm_90a device; sm_100a code does not.
  if (haveGpu &&
      StringRef(arch).rtrim("af") != StringRef(deviceArch).rtrim("af")) {
    errs() << "ptxbench: --arch is " << arch << " but the GPU is " << deviceArch
           << "; leave --arch out to use the GPU's\n";
    return 2;
  }
  run.arch = arch;

  // Compile once, here, under the compile limits (NVRTC and Triton need no
  // GPU); the plan check, the worker and the feature counts use this PTX.
  std::string ptx = source.str(), compileLog;
  std::optional<toolchain::CompiledSource> failed;
  // A Triton submission's plan is the one lowered from what Triton
  // compiled (or the mistakes that kept it from being one).
  std::optional<Expected<LaunchPlan>> tritonPlan;
  TempPath tritonBuildFile;
  std::string tritonBuildPath, tritonBuildText;
  if (isTritonSource(runSolution) && !runCompiledPtx.empty() &&
      !runTritonBuild.empty()) {
    // Compiled before (eval's static stage, or --save-compiled elsewhere):
    // the PTX and the metadata the plan is lowered with.
    auto compiled = MemoryBuffer::getFile(runCompiledPtx);
    auto build = MemoryBuffer::getFile(runTritonBuild);
    if (!compiled || !build) {
      errs() << "ptxbench: cannot read " << runCompiledPtx << " or "
             << runTritonBuild << "\n";
      return 2;
    }
    ptx = (*compiled)->getBuffer().str();
    tritonBuildPath = runTritonBuild;
    tritonBuildText = (*build)->getBuffer().str();
    tritonPlan.emplace(
        submissionPlan(source, runSolution, *task, tritonBuildPath));
    if (runVerbose && *tritonPlan)
      outs() << "the Triton kernel is launched as:\n"
             << normalizedPlan(**tritonPlan);
    phase("compile (reused Triton's PTX)");
  } else if (isTritonSource(runSolution)) {
    toolchain::TritonLimits limits;
    limits.helper = sys::fs::getMainExecutable(nullptr, nullptr);
    limits.seconds = runCompileTimeout;
    TritonBuild build = buildTriton(source, runSolution, arch, *task, limits);
    phase("compile (Triton)");
    const toolchain::CompiledTriton &c = build.compiled;
    run.compileSandbox = c.sandbox;
    if (!build.planError.empty())
      tritonPlan.emplace(createStringError(build.planError));
    else if (build.lowered) {
      if (runVerbose)
        outs() << "the Triton kernel is launched as:\n"
               << normalizedPlan(*build.lowered);
      tritonPlan.emplace(std::move(*build.lowered));
    }
    if (c.ok) {
      ptx = c.ptx;
      tritonBuildText = formatv("{0}", toolchain::toJSON(c.build)).str();
      if (!tritonBuildFile.create(tritonBuildText, "json")) {
        errs() << "ptxbench: cannot write a temporary file\n";
        return 2;
      }
      tritonBuildPath = tritonBuildFile.path;
    } else if (build.planError.empty()) {
      toolchain::CompiledSource f;
      f.timedOut = c.timedOut;
      for (const toolchain::CompilerMessage &m : c.messages)
        f.log += m.location() + ": error: " + m.text + "\n";
      if (c.stage == toolchain::TritonStage::Gate ||
          c.stage == toolchain::TritonStage::Refused)
        f.log = "refused (" + tritonStageName(c.stage).str() +
                "): a Triton answer is @triton.jit kernels only, run by "
                "nothing but the harness:\n" +
                f.log;
      if (c.messages.empty() || c.stage == toolchain::TritonStage::Compile)
        f.log += c.log;
      compileLog = StringRef(f.log).rtrim().str();
      failed = std::move(f);
    } else {
      // Nothing compiled, for the plan's reasons: the plan check says so.
      failed = toolchain::CompiledSource();
    }
  } else if (sys::path::extension(runSolution) != ".ptx" &&
             !runCompiledPtx.empty()) {
    auto compiled = MemoryBuffer::getFile(runCompiledPtx);
    if (!compiled) {
      errs() << "ptxbench: cannot read " << runCompiledPtx << ": "
             << compiled.getError().message() << "\n";
      return 2;
    }
    ptx = (*compiled)->getBuffer().str();
    phase("compile (reused the static stage's PTX)");
  } else if (sys::path::extension(runSolution) != ".ptx") {
    toolchain::CompileLimits limits;
    limits.helper = sys::fs::getMainExecutable(nullptr, nullptr);
    limits.seconds = runCompileTimeout;
    toolchain::CompiledSource compiled = toolchain::compileCUDA(
        source, sys::path::filename(runSolution), arch, limits);
    compileLog = StringRef(compiled.log).rtrim(StringRef("\0\n", 2)).str();
    run.compileSandbox = compiled.sandbox;
    phase("compile (NVRTC)");
    if (compiled.ok)
      ptx = std::move(compiled.ptx);
    else
      failed = std::move(compiled);
  }

  // What was compiled, kept for a run elsewhere (a GPU host without NVRTC
  // or Triton).
  if (!runSaveCompiled.empty() && !failed &&
      sys::path::extension(runSolution) != ".ptx") {
    std::vector<std::pair<std::string, StringRef>> files = {
        {runSaveCompiled + ".ptx", ptx}};
    if (!tritonBuildText.empty())
      files.push_back({runSaveCompiled + ".triton.json", tritonBuildText});
    for (const auto &[path, text] : files) {
      std::error_code ec;
      raw_fd_ostream os(path, ec);
      if (!ec) {
        os << text;
        os.close();
      }
      if (ec || os.has_error()) {
        errs() << "ptxbench: cannot write " << path << ": "
               << (ec ? ec.message() : std::string("write error")) << "\n";
        os.clear_error();
        return 2;
      }
    }
  }

  // The plan needs no GPU: every mistake of it, for every workload, its
  // kernels held against the compiled module's.
  std::optional<std::vector<ModuleKernel>> kernels;
  if (!failed) {
    mlir::MLIRContext context;
    std::string diagnostics;
    if (mlir::OwningOpRef<ptx::ModuleOp> module =
            importSubmission(ptx, context, diagnostics))
      kernels = eval::moduleKernels(*module);
  }
  phase("import and plan check");
  Expected<LaunchPlan> plan = tritonPlan ? std::move(*tritonPlan)
                                         : parseLaunchPlan(source, runSolution);
  if (!checkPlanOffline(*task, *workloads, std::move(plan), runSolution,
                        kernels
                            ? std::optional<ArrayRef<ModuleKernel>>(*kernels)
                            : std::nullopt,
                        run)) {
    printSummary(run, outs());
    int rc = writeJson(*task, run);
    return rc ? rc : 1;
  }
  if (failed) {
    for (WorkloadResult &r : run.workloads) {
      r.status =
          failed->timedOut ? Status::CompileTimeout : Status::CompileError;
      r.message = failed->timedOut ? compileLog
                  : isTritonSource(runSolution)
                      ? "Triton (" + arch + ") failed:\n" + compileLog
                      : "NVRTC (" + arch + ") failed:\n" + compileLog;
      r.compileLog = compileLog;
    }
    printSummary(run, outs());
    int rc = writeJson(*task, run);
    return rc ? rc : 1;
  }

  // Assemble once, here, as a whole program under the compile limit: the
  // code the driver's JIT would make, loaded afresh for every launch.
  TempPath cubinFile;
  if (std::optional<toolchain::AssembledModule> assembled =
          toolchain::assembleWholeProgram(ptx, arch,
                                          unsigned(runCompileTimeout))) {
    phase("assemble (ptxas)");
    if (!assembled->ok) {
      for (WorkloadResult &r : run.workloads) {
        r.status = assembled->timedOut ? Status::CompileTimeout
                                       : Status::CompileError;
        r.message = assembled->timedOut
                        ? formatv("ptxas did not finish assembling the PTX "
                                  "for {0} within {1} s",
                                  arch, runCompileTimeout)
                              .str()
                        : "ptxas (" + arch + ") rejected the PTX:\n" +
                              assembled->errorLog;
        r.compileLog = compileLog;
      }
      printSummary(run, outs());
      int rc = writeJson(*task, run);
      return rc ? rc : 1;
    }
    // The device runtime is refused here already (the worker checks the
    // cubin again): no GPU is needed to see it.
    StringRef cubin(assembled->cubin.data(), assembled->cubin.size());
    auto refused = refusedDeviceCalls(cubin);
    if (!refused || !refused->empty()) {
      std::string message = refused ? refusedDeviceCallsMessage(*refused)
                                     : toString(refused.takeError());
      for (WorkloadResult &r : run.workloads) {
        r.status = Status::CompileError;
        r.message = message;
        r.compileLog = compileLog;
      }
      printSummary(run, outs());
      int rc = writeJson(*task, run);
      return rc ? rc : 1;
    }
    if (!cubinFile.create(cubin, "cubin")) {
      errs() << "ptxbench: cannot write a temporary cubin\n";
      return 2;
    }
  }
  if (!haveGpu) {
    std::vector<std::string> names;
    for (const ModuleKernel &k :
         kernels ? *kernels : std::vector<ModuleKernel>())
      names.push_back(k.name);
    outs() << "ptxbench: " << why << "\n";
    outs() << "the launch plan of " << runSolution << " checks out against "
           << task->name << " (" << workloads->size() << " workloads"
           << (names.empty()
                   ? std::string()
                   : (names.size() == 1 ? "; kernel " : "; kernels ") +
                         join(names, ", ") +
                         " found in the module compiled for " + arch)
           << "); nothing was run\n";
    for (WorkloadResult &r : run.workloads) {
      r.status = Status::NoGpu;
      r.message = why;
    }
    writeJson(*task, run);
    return 3;
  }

  TempPath ptxFile;
  if (sys::path::extension(runSolution) != ".ptx" && !ptxFile.create(ptx)) {
    errs() << "ptxbench: cannot write a temporary PTX file\n";
    return 2;
  }

  uint64_t seed = runSeed;
  if (!seed)
    seed =
        std::random_device{}() ^
        uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  SuperviseOptions options;
  options.argv = {sys::fs::getMainExecutable(nullptr, nullptr),
                  "run",
                  "--worker",
                  "--task=" + taskPath,
                  "--solution=" + runSolution,
                  "--shapes=" + runShapes,
                  "--seed=" + std::to_string(seed)};
  if (!runGpuLock.empty())
    options.argv.push_back("--gpu-lock=" + runGpuLock);
  // References are reused only for a seed the caller chose: a fresh seed
  // never repeats.
  if ((runCacheReferences || runReuseBaseline) && runSeed) {
    SmallString<256> taskFile(taskPath);
    if (sys::fs::is_directory(taskFile))
      sys::path::append(taskFile, "task.json");
    if (auto text = MemoryBuffer::getFile(taskFile)) {
      options.argv.push_back(runCacheReferences ? "--cache-references"
                                                : "--reuse-baseline");
      // A Python reference's module is part of what the reference is.
      std::string module;
      if (task->python)
        if (auto m = MemoryBuffer::getFile(task->python->module))
          module = (*m)->getBuffer().str();
      options.argv.push_back("--task-key=" +
                             cacheKey({(*text)->getBuffer(), module}));
    }
  }
  if (runNoBaseline)
    options.argv.push_back("--no-baseline");
  if (runRemeasure)
    options.argv.push_back("--remeasure-peaks");
  if (!ptxFile.path.empty())
    options.argv.push_back("--ptx=" + ptxFile.path);
  if (!cubinFile.path.empty())
    options.argv.push_back("--cubin=" + cubinFile.path);
  if (!tritonBuildPath.empty())
    options.argv.push_back("--triton-build=" + tritonBuildPath);
  Instrumented counted;
  TempPath countedCubin;
  if (!runNoCounts) {
    counted = instrumentSubmission(*task, ptx, arch);
    if (!counted.path.empty() && !cubinFile.path.empty()) {
      // The instrumented copy, assembled the same way; a module it cannot
      // assemble gets no run-time credit.
      auto text = MemoryBuffer::getFile(counted.path);
      std::optional<toolchain::AssembledModule> assembled;
      if (text)
        assembled = toolchain::assembleWholeProgram(
            (*text)->getBuffer(), arch, unsigned(runCompileTimeout));
      if (!assembled || !assembled->ok ||
          !countedCubin.create(StringRef(assembled->cubin.data(),
                                         assembled->cubin.size()),
                               "cubin")) {
        counted.note = "the instrumented PTX does not assemble" +
                       (assembled ? ": " + assembled->errorLog
                                  : std::string());
        sys::fs::remove(counted.path);
        counted.path.clear();
      } else {
        options.argv.push_back("--count-cubin=" + countedCubin.path);
      }
    }
    if (!counted.path.empty()) {
      options.argv.push_back("--count-ptx=" + counted.path);
      options.argv.push_back("--count-control=" + counted.control);
      options.argv.push_back("--count-families=" +
                             join(counted.families, ","));
    }
  }
  if (!runNoCounts)
    phase("instrument and assemble the counted copy");
  run.countsDisabled = runNoCounts;
  options.timeoutSeconds = runTimeout;
  options.compileTimeoutSeconds = runCompileTimeout;
  options.progress = &errs();
  outs() << "seed " << seed << " (rerun with --seed=" << seed
         << " to reproduce)\n";
  superviseWorkersOnGpu(*workloads, options, run, errs());
  if (runSanitize)
    cli::sanitize(*task, *workloads, options.argv, runSanitizeTimeout, run);
  if (!counted.path.empty())
    sys::fs::remove(counted.path);
  for (WorkloadResult &r : run.workloads) {
    if (r.compileLog.empty())
      r.compileLog = compileLog;
    for (FeatureCount &f : r.features)
      if (auto it = counted.inCode.find(f.family); it != counted.inCode.end())
        f.inCode = it->second;
    if (r.features.empty() && !runNoCounts && r.featureNote.empty()) {
      if (!counted.note.empty())
        r.featureNote = counted.note;
      else if (r.status != Status::Passed)
        r.featureNote = "not counted (the counted run follows a passing "
                        "timed run)";
    }
  }
  // Credit follows the work; a result faster than the card is suspicious.
  creditWork(run, *task);
  judgeSpeedOfLight(run);
  printSummary(run, outs());
  if (runVerbose)
    printPhases(run, outs());
  if (int rc = writeJson(*task, run))
    return rc;
  return worstStatus(run) == Status::Passed ? 0 : 1;
}

} // namespace

cli::Command cli::runCommand() { return {runCmd, runRun}; }
