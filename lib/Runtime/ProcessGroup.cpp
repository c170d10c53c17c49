//===- ProcessGroup.cpp - A child and its descendants, time-limited ------===//
//
// posix_spawn with POSIX_SPAWN_SETPGROUP: the child leads a new process
// group that its own children join. The parent polls with waitid(WNOWAIT),
// so an exited leader stays a zombie, and its pid (the group's id) cannot
// be reused, until the group has been killed.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/ProcessGroup.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>

extern char **environ;

using namespace ptxbench::runtime;
using llvm::StringRef;

ProcessGroupRun ptxbench::runtime::runProcessGroup(std::vector<std::string> args,
                                                   StringRef logPath,
                                                   double seconds) {
  ProcessGroupRun result;
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string log = logPath.str();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(),
                       environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    result.error = std::strerror(rc);
    return result;
  }
  result.started = true;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(int64_t(seconds * 1000));
  // The exited tool is left a zombie (WNOWAIT) until its group is killed:
  // its pid, the group's id, cannot be reused before it is reaped.
  while (true) {
    siginfo_t info{};
    int waited = waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT);
    if (waited == 0 && info.si_pid == pid)
      break;
    if (waited < 0 && errno != EINTR) {
      result.error = std::string("lost the process: ") + std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Whatever is left in the group (the worker, or everything past the
  // limit) goes with it.
  kill(-pid, SIGKILL);
  while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR)
    ;
  return result;
}
