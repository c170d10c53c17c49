//===- WorkerTest.cpp - Tests of the worker supervisor (no GPU) -----------===//
//
// Fake workers written in bash stand in for `ptxbench run --worker`: they
// report over the result pipe, hang, or crash, and the supervisor must
// classify each workload and continue with a fresh worker.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Worker.h"

#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

std::vector<Workload> workloads(unsigned n) {
  std::vector<Workload> out(n);
  for (unsigned i = 0; i < n; ++i)
    out[i].name = "w" + std::to_string(i);
  return out;
}

/// A fake worker: `body` runs with $first (the first workload) and $fd (the
/// result pipe) set; `pass I` reports workload I as PASSED, `start I`
/// announces it.
RunResult supervise(const std::string &body, unsigned n, double timeout) {
  std::string script =
      "first=${1#--first-workload=}; fd=${2#--result-fd=}\n"
      "pass() { echo '{\"event\":\"result\",\"index\":'$1',\"result\":"
      "{\"status\":\"PASSED\",\"workload\":\"w'$1'\"}}' >&$fd; }\n"
      "start() { echo '{\"event\":\"start\",\"index\":'$1'}' >&$fd; }\n" +
      body;
  SuperviseOptions options;
  options.argv = {"/bin/bash", "-c", script, "fake-worker"};
  options.timeoutSeconds = timeout;
  RunResult run;
  superviseWorkers(workloads(n), options, run);
  return run;
}

TEST(WorkerTest, AllReported) {
  RunResult run = supervise(
      "echo '{\"event\":\"device\",\"device\":\"Fake GPU\"}' >&$fd\n"
      "i=$first; while [ $i -lt 3 ]; do start $i; pass $i; i=$((i+1)); done\n",
      3, 5);
  ASSERT_EQ(run.workloads.size(), 3u);
  EXPECT_EQ(run.device, "Fake GPU");
  for (const WorkloadResult &r : run.workloads)
    EXPECT_EQ(r.status, Status::Passed) << r.workload << ": " << r.message;
  EXPECT_EQ(worstStatus(run), Status::Passed);
}

TEST(WorkerTest, HangIsTimeoutAndNextWorkloadRuns) {
  RunResult run = supervise(
      "i=$first; while [ $i -lt 3 ]; do start $i;\n"
      "  if [ $i -eq 1 ]; then exec sleep 30; fi; pass $i; i=$((i+1)); done\n",
      3, 0.5);
  ASSERT_EQ(run.workloads.size(), 3u);
  EXPECT_EQ(run.workloads[0].status, Status::Passed);
  EXPECT_EQ(run.workloads[1].status, Status::Timeout);
  EXPECT_EQ(run.workloads[1].workload, "w1");
  EXPECT_NE(run.workloads[1].message.find("watchdog"), std::string::npos);
  EXPECT_EQ(run.workloads[2].status, Status::Passed);
}

TEST(WorkerTest, CrashIsRuntimeError) {
  RunResult run = supervise(
      "i=$first; while [ $i -lt 2 ]; do start $i;\n"
      "  if [ $i -eq 0 ]; then kill -SEGV $$; fi; pass $i; i=$((i+1)); done\n",
      2, 5);
  ASSERT_EQ(run.workloads.size(), 2u);
  EXPECT_EQ(run.workloads[0].status, Status::RuntimeError);
  EXPECT_NE(run.workloads[0].message.find("signal 11"), std::string::npos)
      << run.workloads[0].message;
  EXPECT_EQ(run.workloads[1].status, Status::Passed);
}

