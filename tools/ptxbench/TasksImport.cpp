//===- TasksImport.cpp - ptxbench tasks import ----------------------------===//
//
// `ptxbench tasks import DEF.json WORKLOADS.jsonl -o DIR [--name NAME]`
// writes DIR/task.json and DIR/reference.py from a FlashInfer-Trace
// definition and its workload rows (Reference/FlashInferImport.h), then
// checks the new task with the loader. Each problem (what could not be
// mapped) is one line naming the file, the row's line and the JSON path;
// nothing is written when there is one. Notes say what was mapped with a
// loss or left for the author. An existing DIR/task.json is not replaced.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Reference/FlashInferImport.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench;

namespace {

cl::opt<std::string> taskName("name",
                              cl::desc("tasks import: the new task's name "
                                       "(default: the definition's)"),
                              cl::sub(cli::tasksSubCommand()));

/// The text of `path`; an error when it holds more than `limit` bytes
/// (nothing of it is read then).
Expected<std::string> readLimited(StringRef path, size_t limit) {
  uint64_t size = 0;
  if (std::error_code ec = sys::fs::file_size(path, size))
    return createStringError("cannot read " + path + ": " + ec.message());
  if (size > limit)
    return createStringError(path + " is " + Twine(size) + " bytes; at most " +
                             Twine(limit >> 20) + " MiB are read");
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return createStringError("cannot read " + path + ": " +
                             buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

Error writeFile(StringRef path, StringRef text) {
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (ec)
    return createStringError("cannot write " + path + ": " + ec.message());
  os << text;
  os.close();
  if (os.has_error())
    return createStringError("cannot write " + path);
  return Error::success();
}

} // namespace

int cli::tasksImport(ArrayRef<std::string> args, StringRef out) {
  if (args.size() != 2)
    return fail("tasks", "import expects DEF.json WORKLOADS.jsonl");
  if (out.empty())
    return fail("tasks", "import needs -o DIR, the new task's folder");
  Expected<std::string> def =
      readLimited(args[0], reference::kMaxDefinitionBytes);
  if (!def)
    return fail("tasks", toString(def.takeError()));
  Expected<std::string> rows =
      readLimited(args[1], reference::kMaxWorkloadBytes);
  if (!rows)
    return fail("tasks", toString(rows.takeError()));
  reference::ImportResult result =
      reference::importFlashInferTrace(*def, args[0], *rows, args[1], taskName);
  for (const reference::ImportMessage &n : result.notes)
    WithColor::note(outs()) << n.str() << "\n";
  for (const reference::ImportMessage &p : result.problems)
    WithColor::error(outs()) << p.str() << "\n";
  if (!result.task) {
    outs() << result.problems.size()
           << (result.problems.size() == 1 ? " problem" : " problems")
           << "; nothing written\n";
    return ExitFailed;
  }
  SmallString<128> taskFile(out), refFile(out);
  sys::path::append(taskFile, "task.json");
  sys::path::append(refFile, "reference.py");
  if (sys::fs::exists(taskFile))
    return fail("tasks", taskFile + " exists; import writes a new task");
  if (std::error_code ec = sys::fs::create_directories(out))
    return fail("tasks", "cannot create " + out + ": " + ec.message());
  if (Error e = writeFile(refFile, result.task->referencePy))
    return fail("tasks", toString(std::move(e)), ExitFailed);
  if (Error e = writeFile(taskFile, result.task->taskJSON))
    return fail("tasks", toString(std::move(e)), ExitFailed);
  runtime::TaskCheck check = runtime::checkTask(out);
  for (const runtime::TaskDiagnostic &d : check.diagnostics)
    WithColor::error(outs()) << d.str() << "\n";
  outs() << "wrote " << taskFile << " and " << refFile
         << (check.diagnostics.empty() ? "" : " (the task does not load)")
         << "\n";
  return check.diagnostics.empty() ? ExitDone : ExitFailed;
}
