//===- ChildProcess.h - A spawned helper process, time-limited -*- C++ -*-===//
//
// Everything a submission drives (NVRTC, the static analysis of a sample,
// the GPU worker, a sanitizer run) happens in a child process, so that a
// crash, a hang or runaway memory ends that child and not the sweep. This
// is the one way ptxbench starts such a child: posix_spawn with stdin from
// /dev/null, stdout and stderr discarded, sent to a file or to a pipe the
// caller reads, chosen descriptors passed on, optionally a process group of
// its own (killed whole at the end, and on SIGINT/SIGTERM/SIGHUP of the
// parent), and a wall-clock deadline past which it is killed. Limits on the
// child's memory are set by the child itself (setChildMemoryLimit), since
// posix_spawn cannot set them.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_SUPPORT_CHILDPROCESS_H
#define PTXBENCH_SUPPORT_CHILDPROCESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace ptxbench::support {

/// How a child ended.
struct ChildExit {
  /// Killed at its deadline.
  bool timedOut = false;
  /// waitpid()'s status; meaningful unless timedOut.
  int status = 0;

  bool exited() const;
  /// The exit code, or -1 when it did not exit by itself.
  int exitCode() const;
  /// The signal that ended it, or 0.
  int signal() const;
  /// "exit status 3", "signal 11 (Segmentation fault)", "timed out".
  std::string describe() const;
};

struct ChildOptions {
  /// argv[0] is the executable's path (not searched on PATH).
  std::vector<std::string> argv;
  /// Where stdout and stderr go: discarded when empty and no outputFd.
  std::string outputPath;
  /// Or this descriptor (a pipe's write end), when >= 0.
  int outputFd = -1;
  /// stderr goes to /dev/null instead of where stdout goes.
  bool discardStderr = false;
  /// (parent descriptor, number in the child) pairs passed on.
  std::vector<std::pair<int, int>> passFds;
  /// The child leads a new process group that its own children join; it
  /// is killed whole when the child ends or is stopped.
  bool ownGroup = false;
  /// The child's environment ("NAME=value" each); this process's when
  /// none.
  std::optional<std::vector<std::string>> environment;
};

using ChildClock = std::chrono::steady_clock;

/// A started child. Destroying one that still runs kills and reaps it.
class ChildProcess {
public:
  static llvm::Expected<ChildProcess> spawn(const ChildOptions &options);

  ChildProcess(ChildProcess &&other) noexcept;
  ChildProcess &operator=(ChildProcess &&other) noexcept;
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;
  ~ChildProcess();

  pid_t pid() const { return childPid; }
  /// Whether it has ended (reaps it when it has).
  bool poll();
  /// Waits until it ends, or kills it at `deadline` (none: waits forever).
  ChildExit wait(std::optional<ChildClock::time_point> deadline = {});
  /// Kills it (and its group) and reaps it.
  ChildExit kill();

private:
  ChildProcess(pid_t pid, bool ownGroup);
  void reap();

  pid_t childPid = -1;
  bool group = false;
  bool running = false;
  ChildExit ended;
};

/// Runs a child to its end within `seconds` (0: no limit).
llvm::Expected<ChildExit> runChild(const ChildOptions &options,
                                   double seconds);

/// The deadline `seconds` from now; none when seconds <= 0.
std::optional<ChildClock::time_point> deadlineIn(double seconds);

/// Limits this process's data memory to `megabytes` MiB (0: no limit): for
/// a child to call first thing.
void setChildMemoryLimit(uint64_t megabytes);

} // namespace ptxbench::support

#endif // PTXBENCH_SUPPORT_CHILDPROCESS_H