TEST(WorkerTest, LostContextExitRestartsWorker) {
  // The worker reports workload 0 as a fault, then exits 3 (context lost).
  RunResult run = supervise(
      "if [ $first -eq 0 ]; then start 0; echo '{\"event\":\"result\","
      "\"index\":0,\"result\":{\"status\":\"RUNTIME_ERROR\",\"workload\":"
      "\"w0\",\"message\":\"CUDA_ERROR_ILLEGAL_ADDRESS\"}}' >&$fd; exit 3; fi\n"
      "i=$first; while [ $i -lt 2 ]; do start $i; pass $i; i=$((i+1)); done\n",
      2, 5);
  EXPECT_EQ(run.workloads[0].status, Status::RuntimeError);
  EXPECT_EQ(run.workloads[0].message, "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(run.workloads[1].status, Status::Passed);
}

TEST(WorkerTest, SilentExitIsHarnessError) {
  RunResult run = supervise("exit 0\n", 2, 5);
  EXPECT_EQ(run.workloads[0].status, Status::HarnessError);
  EXPECT_EQ(run.workloads[1].status, Status::HarnessError);
}

TEST(WorkerTest, PrintedOutputIsCapturedPerWorkload) {
  // Workload 0 prints 1 MB and passes; workload 1 prints a few lines and
  // hangs: its TIMEOUT says that it printed, not that it hung. (Output is
  // given to the workload whose start event came before it; the pause keeps
  // the two apart on a loaded machine.)
  RunResult run = supervise(
      "start 0; head -c 1000000 /dev/zero | tr '\\0' 'x'; echo END0; pass 0\n"
      "start 1; sleep 0.2; echo first line; echo last line >&2; exec sleep "
      "30\n",
      2, 1);
  ASSERT_EQ(run.workloads.size(), 2u);
  const WorkloadResult &a = run.workloads[0], &b = run.workloads[1];
  EXPECT_EQ(a.status, Status::Passed);
  EXPECT_EQ(a.outputBytes, 1000005u);
  EXPECT_EQ(a.outputHead, std::string(4096, 'x'));
  EXPECT_EQ(a.outputTail.size(), 4096u);
  EXPECT_EQ(a.outputTail.substr(4090), "xEND0\n");
  EXPECT_EQ(b.status, Status::Timeout);
  EXPECT_EQ(b.outputBytes, 21u);
  EXPECT_EQ(b.outputHead, "first line\nlast line\n");
  EXPECT_NE(b.message.find("printed 21 bytes"), std::string::npos) << b.message;
  EXPECT_EQ(b.message.find("a hang"), std::string::npos) << b.message;
}

TEST(WorkerTest, JitPastTheCompileLimitIsCompileTimeout) {
  SuperviseOptions options;
  options.argv = {"/bin/bash", "-c",
                  "fd=${2#--result-fd=}; echo '{\"event\":\"jit\"}' >&$fd; "
                  "exec sleep 30",
                  "fake-worker"};
  options.timeoutSeconds = 60;
  options.compileTimeoutSeconds = 0.5;
  RunResult run;
  superviseWorkers(workloads(2), options, run);
  ASSERT_EQ(run.workloads.size(), 2u);
  for (const WorkloadResult &r : run.workloads) {
    EXPECT_EQ(r.status, Status::CompileTimeout) << r.workload;
    EXPECT_NE(r.message.find("PTX JIT"), std::string::npos) << r.message;
  }
}

TEST(WorkerTest, MissingExecutable) {
  SuperviseOptions options;
  options.argv = {"/nonexistent/ptxbench"};
  RunResult run;
  superviseWorkers(workloads(2), options, run);
  EXPECT_EQ(run.workloads[0].status, Status::HarnessError);
  EXPECT_EQ(run.workloads[1].status, Status::Skipped);
}

/// A worker that reports NO_GPU from inside its sandbox, as the driver does
/// when the sandbox keeps out what it needs, and passes without it.
const char *driverNeedsMore =
    "fd=${2#--result-fd=}\n"
    "say() { echo \"$1\" >&$fd; }\n"
    "if [ \"$PTXBENCH_WORKER_SANDBOX\" = off ]; then\n"
    "  say '{\"event\":\"sandbox\",\"sandbox\":\"off\"}'\n"
    "  for i in 0 1; do say '{\"event\":\"result\",\"index\":'$i',\"result\":"
    "{\"status\":\"PASSED\",\"workload\":\"w'$i'\"}}'; done\n"
    "else\n"
    "  say '{\"event\":\"sandbox\",\"sandbox\":\"landlock ABI 7\"}'\n"
    "  for i in 0 1; do say '{\"event\":\"result\",\"index\":'$i',\"result\":"
    "{\"status\":\"NO_GPU\",\"workload\":\"w'$i'\",\"message\":"
    "\"cuInit: CUDA_ERROR_OPERATING_SYSTEM\"}}'; done\n"
    "fi\n";

/// superviseWorkersOnGpu of driverNeedsMore under PTXBENCH_SANDBOX=`mode`
/// ("" unset); what it printed goes to `note`.
RunResult onGpu(const char *mode, std::string &note) {
  unsetenv("PTXBENCH_WORKER_SANDBOX");
  if (*mode)
    setenv("PTXBENCH_SANDBOX", mode, 1);
  else
    unsetenv("PTXBENCH_SANDBOX");
  SuperviseOptions options;
  options.argv = {"/bin/bash", "-c", driverNeedsMore, "fake-worker"};
  RunResult run;
  llvm::raw_string_ostream os(note);
  superviseWorkersOnGpu(workloads(2), options, run, os);
  unsetenv("PTXBENCH_SANDBOX");
  return run;
}

TEST(WorkerTest, DriverOutsideTheSandboxRunsWithout) {
  std::string note;
  RunResult run = onGpu("", note);
  ASSERT_EQ(run.workloads.size(), 2u);
  EXPECT_EQ(run.workloads[0].status, Status::Passed);
  EXPECT_EQ(run.workloads[1].status, Status::Passed);
  EXPECT_EQ(run.workerSandbox, "off (the CUDA driver did not start inside "
                               "it: cuInit: CUDA_ERROR_OPERATING_SYSTEM)");
  EXPECT_NE(note.find("does not start inside the GPU worker's sandbox"),
            std::string::npos)
      << note;
  unsetenv("PTXBENCH_WORKER_SANDBOX");
}

TEST(WorkerTest, DriverOutsideTheSandboxRequired) {
  std::string note;
  RunResult run = onGpu("require", note);
  ASSERT_EQ(run.workloads.size(), 2u);
  for (const WorkloadResult &r : run.workloads) {
    EXPECT_EQ(r.status, Status::HarnessError);
    EXPECT_NE(r.message.find("PTXBENCH_SANDBOX=require"), std::string::npos)
        << r.message;
  }
  EXPECT_EQ(note, "");
  EXPECT_EQ(getenv("PTXBENCH_WORKER_SANDBOX"), nullptr);
}

} // namespace
