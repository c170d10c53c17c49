//===- Worker.cpp - Supervise worker processes over a private pipe --------===//
//
// The worker is started as a ChildProcess and gets the write end of a pipe
// (--result-fd); only that pipe carries results. Each line is one JSON
// event: "device", "jit" and "jit_done" (the driver compiles the PTX),
// "start" (a workload begins), "result". The worker's stdout and stderr
// (where the driver writes device printf) go to a second pipe whose bytes
// are counted and kept only at their start and end (OutputCapture), per
// workload, so a printing kernel cannot flood the terminal. The watchdog
// kills a worker that stays silent longer than the timeout; the workload it
// had started is then TIMEOUT (saying how much it printed meanwhile), a
// driver JIT past the compile limit is COMPILE_TIMEOUT, a crash is
// RUNTIME_ERROR, and a fresh worker continues with the next workload.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Worker.h"

#include "ptxbench/Runtime/Containment.h"
#include "ptxbench/Support/ChildProcess.h"
#include "ptxbench/Support/Sandbox.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

struct WorkerExit {
  bool timedOut = false;
  /// Killed while the driver compiled the PTX (the "jit" event without
  /// its "jit_done").
  bool inJit = false;
  int status = 0; // from waitpid
};

/// Runs one worker from `first`; fills results[i] as they arrive, adds what
/// the worker prints to `output[i]` of the workload in flight (else of the
/// last one started, else of `first`), and returns how the worker ended
/// and which workload was in flight (-1 if none).
WorkerExit runOne(const SuperviseOptions &options, unsigned first,
                  std::vector<std::optional<WorkloadResult>> &results,
                  std::vector<OutputCapture> &output, RunResult &run,
                  int &inFlight) {
  WorkerExit exit;
  int fds[2], outFds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    exit.status = -1;
    return exit;
  }
  if (pipe2(outFds, O_CLOEXEC) != 0) {
    close(fds[0]);
    close(fds[1]);
    exit.status = -1;
    return exit;
  }
  // The child's end must survive exec.
  int childFd = fcntl(fds[1], F_DUPFD, 100);
  close(fds[1]);
  std::vector<std::string> args = options.argv;
  args.push_back("--first-workload=" + std::to_string(first));
  args.push_back("--result-fd=" + std::to_string(childFd));
  // stdout and stderr into the capture pipe.
  ptxbench::support::ChildOptions spawnOptions;
  spawnOptions.argv = std::move(args);
  spawnOptions.outputFd = outFds[1];
  spawnOptions.passFds = {{childFd, childFd}};
  auto child = ptxbench::support::ChildProcess::spawn(spawnOptions);
  close(childFd);
  close(outFds[1]);
  if (!child) {
    consumeError(child.takeError());
    close(fds[0]);
    close(outFds[0]);
    exit.status = -1;
    return exit;
  }
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  fcntl(outFds[0], F_SETFL, O_NONBLOCK);
  inFlight = -1;
  int lastStarted = -1;
  bool inJit = false;
  std::string pending;
  auto deadline = [&] {
    double seconds =
        inJit ? options.compileTimeoutSeconds : options.timeoutSeconds;
    return std::chrono::steady_clock::now() +
           std::chrono::milliseconds(int64_t(seconds * 1000));
  };
  auto until = deadline();
  char buf[65536];
  auto capture = [&](StringRef bytes) {
    int to = inFlight >= 0 ? inFlight : lastStarted >= 0 ? lastStarted : first;
    if (size_t(to) < output.size())
      output[to].append(bytes);
  };
  bool outOpen = true;
  // Reads what the worker printed so far (at most 1 MiB) into the capture of
  // the workload running now.
  auto drainOutput = [&] {
    for (unsigned i = 0; outOpen && i < 16; ++i) {
      ssize_t got = read(outFds[0], buf, sizeof(buf));
      if (got > 0) {
        capture(StringRef(buf, got));
        continue;
      }
      if (got < 0 && errno == EINTR)
        continue;
      if (got == 0 || errno != EAGAIN)
        outOpen = false;
      break;
    }
  };
  // Handles the complete event lines in `pending`. What the worker printed
  // before an event is in the output pipe when the event is read, so it is
  // drained first and goes to the workload it belongs to.
  auto processLines = [&] {
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      drainOutput();
      std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      auto v = json::parse(line);
      if (!v) {
        consumeError(v.takeError());
        continue;
      }
      const json::Object *o = v->getAsObject();
      if (!o)
        continue;
      StringRef event = o->getString("event").value_or("");
      int64_t index = o->getInteger("index").value_or(-1);
      if (event == "jit" || event == "jit_done")
        inJit = event == "jit";
      until = deadline();
      if (event == "device") {
        run.device = o->getString("device").value_or("").str();
        run.peakTflops = o->getNumber("peak_tflops").value_or(0);
        run.peakGBps = o->getNumber("peak_gbps").value_or(0);
        run.peakSource = o->getString("peak_source").value_or("").str();
        run.peakMatrixType =
            o->getString("peak_matrix_type").value_or("bf16").str();
        readPeaks(*o, run);
        run.arch = o->getString("arch").value_or("").str();
        run.driver = o->getString("driver").value_or("").str();
        run.cudaDriverVersion =
            o->getInteger("cuda_driver_version").value_or(0);
        run.cublasLtVersion = o->getInteger("cublaslt_version").value_or(0);
      } else if (event == "sandbox") {
        run.workerSandbox = o->getString("sandbox").value_or("").str();
      } else if (event == "start") {
        inFlight = index;
        lastStarted = index;
        if (options.progress)
          *options.progress << "  running workload " << index + 1 << "/"
                            << results.size() << "...\n";
      } else if (event == "result" && index >= 0 &&
                 size_t(index) < results.size()) {
        WorkloadResult r;
        if (const json::Value *rv = o->get("result"); rv && fromJSON(*rv, r))
          results[index] = std::move(r);
        inFlight = -1;
      }
    }
  };
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    until - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      child->kill();
      exit.timedOut = true;
      exit.inJit = inJit;
      break;
    }
    pollfd p[2] = {{fds[0], POLLIN, 0}, {outOpen ? outFds[0] : -1, POLLIN, 0}};
    int n = poll(p, 2, int(std::min<int64_t>(left, 1000)));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      continue;
    bool ended = false;
    while (true) {
      ssize_t got = read(fds[0], buf, sizeof(buf));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        ended = got == 0; // EOF: the worker ended
        break;
      }
      pending.append(buf, got);
      processLines();
    }
    if (p[1].revents & (POLLIN | POLLHUP | POLLERR))
      drainOutput();
    if (ended)
      break;
  }
  close(fds[0]);
  exit.status = child->wait().status;
  // What the worker printed last (its process and any child are gone or
  // the pipe is closed once they are).
  while (outOpen) {
    ssize_t got = read(outFds[0], buf, sizeof(buf));
    if (got <= 0 && !(got < 0 && errno == EINTR))
      break;
    if (got > 0)
      capture(StringRef(buf, got));
  }
  close(outFds[0]);
  return exit;
}

