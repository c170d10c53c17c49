//===- ChildProcess.cpp - A spawned helper process, time-limited ----------===//
//
// posix_spawn (a vfork-like clone: cheap from a large, threaded parent)
// with the child's descriptors set by file actions. The parent polls with
// waitid(WNOWAIT), so an exited child stays a zombie, and its pid (its
// group's id) cannot be reused, until its group has been killed and it is
// reaped.
//
// A group of its own is out of the terminal's reach: Ctrl-C goes to the
// foreground group only. So while such groups run, SIGINT, SIGTERM and
// SIGHUP kill them first, then go on to the handler that was there before.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/ChildProcess.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <pthread.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>

extern char **environ;

using namespace ptxbench::support;

namespace {

/// The groups running now (0: a free slot), for the signal handler; more
/// than 256 at once go untracked (they are still killed at their end).
std::array<std::atomic<pid_t>, 256> runningGroups;
constexpr std::array<int, 3> forwardedSignals = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previousActions[forwardedSignals.size()];

void killGroupsAndGoOn(int signal) {
  for (std::atomic<pid_t> &group : runningGroups)
    if (pid_t pid = group.load())
      ::kill(-pid, SIGKILL);
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

void trackGroup(pid_t pid) {
  for (std::atomic<pid_t> &group : runningGroups) {
    pid_t free = 0;
    if (group.compare_exchange_strong(free, pid))
      return;
  }
}

void untrackGroup(pid_t pid) {
  for (std::atomic<pid_t> &group : runningGroups) {
    pid_t expected = pid;
    if (group.compare_exchange_strong(expected, 0))
      return;
  }
}

} // namespace

bool ChildExit::exited() const { return !timedOut && WIFEXITED(status); }

int ChildExit::exitCode() const {
  return exited() ? WEXITSTATUS(status) : -1;
}

int ChildExit::signal() const {
  return !timedOut && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

std::string ChildExit::describe() const {
  if (timedOut)
    return "timed out";
  if (int s = signal())
    return llvm::formatv("signal {0} ({1})", s, strsignal(s)).str();
  return "exit status " + std::to_string(exitCode());
}

std::optional<ChildClock::time_point>
ptxbench::support::deadlineIn(double seconds) {
  if (seconds <= 0)
    return std::nullopt;
  return ChildClock::now() +
         std::chrono::microseconds(int64_t(seconds * 1e6));
}

void ptxbench::support::setChildMemoryLimit(uint64_t megabytes) {
  if (!megabytes)
    return;
  rlimit limit;
  limit.rlim_cur = limit.rlim_max = rlim_t(megabytes) << 20;
  setrlimit(RLIMIT_DATA, &limit);
}

llvm::Expected<ChildProcess>
ChildProcess::spawn(const ChildOptions &options) {
  if (options.argv.empty())
    return llvm::createStringError("no program to start");
  std::vector<std::string> args = options.argv;
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (options.outputFd >= 0)
    posix_spawn_file_actions_adddup2(&actions, options.outputFd, 1);
  else if (!options.outputPath.empty())
    posix_spawn_file_actions_addopen(&actions, 1, options.outputPath.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  else
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (options.discardStderr)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  else
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // dup2 clears close-on-exec, so the passed descriptors survive exec.
  for (auto [from, to] : options.passFds)
    posix_spawn_file_actions_adddup2(&actions, from, to);

  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A group's leader is tracked (for the signal handler) only once
  // posix_spawn returns, and the child may already run: the forwarded
  // signals wait, blocked, until it is tracked. The child starts with none
  // blocked.
  sigset_t forwarded, previousMask, none;
  sigemptyset(&forwarded);
  sigemptyset(&none);
  if (options.ownGroup) {
    posix_spawnattr_setflags(&attributes,
                             POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigmask(&attributes, &none);
    installHandlers();
    for (int signal : forwardedSignals)
      sigaddset(&forwarded, signal);
    pthread_sigmask(SIG_BLOCK, &forwarded, &previousMask);
  }
  std::vector<std::string> envStore;
  std::vector<char *> envp;
  if (options.environment) {
    envStore = *options.environment;
    for (std::string &e : envStore)
      envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(),
                       options.environment ? envp.data() : environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (options.ownGroup) {
    if (rc == 0)
      trackGroup(pid);
    pthread_sigmask(SIG_SETMASK, &previousMask, nullptr);
  }
  if (rc != 0)
    return llvm::createStringError("cannot start " + options.argv[0] + ": " +
                                   std::strerror(rc));
  return ChildProcess(pid, options.ownGroup);
}

ChildProcess::ChildProcess(pid_t pid, bool ownGroup)
    : childPid(pid), group(ownGroup), running(true) {}

ChildProcess::ChildProcess(ChildProcess &&other) noexcept
    : childPid(other.childPid), group(other.group), running(other.running),
      ended(other.ended) {
  other.running = false;
}

ChildProcess &ChildProcess::operator=(ChildProcess &&other) noexcept {
  if (this != &other) {
    if (running)
      kill();
    childPid = other.childPid;
    group = other.group;
    running = other.running;
    ended = other.ended;
    other.running = false;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (running)
    kill();
}

void ChildProcess::reap() {
  // Whatever is left in the group goes with it, before the leader's pid
  // (the group's id) can be reused.
  if (group) {
    ::kill(-childPid, SIGKILL);
    untrackGroup(childPid);
  }
  int reaped = 0;
  while (waitpid(childPid, &reaped, 0) < 0 && errno == EINTR)
    ;
  ended.status = reaped;
  running = false;
}

bool ChildProcess::poll() {
  if (!running)
    return true;
  siginfo_t info{};
  int waited = waitid(P_PID, childPid, &info, WEXITED | WNOHANG | WNOWAIT);
  if (waited < 0 && errno == EINTR)
    return false;
  if (waited < 0 || info.si_pid == childPid) {
    reap();
    return true;
  }
  return false;
}

ChildExit ChildProcess::wait(std::optional<ChildClock::time_point> deadline) {
  // Short children (most of them) are seen within a millisecond or two;
  // long ones are polled every 20 ms.
  auto pause = std::chrono::microseconds(250);
  while (!poll()) {
    if (deadline && ChildClock::now() >= *deadline) {
      ChildExit exit = kill();
      exit.timedOut = true;
      ended = exit;
      return exit;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2,
                                                std::chrono::milliseconds(20));
  }
  return ended;
}

ChildExit ChildProcess::kill() {
  if (!running)
    return ended;
  ::kill(group ? -childPid : childPid, SIGKILL);
  reap();
  return ended;
}

llvm::Expected<ChildExit> ptxbench::support::runChild(const ChildOptions &options,
                                                      double seconds) {
  auto child = ChildProcess::spawn(options);
  if (!child)
    return child.takeError();
  return child->wait(deadlineIn(seconds));
}
