//===- RunTool.cpp - A tool run to its end, its output captured -----------===//
//
// The output goes to a support::TempFile rather than a pipe, so a tool that
// prints a lot never blocks on a full pipe while this thread waits.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/RunTool.h"

#include "ptxbench/Support/TempFile.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace ptxbench::support;

Expected<ToolOutput> ptxbench::support::runTool(ArrayRef<std::string> argv,
                                                double seconds,
                                                ToolStreams streams) {
  Expected<TempFile> log = TempFile::create("tool", "txt");
  if (!log)
    return log.takeError();
  ChildOptions options;
  options.argv.assign(argv.begin(), argv.end());
  options.outputPath = log->path();
  options.discardStderr = streams == ToolStreams::StdoutOnly;
  Expected<ChildExit> exit = runChild(options, seconds);
  if (!exit)
    return exit.takeError();
  ErrorOr<std::unique_ptr<MemoryBuffer>> text =
      MemoryBuffer::getFile(log->path(), /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!text)
    return createStringError(text.getError(),
                             "cannot read what " + argv.front() +
                                 " printed: " + text.getError().message());
  return ToolOutput{*exit, (*text)->getBuffer().str()};
}
