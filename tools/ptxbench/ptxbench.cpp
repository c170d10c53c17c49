//===- ptxbench.cpp - The ptxbench command line ---------------------------===//
//
// The user's entry point: dispatches to the subcommands in Commands.h.
// `ptxbench --help`, `ptxbench` alone and an unknown subcommand print the
// list of subcommands, one line each, from the table below (so a
// subcommand is listed exactly when it can run); `ptxbench SUB --help` is
// llvm::cl's help for that subcommand's options, and `--help-hidden` also
// shows the options the LLVM libraries register. `--version` prints the
// versions a result depends on (Version.cpp). Every subcommand exits with
// the statuses of cli::ExitStatus (docs/cli.md). A PTXBENCH_SANDBOX
// setting that cannot be honoured is a usage error of the commands that
// compile or run submissions.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Support/Sandbox.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <vector>

using namespace ptxbench;

namespace {

/// "SUBCOMMANDS:" and one line per subcommand, sorted by name.
void printUsage(llvm::ArrayRef<cli::Command> commands, llvm::raw_ostream &os) {
  std::vector<const cli::Command *> sorted;
  size_t width = 0;
  for (const cli::Command &command : commands) {
    sorted.push_back(&command);
    width = std::max(width, command.subcommand.getName().size());
  }
  llvm::sort(sorted, [](const cli::Command *a, const cli::Command *b) {
    return a->subcommand.getName() < b->subcommand.getName();
  });
  os << "OVERVIEW: ptxbench: architecture-specific PTX benchmark\n\n"
        "USAGE: ptxbench <subcommand> [options]\n\nSUBCOMMANDS:\n";
  for (const cli::Command *command : sorted) {
    llvm::StringRef name = command->subcommand.getName();
    os << "  " << name << std::string(width - name.size() + 2, ' ')
       << command->subcommand.getDescription() << "\n";
  }
  os << "\nType \"ptxbench <subcommand> --help\" for a subcommand's options.\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  const cli::Command commands[] = {
      cli::summaryCommand(), cli::analyzeCommand(), cli::extractCommand(),
      cli::runCommand(),     cli::promptCommand(),  cli::feedbackCommand(),
      cli::tasksCommand(),   cli::evalCommand(),    cli::mergeCommand(),
      cli::reportCommand(),  cli::fixitCommand(),   cli::generateCommand(),
      cli::compileCommand(), cli::tritonCompileCommand(),
      cli::referenceChildCommand(), cli::analyzeSampleCommand(),
      cli::studyCommand()};

  // The top level has no options of its own; llvm::cl's help for it would
  // list the LLVM libraries' hundreds, so the subcommands are listed here.
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << cli::versionText(); });
  if (argc == 1) {
    printUsage(commands, llvm::errs());
    return cli::ExitUsage;
  }
  llvm::StringRef first = argv[1];
  if (first == "--help" || first == "-help" || first == "-h") {
    printUsage(commands, llvm::outs());
    return cli::ExitDone;
  }
  if (first == "--version" || first == "-version") {
    llvm::outs() << cli::versionText();
    return cli::ExitDone;
  }
  if (!first.starts_with("-") &&
      llvm::none_of(commands, [&](const cli::Command &command) {
        return command.subcommand.getName() == first;
      })) {
    llvm::WithColor::error(llvm::errs(), "ptxbench")
        << "unknown subcommand '" << first << "'\n\n";
    printUsage(commands, llvm::errs());
    return cli::ExitUsage;
  }

  // A flag llvm::cl does not know, or a value it cannot parse, is a usage
  // error (llvm::cl itself would exit with 1).
  if (!llvm::cl::ParseCommandLineOptions(
          argc, argv, "ptxbench: architecture-specific PTX benchmark\n",
          &llvm::errs()))
    return cli::ExitUsage;
  for (const cli::Command &command : commands) {
    if (!command.subcommand)
      continue;
    // The commands that compile or run submissions start nothing when the
    // sandbox setting cannot be honoured (the children check it again).
    llvm::StringRef name = command.subcommand.getName();
    if (name == "analyze" || name == "run" || name == "eval" ||
        name == "generate") {
      auto mode = sandboxModeFromEnvironment();
      if (!mode) {
        llvm::WithColor::error(llvm::errs(), "ptxbench")
            << llvm::toString(mode.takeError()) << "\n";
        return cli::ExitUsage;
      }
      SandboxState state = probeSandbox();
      if (*mode == SandboxMode::Require && !state.missing.empty()) {
        llvm::WithColor::error(llvm::errs(), "ptxbench")
            << "PTXBENCH_SANDBOX=require, but " << state.missing << "\n";
        return cli::ExitUsage;
      }
    }
    return command.run();
  }
  printUsage(commands, llvm::errs());
  return cli::ExitUsage;
}
