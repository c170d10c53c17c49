//===- Sanitize.cpp - Checked trials under compute-sanitizer --------------===//
//
// compute-sanitizer slows a kernel down by one to two orders of magnitude,
// and a faulting kernel keeps it busy longer: a tool is never waited for
// without a limit. Each tool runs in a process group of its own (it starts
// the worker as its child; a ChildProcess with ownGroup), and past the
// limit the whole group is killed, so no worker is left running on the GPU.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Run/Sanitize.h"

#include "ptxbench/Runtime/SanitizerLog.h"
#include "ptxbench/Support/ChildProcess.h"
#include "ptxbench/Support/TempFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

extern char **environ;

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::runtime;

namespace {

/// compute-sanitizer: $PATH, then the toolkit's.
std::optional<std::string> findSanitizer() {
  if (auto found = sys::findProgramByName("compute-sanitizer"))
    return *found;
  for (StringRef path : {"/usr/local/cuda/bin/compute-sanitizer"})
    if (sys::fs::can_execute(path))
      return path.str();
  return std::nullopt;
}

} // namespace

void ptxbench::run::sanitize(const Task &task, ArrayRef<Workload> workloads,
                             const std::vector<std::string> &workerArgv,
                             double secondsPerTool, RunResult &run) {
  std::optional<std::string> tool = findSanitizer();
  if (!tool) {
    run.sanitizerNote = "compute-sanitizer is missing (not on PATH nor in "
                        "/usr/local/cuda/bin); nothing was sanitized";
    return;
  }
  const Workload *smallest = nullptr;
  double smallestBytes = 0;
  for (const Workload &w : workloads) {
    double bytes = 0;
    if (auto b = task.bytes.evaluate(w.params))
      bytes = double(*b);
    else
      consumeError(b.takeError());
    if (!smallest || bytes < smallestBytes) {
      smallest = &w;
      smallestBytes = bytes;
    }
  }
  if (!smallest)
    return;
  run.sanitizedWorkload = smallest->name;
  for (StringRef name : {"memcheck", "racecheck", "synccheck"}) {
    auto log = support::TempFile::create("sanitizer", "log");
    if (!log) {
      run.sanitizerNote = toString(log.takeError());
      return;
    }
    // Every CUDA API call is the harness's own (the submission makes none);
    // some fail by design, as the probe past a kernel's last parameter.
    std::vector<std::string> args = {*tool,         "--tool",
                                     name.str(),    "--print-limit",
                                     "20",          "--report-api-errors",
                                     "no"};
    for (const std::string &a : workerArgv) {
      if (StringRef(a).starts_with("--count-"))
        continue; // no feature counts under the sanitizer
      args.push_back(StringRef(a).starts_with("--shapes=")
                         ? "--shapes=" + smallest->name
                         : a);
    }
    args.push_back("--check-only");
    args.push_back("--no-baseline");
    args.push_back("--first-workload=0");
    args.push_back("--result-fd=1");
    ptxbench::support::ChildOptions child;
    child.argv = std::move(args);
    child.outputPath = log->path();
    child.ownGroup = true;
    // The tool injects itself into the worker it starts and talks to it;
    // that has not been seen to work inside the worker's sandbox, so the
    // checked trials under the tool run without it (the run's own workers
    // had it).
    child.environment.emplace();
    for (char **e = environ; *e; ++e)
      if (!StringRef(*e).starts_with("PTXBENCH_WORKER_SANDBOX="))
        child.environment->push_back(*e);
    child.environment->push_back("PTXBENCH_WORKER_SANDBOX=off");
    auto finished = ptxbench::support::runChild(child, secondsPerTool);
    SanitizerReport report;
    if (auto text = MemoryBuffer::getFile(log->path()))
      report = readSanitizerLog(name, (*text)->getBuffer());
    else
      report.tool = name.str();
    report.timedOut = finished && finished->timedOut;
    if (!finished)
      report.head = "compute-sanitizer " + name.str() +
                    " did not start: " + toString(finished.takeError()) +
                    "\n" + report.head;
    else if (finished->timedOut)
      report.head =
          formatv("compute-sanitizer {0} did not finish within {1} s "
                  "(--sanitize-timeout) and was stopped with the worker it "
                  "ran; its report so far follows\n",
                  name, format("%g", secondsPerTool))
              .str() +
          report.head;
    run.sanitizer.push_back(std::move(report));
  }
}
