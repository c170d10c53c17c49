//===- RunCommand.cpp - ptxbench run --------------------------------------===//
//
// `ptxbench run --task tasks/<name> --solution FILE [--arch A]
// [--shapes dev|heldout|all|WORKLOAD] [--json out.json]`: the flags of a
// run, given to run::runSubmission (lib/Run), which compiles, checks the
// plan, supervises the workers and credits the work; this prints the
// readable summary and optionally writes the same as JSON. With the hidden
// --worker it is one of the workers a run starts (run::runWorkerProcess).
//
// Exit status: 0 every workload passed; 1 some workload failed; 2 a usage
// or task-file error; 3 no CUDA driver/GPU available.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Run/Submission.h"
#include "ptxbench/Run/WorkerProcess.h"
#include "ptxbench/Runtime/Harness.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

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

int writeJson(const RunResult &run) {
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

/// --worker: one stretch of workloads in this process, for a parent run.
int runAsWorker(const Task &task, StringRef taskPath) {
  auto workloads = selectWorkloads(task, runShapes);
  if (!workloads) {
    errs() << "ptxbench: " << toString(workloads.takeError()) << "\n";
    return 2;
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
  return run::runWorkerProcess(task, taskPath, runTritonBuild,
                               sys::fs::getMainExecutable(nullptr, nullptr),
                               *workloads, std::move(options));
}

int runRun() {
  // A bare name means TASKS/NAME; the worker is given the path.
  std::string taskPath = cli::resolveTaskPath(runTask, runTasksDir);
  auto task = loadTask(taskPath);
  if (!task) {
    errs() << "ptxbench: " << toString(task.takeError()) << "\n";
    return 2;
  }
  if (runWorkerMode)
    return runAsWorker(*task, taskPath);

  run::SubmissionOptions options;
  options.taskPath = taskPath;
  options.solutionPath = runSolution;
  options.arch = runArch;
  options.shapes = runShapes;
  options.seed = runSeed;
  options.timeoutSeconds = runTimeout;
  options.compileTimeoutSeconds = runCompileTimeout;
  options.baseline = !runNoBaseline;
  options.featureCounts = !runNoCounts;
  options.remeasurePeaks = runRemeasure;
  options.cacheReferences = runCacheReferences;
  options.reuseBaseline = runReuseBaseline;
  options.gpuLock = runGpuLock;
  options.compiledPtx = runCompiledPtx;
  options.tritonBuild = runTritonBuild;
  options.saveCompiledPrefix = runSaveCompiled;
  options.sanitize = runSanitize;
  options.sanitizeTimeoutSeconds = runSanitizeTimeout;
  options.verbose = runVerbose;
  options.helper = sys::fs::getMainExecutable(nullptr, nullptr);
  Expected<run::SubmissionRun> ran =
      run::runSubmission(*task, options, outs(), errs());
  if (!ran) {
    errs() << "ptxbench: " << toString(ran.takeError()) << "\n";
    return 2;
  }
  const RunResult &result = ran->result;
  if (ran->noGpu) {
    writeJson(result);
    return 3;
  }
  printSummary(result, outs());
  if (runVerbose)
    printPhases(result, outs());
  if (int rc = writeJson(result))
    return rc;
  return worstStatus(result) == Status::Passed ? 0 : 1;
}

} // namespace

cli::Command cli::runCommand() { return {runCmd, runRun}; }
