//===- RunCommand.cpp - ptxbench run --------------------------------------===//
//
// `ptxbench run --task tasks/<name> --solution FILE [--shapes dev|heldout|all]
// [--json out.json]` checks the submission's launch plan against the task
// (no GPU needed), then runs it in supervised worker processes: compile,
// check against the reference, time against the baseline library. Prints a
// readable summary and optionally writes the same as JSON.
//
// Exit status: 0 every workload passed; 1 some workload failed; 2 a usage
// or task-file error; 3 no CUDA driver/GPU available.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Runtime/Harness.h"
#include "ptxbench/Runtime/LaunchPlan.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Runtime/Task.h"
#include "ptxbench/Runtime/Worker.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <random>

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::runtime;

namespace {

cl::SubCommand runCmd("run", "Check and time a submission on the GPU");
cl::opt<std::string> runTask("task", cl::desc("Task folder or task.json"),
                             cl::value_desc("dir"), cl::Required,
                             cl::sub(runCmd));
cl::opt<std::string> runSolution("solution",
                                 cl::desc("The submission (.cu or .ptx) with "
                                          "its launch plan"),
                                 cl::value_desc("file"), cl::Required,
                                 cl::sub(runCmd));
cl::opt<std::string> runShapes("shapes",
                               cl::desc("Workloads: dev, heldout or all"),
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
cl::opt<bool> runNoBaseline("no-baseline",
                            cl::desc("Do not time the baseline library"),
                            cl::sub(runCmd));
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

int runRun() {
  auto task = loadTask(runTask);
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
  auto plan = parseLaunchPlan(source, runSolution);

  if (runWorkerMode) {
    if (!plan)
      return 2; // the parent checked it already
    WorkerOptions options;
    options.solutionPath = runSolution;
    options.seed = runSeed;
    options.first = runFirst;
    options.baseline = !runNoBaseline;
    options.resultFd = runResultFd;
    return runWorker(*task, *plan, source, *workloads, options);
  }

  RunResult run;
  run.task = task->name;
  run.solution = runSolution;
  run.baseline = task->baseline;
  // Plan errors need no GPU: report them per workload and stop.
  bool planFailed = false;
  for (const Workload &w : *workloads) {
    WorkloadResult r;
    r.workload = w.name;
    r.params = w.params;
    Error err = plan ? resolveLaunchPlan(*plan, *task, w.params).takeError()
                     : plan.takeError();
    if (err) {
      r.status = Status::PlanError;
      r.message = toString(std::move(err));
      planFailed = true;
    }
    run.workloads.push_back(r);
    if (!plan) {
      // The same parse error applies to every workload.
      for (size_t i = 1; i < workloads->size(); ++i) {
        WorkloadResult more = run.workloads.front();
        more.workload = (*workloads)[i].name;
        more.params = (*workloads)[i].params;
        run.workloads.push_back(more);
      }
      break;
    }
  }
  if (planFailed) {
    printSummary(run, outs());
    int rc = writeJson(run);
    return rc ? rc : 1;
  }

  std::string why;
  if (!probeGpu(why)) {
    outs() << "ptxbench: " << why << "\n";
    outs() << "the launch plan of " << runSolution << " checks out against "
           << task->name << " (" << workloads->size()
           << " workloads); nothing was run\n";
    for (WorkloadResult &r : run.workloads) {
      r.status = Status::NoGpu;
      r.message = why;
    }
    writeJson(run);
    return 3;
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
                  "--task=" + runTask,
                  "--solution=" + runSolution,
                  "--shapes=" + runShapes,
                  "--seed=" + std::to_string(seed)};
  if (runNoBaseline)
    options.argv.push_back("--no-baseline");
  options.timeoutSeconds = runTimeout;
  options.progress = &errs();
  outs() << "seed " << seed << " (rerun with --seed=" << seed
         << " to reproduce)\n";
  superviseWorkers(*workloads, options, run);
  printSummary(run, outs());
  if (int rc = writeJson(run))
    return rc;
  return worstStatus(run) == Status::Passed ? 0 : 1;
}

} // namespace

cli::Command cli::runCommand() { return {runCmd, runRun}; }
