//===- ProcessGroupTest.cpp - runProcessGroup ------------------------------===//
//
// A tool that starts a process of its own is stopped, with that process,
// at the limit; one that finishes keeps its output and status, and what it
// left running in its group is stopped too; a signal to the caller stops
// the group before the caller ends.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/ProcessGroup.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <sys/wait.h>
#include <thread>

using namespace ptxbench::runtime;

namespace {

std::string temporaryPath(llvm::StringRef name) {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile(name, "txt", path));
  return std::string(path);
}

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

/// Whether `pid` (not our child) still runs, waiting up to a second for the
/// kernel to take it down. It was reparented, and a zombie waiting for its
/// new parent to reap it does not run.
bool stillRuns(pid_t pid) {
  for (int i = 0; i < 50; ++i) {
    if (kill(pid, 0) != 0 && errno == ESRCH)
      return false;
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
    size_t paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() &&
        stat[paren + 2] == 'Z')
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

TEST(ProcessGroupTest, StopsTheToolAndWhatItStartedAtTheLimit) {
  std::string log = temporaryPath("group-log"), pidFile = temporaryPath("pid");
  auto start = std::chrono::steady_clock::now();
  ProcessGroupRun run = runProcessGroup(
      {"/bin/sh", "-c",
       "sleep 60 & echo $! > " + pidFile + "; echo started; sleep 60"},
      log, 0.5);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_TRUE(run.started);
  EXPECT_TRUE(run.timedOut);
  EXPECT_LT(seconds, 10.0);
  EXPECT_TRUE(WIFSIGNALED(run.status));
  EXPECT_EQ(readFile(log), "started\n");
  pid_t child = std::atoi(readFile(pidFile).c_str());
  ASSERT_GT(child, 0);
  EXPECT_FALSE(stillRuns(child));
  llvm::sys::fs::remove(log);
  llvm::sys::fs::remove(pidFile);
}

TEST(ProcessGroupTest, AFinishedToolKeepsItsOutputAndLeavesNothingBehind) {
  std::string log = temporaryPath("group-log"), pidFile = temporaryPath("pid");
  ProcessGroupRun run = runProcessGroup(
      {"/bin/sh", "-c",
       "sleep 60 & echo $! > " + pidFile + "; echo out; echo err >&2; exit 3"},
      log, 30);
  EXPECT_TRUE(run.started);
  EXPECT_FALSE(run.timedOut);
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 3);
  EXPECT_EQ(readFile(log), "out\nerr\n");
  pid_t child = std::atoi(readFile(pidFile).c_str());
  ASSERT_GT(child, 0);
  EXPECT_FALSE(stillRuns(child));
  llvm::sys::fs::remove(log);
  llvm::sys::fs::remove(pidFile);
}

TEST(ProcessGroupTest, ASignalToTheCallerStopsTheGroupToo) {
  std::string log = temporaryPath("group-log"), pidFile = temporaryPath("pid");
  pid_t caller = fork();
  ASSERT_GE(caller, 0);
  if (caller == 0) {
    runProcessGroup({"/bin/sh", "-c", "sleep 60 & echo $! > " + pidFile +
                                          "; sleep 60"},
                    log, 60);
    _exit(0); // not reached: SIGTERM ends this process
  }
  pid_t child = 0;
  for (int i = 0; i < 500 && child <= 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    child = std::atoi(readFile(pidFile).c_str());
  }
  ASSERT_GT(child, 0);
  kill(caller, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(caller, &status, 0), caller);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(stillRuns(child));
  llvm::sys::fs::remove(log);
  llvm::sys::fs::remove(pidFile);
}

TEST(ProcessGroupTest, AMissingExecutableSaysSo) {
  std::string log = temporaryPath("group-log");
  ProcessGroupRun run =
      runProcessGroup({"/nonexistent/compute-sanitizer"}, log, 5);
  EXPECT_FALSE(run.started);
  EXPECT_FALSE(run.error.empty());
  llvm::sys::fs::remove(log);
}

} // namespace
