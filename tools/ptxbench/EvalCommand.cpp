//===- EvalCommand.cpp - ptxbench eval ------------------------------------===//
//
// `ptxbench eval --tasks DIR --samples DIR --db results.sqlite
//  [--arch sm_90a] [--shapes dev|heldout|all] [--static-only]
//  [--shard K/N] [--jobs N] [--gpus all|0,1]`
//
// Evaluates every sample of the tree (docs/eval.md) into the results store:
// static analysis on the CPU cores, then `ptxbench run` per sample, one per
// GPU. Resumes: what is recorded is skipped. Exit status (docs/cli.md): 0
// when every sample was evaluated (whatever the verdicts), 1 when the sweep
// could not finish (a store that cannot be written), 2 for bad input, 3 when
// runs were wanted and there was no GPU.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Eval/GpuRun.h"
#include "ptxbench/Eval/Sweep.h"
#include "ptxbench/Prompt/Prompt.h"
#include "ptxbench/Task/Verdict.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"

#include <random>

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand evalCmd("eval", "Evaluate a tree of samples into a results "
                               "store");
cl::opt<std::string> tasksDir("tasks", cl::desc("The tasks folder"),
                              cl::value_desc("dir"), cl::init("tasks"),
                              cl::sub(evalCmd));
cl::opt<std::string> samplesDir("samples",
                                cl::desc("The samples folder "
                                         "(<model>/<context>/<task>/<id>/)"),
                                cl::value_desc("dir"), cl::Required,
                                cl::sub(evalCmd));
cl::opt<std::string> dbPath("db", cl::desc("The results store (SQLite)"),
                            cl::value_desc("file"), cl::Required,
                            cl::sub(evalCmd));
cl::opt<std::string> evalArch("arch", cl::desc("Target architecture"),
                              cl::init("sm_90a"), cl::sub(evalCmd));
cl::opt<std::string> shapes("shapes",
                            cl::desc("Workloads to run: dev, heldout or all"),
                            cl::init("dev"), cl::sub(evalCmd));
cl::opt<bool> staticOnly("static-only",
                         cl::desc("Only what needs no GPU (no ptxbench run)"),
                         cl::sub(evalCmd));
cl::opt<bool> noAssemble("no-assemble",
                         cl::desc("Skip ptxas in the static analysis"),
                         cl::sub(evalCmd));
cl::opt<bool> sass("sass",
                   cl::desc("Confirm requested families in machine code "
                            "(nvdisasm), as analyze --sass does"),
                   cl::sub(evalCmd));
cl::opt<std::string> shard("shard",
                           cl::desc("Evaluate shard K of N (0 <= K < N)"),
                           cl::value_desc("K/N"), cl::init("0/1"),
                           cl::sub(evalCmd));
cl::opt<unsigned> jobs("jobs", cl::desc("Static-analysis threads (default: "
                                        "the CPU cores)"),
                       cl::init(0), cl::sub(evalCmd));
cl::opt<std::string> gpus("gpus",
                          cl::desc("GPUs for ptxbench run: all, or 0,1,..."),
                          cl::init("all"), cl::sub(evalCmd));
cl::opt<uint64_t> evalSeed(
    "seed",
    cl::desc("The sweep's input seed: every sample's run draws the same "
             "inputs and the harness computes their references once "
             "(default: a fresh seed per sweep, printed; 0 keeps a fresh seed "
             "per run)"),
    cl::sub(evalCmd));
cl::opt<unsigned> runsPerGpu(
    "runs-per-gpu",
    cl::desc("Runs that share a GPU at once: their GPU parts take turns, so "
             "one compiles and assembles while another times (default 2)"),
    cl::init(2), cl::sub(evalCmd));
cl::opt<double> runTimeout("timeout",
                           cl::desc("Seconds a run may go without progress"),
                           cl::init(60), cl::sub(evalCmd));
cl::opt<double> compileTimeout(
    "compile-timeout",
    cl::desc("Seconds NVRTC and the driver's PTX JIT may take to compile a "
             "sample (COMPILE_TIMEOUT past it)"),
    cl::init(60), cl::sub(evalCmd));
cl::opt<double> analysisTimeout(
    "analysis-timeout",
    cl::desc("Seconds one sample's static analysis (extract, compile, "
             "import, analyze, plan check) may take in its own process; the "
             "sample is `crashed` past it (default 300)"),
    cl::init(300), cl::sub(evalCmd));
