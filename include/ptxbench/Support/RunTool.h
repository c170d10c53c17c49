//===- RunTool.h - A tool run to its end, its output captured ---*- C++ -*-===//
//
// The toolkit's programs ptxbench asks something of (ptxas assembling or
// printing its version, nvdisasm, nvidia-smi, a Python interpreter saying
// where it lives) run through here: a ChildProcess with a deadline whose
// output goes to a temporary file that is read back and removed.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_SUPPORT_RUNTOOL_H
#define PTXBENCH_SUPPORT_RUNTOOL_H

#include "ptxbench/Support/ChildProcess.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ptxbench::support {

/// Which of the tool's streams are kept.
enum class ToolStreams { StdoutAndStderr, StdoutOnly };

/// How a tool ended and what it printed.
struct ToolOutput {
  ChildExit exit;
  std::string text;

  /// It exited by itself with status 0.
  bool succeeded() const { return exit.exitCode() == 0; }
};

/// Runs `argv` (argv[0] the executable's path) within `seconds` (0: no
/// limit). An error only when it could not be started or its output not
/// kept; a failing or stopped tool is a ToolOutput that says so.
llvm::Expected<ToolOutput>
runTool(llvm::ArrayRef<std::string> argv, double seconds,
        ToolStreams streams = ToolStreams::StdoutAndStderr);

} // namespace ptxbench::support

#endif // PTXBENCH_SUPPORT_RUNTOOL_H