/// "; it printed N bytes meanwhile ..." for a watchdog message.
std::string printedNote(const OutputCapture &output) {
  if (!output.total())
    return "";
  return formatv("; meanwhile it printed {0} bytes (device printf), so it "
                 "may have been slowed down by printing rather than hung",
                 output.total())
      .str();
}

} // namespace

void ptxbench::runtime::superviseWorkers(const std::vector<Workload> &workloads,
                                         const SuperviseOptions &options,
                                         RunResult &run) {
  std::vector<std::optional<WorkloadResult>> results(workloads.size());
  std::vector<OutputCapture> output(workloads.size());
  unsigned next = 0;
  while (next < workloads.size()) {
    int inFlight = -1;
    WorkerExit e = runOne(options, next, results, output, run, inFlight);
    // The first workload without a result is where the worker stopped.
    unsigned stopped = next;
    while (stopped < workloads.size() && results[stopped])
      ++stopped;
    if (stopped == workloads.size())
      break;
    if (inFlight >= 0)
      stopped = inFlight;
    WorkloadResult r;
    r.workload = workloads[stopped].name;
    r.params = workloads[stopped].params;
    if (e.status == -1) {
      r.status = Status::HarnessError;
      r.message = "cannot start a worker process (" + options.argv[0] + ")";
    } else if (e.timedOut && e.inJit) {
      // Every workload needs the same compilation: none can run.
      r.status = Status::CompileTimeout;
      r.message = formatv("the driver's PTX JIT (ptxas) did not finish "
                          "within {0} s (the compile limit, "
                          "--compile-timeout)",
                          format("%g", options.compileTimeoutSeconds))
                      .str();
      for (unsigned i = stopped; i < workloads.size(); ++i)
        if (!results[i]) {
          WorkloadResult same = r;
          same.workload = workloads[i].name;
          same.params = workloads[i].params;
          results[i] = same;
        }
      break;
    } else if (e.timedOut) {
      r.status = Status::Timeout;
      r.message = "killed by the watchdog after " +
                  formatv("{0}", format("%g", options.timeoutSeconds)).str() +
                  " s without progress" +
                  (output[stopped].total()
                       ? printedNote(output[stopped])
                       : " (a hang, e.g. an mbarrier wait that never "
                         "completes)");
    } else if (WIFSIGNALED(e.status)) {
      r.status = Status::RuntimeError;
      r.message = "the worker process died with signal " +
                  std::to_string(WTERMSIG(e.status)) + " (" +
                  strsignal(WTERMSIG(e.status)) + ")";
    } else if (inFlight < 0 && WIFEXITED(e.status) &&
               WEXITSTATUS(e.status) == 3) {
      // The worker reported its failure and gave up its lost context.
      next = stopped;
      continue;
    } else {
      r.status = Status::HarnessError;
      r.message =
          "the worker exited with status " +
          std::to_string(WIFEXITED(e.status) ? WEXITSTATUS(e.status) : -1) +
          " before reporting this workload";
    }
    results[stopped] = r;
    next = stopped + 1;
    if (e.status == -1)
      break;
  }
  run.workloads.clear();
  for (unsigned i = 0; i < workloads.size(); ++i) {
    if (results[i]) {
      results[i]->outputBytes = output[i].total();
      results[i]->outputHead = output[i].head();
      results[i]->outputTail = output[i].tail();
      run.workloads.push_back(*results[i]);
      continue;
    }
    WorkloadResult r;
    r.workload = workloads[i].name;
    r.params = workloads[i].params;
    r.status = Status::Skipped;
    run.workloads.push_back(r);
  }
}

