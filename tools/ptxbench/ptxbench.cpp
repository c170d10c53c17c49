//===- ptxbench.cpp - The ptxbench command line ---------------------------===//
//
// The user's entry point: dispatches to the subcommands in Commands.h.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace ptxbench;

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  const cli::Command commands[] = {
      cli::summaryCommand(), cli::analyzeCommand(), cli::extractCommand(),
      cli::runCommand(),     cli::promptCommand(),  cli::feedbackCommand(),
      cli::tasksCommand(),   cli::evalCommand(),    cli::mergeCommand(),
      cli::reportCommand(),  cli::fixitCommand(),   cli::generateCommand(),
      cli::compileCommand()};
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "ptxbench: architecture-specific PTX benchmark\n");
  for (const cli::Command &command : commands)
    if (command.subcommand)
      return command.run();
  llvm::errs() << "ptxbench: expected a command; see 'ptxbench --help'\n";
  return 1;
}