cl::opt<uint64_t> analysisMemory(
    "analysis-memory-mb",
    cl::desc("Data memory limit in MiB of that process (0: none; default "
             "8192)"),
    cl::init(8192), cl::sub(evalCmd));

int fail(const Twine &message, int status = cli::ExitUsage) {
  return cli::fail("eval", message, status);
}

int runEval() {
  eval::SweepOptions options;
  options.tasksDir = tasksDir;
  if (!is_contained(prompt::promptArchitectures(), evalArch))
    return fail("unknown architecture '" + evalArch +
                "' for --arch (ptxbench's tasks are for " +
                join(prompt::promptArchitectures(), ", ") + ")");
  options.arch = evalArch;
  if (shapes != "dev" && shapes != "heldout" && shapes != "all")
    return fail("--shapes expects dev, heldout or all, got '" + shapes + "'");
  options.shapes = shapes;
  options.staticOnly = staticOnly;
  options.assemble = !noAssemble;
  options.sass = sass;
  options.runTimeoutSeconds = runTimeout;
  options.runsPerGpu = std::max(1u, unsigned(runsPerGpu));
  if (evalSeed.getNumOccurrences())
    options.seed = evalSeed;
  else
    options.seed = (uint64_t(std::random_device{}()) << 32 |
                    std::random_device{}()) |
                   1;
  options.compileTimeoutSeconds = compileTimeout;
  if (!(analysisTimeout > 0))
    return fail("--analysis-timeout expects a positive number of seconds");
  options.analysisTimeoutSeconds = analysisTimeout;
  options.analysisMemoryMB = analysisMemory;
  auto parsedShard = eval::parseShard(shard);
  if (!parsedShard)
    return fail(toString(parsedShard.takeError()));
  options.shard = *parsedShard;
  // Each job holds an MLIRContext and a compile: more than this is a typo.
  if (jobs > 1024)
    return fail("--jobs " + Twine(unsigned(jobs)) +
                " is more than 1024 threads");
  options.jobs = jobs ? unsigned(jobs)
                      : std::max(1u, llvm::get_physical_cores() > 0
                                         ? unsigned(get_physical_cores())
                                         : 1u);
  if (!staticOnly) {
    auto resolved = eval::resolveGpus(gpus);
    if (!resolved)
      return fail(toString(resolved.takeError()));
    options.gpus = *resolved;
    // One run per GPU at a time, so threads beyond the GPUs only analyze.
    options.jobs = std::max<unsigned>(options.jobs, options.gpus.size());
  }
  options.tool = sys::fs::getMainExecutable(nullptr, nullptr);
  options.progress = &errs();
  if (!options.staticOnly && options.seed)
    errs() << "eval: input seed " << options.seed
           << " for every run (rerun with --seed=" << options.seed
           << " to reproduce)\n";
  if (!sys::fs::is_directory(tasksDir))
    return fail("tasks folder '" + tasksDir + "' does not exist");

  auto samples = eval::scanSamples(samplesDir);
  if (!samples)
    return fail(toString(samples.takeError()));
  auto store = eval::ResultsStore::open(dbPath);
  if (!store)
    return fail(toString(store.takeError()));
  auto stats = eval::runSweep(**store, *samples, options);
  if (!stats)
    return fail(toString(stats.takeError()), cli::ExitFailed);
  outs() << formatv("evaluated {0} of {1} samples in shard {2}/{3} ({4} "
                    "already recorded, {5} reused an identical sample)",
                    stats->evaluated, stats->inShard, options.shard.index,
                    options.shard.count, stats->skipped, stats->reused);
  for (auto &[status, count] : stats->byStatus)
    outs() << "\n  " << status << ": " << count;
  outs() << "\n";
  if (stats->gpuRuns)
    outs() << formatv("{0} samples run in {1:f0} s on {2} GPU(s): {3:f0} "
                      "samples per GPU-hour\n",
                      stats->gpuRuns, stats->wallSeconds, stats->gpus,
                      stats->samplesPerGpuHour());
  // Runs were asked for and there was no GPU to make them: recorded as
  // NO_GPU, and evaluated again by the next sweep that has one.
  if (auto it = stats->byStatus.find(
          runtime::statusName(runtime::Status::NoGpu).str());
      it != stats->byStatus.end()) {
    errs() << "ptxbench eval: " << it->second
           << " samples were not run: no GPU (their rows say NO_GPU; run "
              "the same command on a machine with one)\n";
    return cli::ExitStopped;
  }
  return cli::ExitDone;
}

} // namespace

cli::Command cli::evalCommand() { return {evalCmd, runEval}; }