void ptxbench::runtime::superviseWorkersOnGpu(
    const std::vector<Workload> &workloads, const SuperviseOptions &options,
    RunResult &run, raw_ostream &note) {
  superviseWorkers(workloads, options, run);
  StringRef sandbox = run.workerSandbox;
  if (sandbox.empty() || sandbox.starts_with("off") || run.workloads.empty() ||
      !llvm::all_of(run.workloads, [](const WorkloadResult &r) {
        return r.status == Status::NoGpu;
      }))
    return;
  std::string why = run.workloads.front().message;
  auto mode = sandboxModeFromEnvironment(/*worker=*/true);
  if (mode && *mode == SandboxMode::Require) {
    for (WorkloadResult &r : run.workloads) {
      r.status = Status::HarnessError;
      r.message = "the CUDA driver does not start inside the GPU worker's "
                  "sandbox, and PTXBENCH_SANDBOX=require: " +
                  r.message;
    }
    return;
  }
  if (!mode)
    consumeError(mode.takeError());
  note << "ptxbench: the CUDA driver does not start inside the GPU worker's "
          "sandbox ("
       << why
       << "); the workers run without it (PTXBENCH_SANDBOX=require refuses "
          "instead)\n";
  setenv("PTXBENCH_WORKER_SANDBOX", "off", 1);
  superviseWorkers(workloads, options, run);
  run.workerSandbox = "off (the CUDA driver did not start inside it: " + why +
                      ")";
}
