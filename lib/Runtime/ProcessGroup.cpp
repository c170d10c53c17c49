//===- ProcessGroup.cpp - A child and its descendants, time-limited ------===//
//
// posix_spawn with POSIX_SPAWN_SETPGROUP: the child leads a new process
// group that its own children join. The parent polls with waitid(WNOWAIT),
// so an exited leader stays a zombie, and its pid (the group's id) cannot
// be reused, until the group has been killed.
//
// A group of its own is out of the terminal's reach: Ctrl-C goes to the
// foreground group only. So while groups run, SIGINT, SIGTERM and SIGHUP
// kill them first, then go on to the handler that was there before.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/ProcessGroup.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>

extern char **environ;

using namespace ptxbench::runtime;
using llvm::StringRef;

namespace {

/// The groups running now (0: a free slot), for the signal handler; more
/// than 64 at once (ptxbench runs one) would go untracked.
std::array<std::atomic<pid_t>, 64> runningGroups;
constexpr std::array<int, 3> forwardedSignals = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previousActions[forwardedSignals.size()];

void killGroupsAndGoOn(int signal) {
  for (std::atomic<pid_t> &group : runningGroups)
    if (pid_t pid = group.load())
      kill(-pid, SIGKILL);
  for (size_t i = 0; i < forwardedSignals.size(); ++i)
    if (forwardedSignals[i] == signal)
      sigaction(signal, &previousActions[i], nullptr);
  raise(signal); // delivered to the previous handler once this one returns
}

void installHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_handler = killGroupsAndGoOn;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < forwardedSignals.size(); ++i)
      sigaction(forwardedSignals[i], &action, &previousActions[i]);
  });
}

/// Holds `pid` in a slot of runningGroups while it lives.
class RunningGroup {
public:
  explicit RunningGroup(pid_t pid) {
    for (std::atomic<pid_t> &group : runningGroups) {
      pid_t free = 0;
      if (group.compare_exchange_strong(free, pid)) {
        slot = &group;
        return;
      }
    }
  }
  ~RunningGroup() { release(); }
  /// Before the leader is reaped: its pid may be reused after.
  void release() {
    if (slot)
      slot->store(0);
    slot = nullptr;
  }

private:
  std::atomic<pid_t> *slot = nullptr;
};

} // namespace

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
  installHandlers();
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
  RunningGroup running(pid);
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
  running.release();
  while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR)
    ;
  return result;
}
