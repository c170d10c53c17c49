//===- ChildProcessTest.cpp - Spawned children, their groups and limits ---===//
//
// A child in a group of its own is stopped, with what it started, at the
// limit; one that finishes keeps its output and status, and what it left
// running in its group is stopped too; a signal to the caller stops the
// group before the caller ends; a crash is told by its signal; a child
// dropped while running is killed.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/ChildProcess.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ptxbench::support;

namespace {

std::string temporaryPath(llvm::StringRef name) {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile(name, "txt", path));
  return std::string(path);
}

ChildOptions grouped(std::vector<std::string> argv, std::string log) {
  ChildOptions options;
  options.argv = std::move(argv);
  options.outputPath = std::move(log);
  options.ownGroup = true;
  return options;
}

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

/// Whether `pid` (not our child) still runs, waiting up to ten seconds (a
/// loaded machine) for the kernel to take it down. It was reparented, and a zombie waiting for its
/// new parent to reap it does not run.
bool stillRuns(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
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

TEST(ChildProcessTest, StopsTheToolAndWhatItStartedAtTheLimit) {
  std::string log = temporaryPath("group-log"), pidFile = temporaryPath("pid");
  auto start = std::chrono::steady_clock::now();
  auto run = runChild(
      grouped({"/bin/sh", "-c",
               "sleep 60 & echo $! > " + pidFile + "; echo started; sleep 60"},
              log),
      0.5);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_TRUE(bool(run)) << llvm::toString(run.takeError());
  EXPECT_TRUE(run->timedOut);
  EXPECT_LT(seconds, 10.0);
  EXPECT_EQ(run->describe(), "timed out");
  EXPECT_EQ(readFile(log), "started\n");
  pid_t child = std::atoi(readFile(pidFile).c_str());
  ASSERT_GT(child, 0);
  EXPECT_FALSE(stillRuns(child));
  llvm::sys::fs::remove(log);
  llvm::sys::fs::remove(pidFile);
}

TEST(ChildProcessTest, AFinishedToolKeepsItsOutputAndLeavesNothingBehind) {
  std::string log = temporaryPath("group-log"), pidFile = temporaryPath("pid");
  auto run = runChild(grouped({"/bin/sh", "-c",
                               "sleep 60 & echo $! > " + pidFile +
                                   "; echo out; echo err >&2; exit 3"},
                              log),
                      30);
  ASSERT_TRUE(bool(run)) << llvm::toString(run.takeError());
  EXPECT_FALSE(run->timedOut);
  EXPECT_EQ(run->exitCode(), 3);
  EXPECT_EQ(run->describe(), "exit status 3");
  EXPECT_EQ(readFile(log), "out\nerr\n");
  pid_t child = std::atoi(readFile(pidFile).c_str());
  ASSERT_GT(child, 0);
  EXPECT_FALSE(stillRuns(child));
  llvm::sys::fs::remove(log);
  llvm::sys::fs::remove(pidFile);
}

TEST(ChildProcessTest, ASignalToTheCallerStopsTheGroupToo) {
  std::string log = temporaryPath("group-log"), pidFile = temporaryPath("pid");
  pid_t caller = fork();
  ASSERT_GE(caller, 0);
  if (caller == 0) {
    auto run = runChild(grouped({"/bin/sh", "-c",
                                 "sleep 60 & echo $! > " + pidFile +
                                     "; sleep 60"},
                                log),
                        60);
    (void)bool(run);
    _exit(0); // not reached: SIGTERM ends this process
  }
  pid_t child = 0;
  for (int i = 0; i < 3000 && child <= 0; ++i) {
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

TEST(ChildProcessTest, AMissingExecutableSaysSo) {
  std::string log = temporaryPath("group-log");
  auto run = runChild(grouped({"/nonexistent/compute-sanitizer"}, log), 5);
  ASSERT_FALSE(bool(run));
  EXPECT_NE(llvm::toString(run.takeError()).find("/nonexistent"),
            std::string::npos);
  llvm::sys::fs::remove(log);
}

TEST(ChildProcessTest, ACrashIsToldByItsSignal) {
  ChildOptions options;
  options.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  auto run = runChild(options, 30);
  ASSERT_TRUE(bool(run)) << llvm::toString(run.takeError());
  EXPECT_EQ(run->signal(), SIGSEGV);
  EXPECT_EQ(run->exitCode(), -1);
  EXPECT_NE(run->describe().find("signal 11"), std::string::npos);
}

TEST(ChildProcessTest, PassedDescriptorsReachTheChild) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ChildOptions options;
  options.argv = {"/bin/sh", "-c", "echo through >&7"};
  options.passFds = {{fds[1], 7}};
  auto run = runChild(options, 30);
  close(fds[1]);
  ASSERT_TRUE(bool(run)) << llvm::toString(run.takeError());
  EXPECT_EQ(run->exitCode(), 0);
  char buf[32] = {};
  EXPECT_EQ(read(fds[0], buf, sizeof(buf)), 8);
  EXPECT_STREQ(buf, "through\n");
  close(fds[0]);
}

TEST(ChildProcessTest, ADroppedChildIsKilled) {
  std::string pidFile = temporaryPath("pid");
  {
    ChildOptions options;
    options.argv = {"/bin/sh", "-c", "echo $$ > " + pidFile + "; sleep 60"};
    auto child = ChildProcess::spawn(options);
    ASSERT_TRUE(bool(child)) << llvm::toString(child.takeError());
    for (int i = 0; i < 3000 && readFile(pidFile).empty(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(child->poll());
  }
  pid_t child = std::atoi(readFile(pidFile).c_str());
  ASSERT_GT(child, 0);
  EXPECT_FALSE(stillRuns(child));
  llvm::sys::fs::remove(pidFile);
}

TEST(ChildProcessTest, TheChildGetsTheEnvironmentItIsGiven) {
  ChildOptions options;
  options.argv = {"/bin/sh", "-c", "test \"$ONLY\" = here && test -z \"$HOME\""};
  options.environment = std::vector<std::string>{"ONLY=here"};
  auto run = runChild(options, 30);
  ASSERT_TRUE(bool(run)) << llvm::toString(run.takeError());
  EXPECT_EQ(run->exitCode(), 0);
}

} // namespace
