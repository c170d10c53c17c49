//===- PromptCommand.cpp - ptxbench prompt --------------------------------===//
//
// `ptxbench prompt --task DIR|NAME --arch sm_90a|sm_100a --tag TAG
// [--tag-file FILE] [--language cuda|triton] [--format text|json]
// [--docs DIR] [-o FILE]` writes the prompt for a task (see Prompt.h) with
// one tag's documents (`--context` is the same flag): as text, each message
// under a `=== role ===` line, or as JSON chat messages with the prompt's
// sha256, the parts it holds and each document's sha256.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Prompt/Prompt.h"
#include "ptxbench/Prompt/Tags.h"
#include "ptxbench/Task/Task.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand promptCmd("prompt", "Write the prompt for a task");
cl::opt<std::string> promptTask("task",
                                cl::desc("Task: a name under --tasks, a "
                                         "folder or a task.json"),
                                cl::value_desc("name|dir"), cl::Required,
                                cl::sub(promptCmd));
cl::opt<std::string> promptTasksDir("tasks", cl::desc("The tasks folder"),
                                    cl::value_desc("dir"), cl::init("tasks"),
                                    cl::sub(promptCmd));
cl::opt<std::string> promptArch("arch", cl::desc("sm_90a or sm_100a"),
                                cl::init("sm_90a"), cl::sub(promptCmd));
cl::opt<std::string> promptTag(
    "tag",
    cl::desc("The context: a tag of --tag-file, or none, brief (instruction "
             "syntax) or full (plus the architecture document and patterns)"),
    cl::init("brief"), cl::sub(promptCmd));
cl::alias promptContext("context", cl::desc("Alias for --tag"),
                        cl::aliasopt(promptTag));
cl::opt<std::string> promptTagFile("tag-file",
                                   cl::desc("Tags and their documents (JSON; "
                                            "docs/prompting.md)"),
                                   cl::value_desc("file"), cl::sub(promptCmd));
cl::opt<std::string> promptLanguage(
    "language",
    cl::desc("The language asked for: cuda (CUDA C++ or PTX) or triton"),
    cl::init("cuda"), cl::sub(promptCmd));
cl::opt<std::string> promptFormat("format", cl::desc("text or json"),
                                  cl::init("text"), cl::sub(promptCmd));
cl::opt<std::string> promptDocs("docs",
                                cl::desc("The docs/ folder (default: found "
                                         "above the task folder)"),
                                cl::value_desc("dir"), cl::sub(promptCmd));
cl::opt<std::string> promptOutput("o", cl::desc("Output file"), cl::init("-"),
                                  cl::value_desc("file"), cl::sub(promptCmd));

int fail(const Twine &message) { return cli::fail("prompt", message); }

int runPrompt() {
  prompt::TagSet defined;
  if (!promptTagFile.empty()) {
    auto loaded = prompt::loadTagFile(promptTagFile);
    if (!loaded)
      return fail(toString(loaded.takeError()));
    defined = std::move(*loaded);
  }
  auto tag = prompt::resolveTag(promptTag, defined);
  if (!tag)
    return fail("--tag: " + toString(tag.takeError()));
  std::optional<prompt::AnswerLanguage> language =
      prompt::parseAnswerLanguage(promptLanguage);
  if (!language)
    return fail("unknown --language '" + promptLanguage +
                "' (expected cuda or triton)");
  if (promptFormat != "text" && promptFormat != "json")
    return fail("unknown --format '" + promptFormat +
                "' (expected text or json)");
  // A bare name means TASKS/NAME.
  std::string taskPath = cli::resolveTaskPath(promptTask, promptTasksDir);
  auto task = runtime::loadTask(taskPath);
  if (!task)
    return fail(toString(task.takeError()));

  prompt::PromptOptions options;
  options.arch = promptArch;
  options.tag = std::move(*tag);
  options.language = *language;
  options.docsDir = promptDocs;
  auto built = prompt::buildPrompt(*task, options);
  if (!built)
    return fail(toString(built.takeError()));

  std::string errorMessage;
  std::unique_ptr<ToolOutputFile> out =
      mlir::openOutputFile(promptOutput, &errorMessage);
  if (!out)
    return fail(errorMessage);
  if (promptFormat == "json")
    out->os() << formatv("{0:2}", prompt::toJSON(*built)) << "\n";
  else
    prompt::printText(*built, out->os());
  out->keep();
  return 0;
}

} // namespace

cli::Command cli::promptCommand() { return {promptCmd, runPrompt}; }
