//===- Commands.h - The subcommands of the ptxbench CLI --------*- C++ -*-===//
//
// Each subcommand lives in its own file, declares its llvm::cl::SubCommand
// and options there, and exposes one entry point here.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TOOLS_PTXBENCH_COMMANDS_H
#define PTXBENCH_TOOLS_PTXBENCH_COMMANDS_H

#include "llvm/Support/CommandLine.h"

namespace ptxbench::cli {

/// The exit status of every subcommand (docs/cli.md).
enum ExitStatus : int {
  /// Done, every result as asked for.
  ExitDone = 0,
  /// Done, and a result failed: a workload, a request, a task file, an
  /// input that does not compile or import.
  ExitFailed = 1,
  /// A usage error: a flag or value that is wrong, an input that cannot be
  /// read or is not what the flag names; nothing was done.
  ExitUsage = 2,
  /// Stopped short of the job: no GPU for work that needs one, or a budget
  /// ran out (rerun to resume).
  ExitStopped = 3,
};

/// A subcommand: its llvm::cl::SubCommand and what runs it. Returns the
/// process exit status.
struct Command {
  llvm::cl::SubCommand &subcommand;
  int (*run)();
};

/// The task `task` names for run and prompt: a folder or task.json as given
/// when it exists, else (a bare name) the folder of that name under
/// `tasksDir`, as generate's --task names it.
std::string resolveTaskPath(llvm::StringRef task, llvm::StringRef tasksDir);

/// Prints "ptxbench SUB: error: message" and returns `status`.
int fail(llvm::StringRef subcommand, const llvm::Twine &message,
         int status = ExitUsage);

/// The text of `ptxbench --version`: ptxbench's version and commit, LLVM's
/// and the CUDA toolchain's and libraries' (NVRTC, ptxas, the driver,
/// cuBLASLt, cuDNN), each with why it is missing when it is.
std::string versionText();

/// `ptxbench summary FILE.ptx [--export OUT.ptx]`.
Command summaryCommand();

/// `ptxbench analyze FILE [--arch A] [--require F,...] [--format F] [--sass]`.
Command analyzeCommand();

/// `ptxbench extract RESPONSE.md [-o FILE]`.
Command extractCommand();

/// `ptxbench tasks [--tasks DIR]`, `ptxbench tasks show NAME`,
/// `ptxbench tasks check PATH...`, `ptxbench tasks reference NAME ...` and
/// `ptxbench tasks import DEF.json WORKLOADS.jsonl -o DIR`.
Command tasksCommand();
/// The `tasks` subcommand, for the options of its verbs' files.
llvm::cl::SubCommand &tasksSubCommand();
/// `ptxbench tasks reference NAME|DIR [--shapes W] [--device cpu|cuda]
/// [-o DIR]` (TasksReference.cpp).
int tasksReference(llvm::ArrayRef<std::string> args, llvm::StringRef output);
/// `ptxbench tasks import DEF.json WORKLOADS.jsonl -o DIR` (TasksImport.cpp).
int tasksImport(llvm::ArrayRef<std::string> args, llvm::StringRef output);

/// `ptxbench run --task NAME|DIR --solution FILE [--shapes S] [--json OUT]`.
Command runCommand();

/// `ptxbench prompt --task NAME|DIR --arch A --context none|brief|full
/// [--format text|json]`.
Command promptCommand();

/// `ptxbench feedback RESULT.json [--analysis ANALYSIS.json]`.
Command feedbackCommand();

/// `ptxbench eval --tasks DIR --samples DIR --db FILE [--static-only] ...`.
Command evalCommand();

/// `ptxbench merge OUT.sqlite IN.sqlite...`.
Command mergeCommand();

/// `ptxbench report --db FILE [--format F] [--sample ID]`.
Command reportCommand();

/// `ptxbench compile-cuda --arch A --name N IN.cu OUT.json` (internal: the
/// child process that compiles under the compile limits).
Command compileCommand();
/// `ptxbench compile-triton --workdir D --python P --driver S` (internal:
/// the child process a Triton submission compiles in).
Command tritonCompileCommand();

/// `ptxbench reference-child --workdir D --python P --driver S --device
/// cpu|cuda` (internal: the child process a Python reference runs in).
Command referenceChildCommand();

/// `ptxbench analyze-sample REQUEST.json OUTCOME.json` (internal: the child
/// process in which eval runs one sample's static stage).
Command analyzeSampleCommand();

/// `ptxbench fixit --db FILE -o OUT.jsonl [--heldout-tasks A,B] ...`.
Command fixitCommand();

/// `ptxbench generate --models FILE --model NAME,... --out DIR ...`.
Command generateCommand();

/// `ptxbench study FILE [--print-generate] ...`.
Command studyCommand();

} // namespace ptxbench::cli

#endif // PTXBENCH_TOOLS_PTXBENCH_COMMANDS_H
