//===- ExtractCommand.cpp - ptxbench extract ------------------------------===//
//
// `ptxbench extract RESPONSE.md [-o FILE]` writes the code block of a
// model's answer (see ExtractCode.h for which block) to FILE or stdout and
// says on stderr which language and line it took. Exit status 1 with the
// reason when there is no usable block. On a terminal, control characters
// in the code (escape sequences, NUL) are shown escaped; a file gets the
// bytes.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Prompt/ExtractCode.h"
#include "ptxbench/Support/TerminalText.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand extractCmd("extract",
                          "Pull the code block out of a model's answer");
cl::opt<std::string> response(cl::Positional, cl::Required,
                              cl::desc("<response.md>"), cl::sub(extractCmd));
cl::opt<std::string> output("o", cl::desc("Output file"), cl::init("-"),
                            cl::value_desc("file"), cl::sub(extractCmd));

int runExtract() {
  std::string errorMessage;
  std::unique_ptr<MemoryBuffer> input =
      mlir::openInputFile(response, &errorMessage);
  if (!input)
    return cli::fail("extract", errorMessage);
  Expected<prompt::ExtractedCode> code =
      prompt::extractCode(input->getBuffer());
  if (!code)
    return cli::fail("extract", response + ": " + toString(code.takeError()),
                     cli::ExitFailed);
  std::unique_ptr<ToolOutputFile> out =
      mlir::openOutputFile(output, &errorMessage);
  if (!out)
    return cli::fail("extract", errorMessage);
  writeForTerminal(out->os(), code->code);
  out->keep();
  errs() << "extracted "
         << prompt::languageName(code->language)
         << " from line " << code->line << " of " << response << "\n";
  return 0;
}

} // namespace

cli::Command cli::extractCommand() { return {extractCmd, runExtract}; }
