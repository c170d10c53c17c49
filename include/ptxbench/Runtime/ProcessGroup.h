//===- ProcessGroup.h - A child and its descendants, time-limited -*- C++ -*-===//
//
// Runs a tool that starts processes of its own (compute-sanitizer starts
// the worker) so that nothing it started outlives it or a time limit.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_PROCESSGROUP_H
#define PTXBENCH_RUNTIME_PROCESSGROUP_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ptxbench::runtime {

struct ProcessGroupRun {
  bool started = false;
  /// Still running after the limit: the group was killed.
  bool timedOut = false;
  /// waitpid's status of the first process, when it ran.
  int status = 0;
  /// Why it did not start, or was lost.
  std::string error;
};

/// Runs `args` (args[0] the executable's path) in a new process group,
/// stdin from /dev/null, stdout and stderr into `logPath`, for at most
/// `seconds`. When it exits or the limit passes, every process left in its
/// group is killed; so is every running group when this process gets
/// SIGINT, SIGTERM or SIGHUP (the group is not the terminal's foreground
/// group, so Ctrl-C would not reach it), before the handler that was
/// installed before runs.
ProcessGroupRun runProcessGroup(std::vector<std::string> args,
                                llvm::StringRef logPath, double seconds);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_PROCESSGROUP_H
