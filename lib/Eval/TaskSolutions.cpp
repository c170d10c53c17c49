//===- TaskSolutions.cpp - What Fixit needs from a task folder ------------===//

#include "ptxbench/Eval/TaskSolutions.h"

#include "ptxbench/Eval/StaticEval.h"
#include "ptxbench/Support/JSON.h"
#include "ptxbench/Task/Task.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace ptxbench;
using namespace ptxbench::eval;
using llvm::StringRef;

static std::string joinPath(StringRef a, StringRef b, StringRef c = "") {
  llvm::SmallString<256> p(a);
  llvm::sys::path::append(p, b);
  if (!c.empty())
    llvm::sys::path::append(p, c);
  return std::string(p);
}

std::string ptxbench::eval::taskSummary(StringRef tasksDir, StringRef task,
                                        StringRef arch) {
  std::string text = ("You write GPU kernels for NVIDIA " + arch +
                      " as CUDA C++ with inline PTX, or PTX. Task " + task +
                      ".")
                         .str();
  auto loaded = runtime::loadTask(joinPath(tasksDir, task));
  if (!loaded) {
    llvm::consumeError(loaded.takeError());
    return text;
  }
  if (!loaded->description.empty())
    text += " " + loaded->description;
  auto it = loaded->features.find(arch.str());
  if (it != loaded->features.end())
    text += " Use the architecture-specific instructions of these feature "
            "families: " +
            llvm::join(it->second, ", ") + ".";
  return text;
}

/// The solutions folder for `task`: its own `solutions/` when that has a
/// manifest, else a shared corpus (`TASKS/*/solutions/manifest.json`)
/// whose "tasks" list names it. Empty when there is none.
static std::string solutionsFolder(StringRef tasksDir, StringRef task) {
  std::string own = joinPath(tasksDir, task, "solutions");
  if (llvm::sys::fs::exists(joinPath(own, "manifest.json")))
    return own;
  std::error_code ec;
  std::vector<std::string> candidates;
  for (llvm::sys::fs::directory_iterator it(tasksDir, ec), end;
       it != end && !ec; it.increment(ec))
    candidates.push_back(joinPath(it->path(), "solutions"));
  llvm::sort(candidates);
  for (const std::string &folder : candidates) {
    auto buffer =
        llvm::MemoryBuffer::getFile(joinPath(folder, "manifest.json"));
    if (!buffer)
      continue;
    auto manifest = ptxbench::parseJSON((*buffer)->getBuffer());
    if (!manifest) {
      llvm::consumeError(manifest.takeError());
      continue;
    }
    if (const llvm::json::Object *o = manifest->getAsObject())
      if (const llvm::json::Array *tasks = o->getArray("tasks"))
        for (const llvm::json::Value &name : *tasks)
          if (name.getAsString() == task)
            return folder;
  }
  return {};
}

llvm::Expected<std::optional<SampleRecord>>
ptxbench::eval::expertSolution(StringRef tasksDir, StringRef task,
                               StringRef arch) {
  std::string solutions = solutionsFolder(tasksDir, task);
  if (solutions.empty())
    return std::nullopt;
  std::string manifestPath = joinPath(solutions, "manifest.json");
  auto buffer = llvm::MemoryBuffer::getFile(manifestPath);
  if (!buffer)
    return llvm::createStringError("cannot read '" + manifestPath +
                                   "': " + buffer.getError().message());
  auto manifest = ptxbench::parseJSON((*buffer)->getBuffer());
  if (!manifest)
    return llvm::createStringError("'" + manifestPath +
                                   "': " + toString(manifest.takeError()));
  const llvm::json::Array *entries = manifest->getAsArray();
  if (const llvm::json::Object *o = manifest->getAsObject())
    entries = o->getArray("solutions");
  if (!entries)
    return llvm::createStringError("'" + manifestPath +
                                   "': expected a \"solutions\" list");
  for (const llvm::json::Value &v : *entries) {
    const llvm::json::Object *e = v.getAsObject();
    if (!e)
      continue;
    bool expert = e->getString("kind") == "expert" ||
                  e->getString("role") == "expert" ||
                  e->getBoolean("expert").value_or(false);
    std::optional<StringRef> file = e->getString("file");
    if (!expert || !file)
      continue;
    SampleInput input;
    input.key = {"@expert", "-", task.str(), file->str(), 0};
    input.dir = solutions;
    input.solutionPath = joinPath(solutions, *file);
    if (!llvm::sys::fs::exists(input.solutionPath))
      continue;
    SampleRecord record;
    record.key = input.key;
    record.arch = arch.str();
    if (!loadSolution(input, record))
      return llvm::createStringError(record.error);
    auto loaded = runtime::loadTask(joinPath(tasksDir, task));
    if (!loaded)
      return loaded.takeError();
    StaticOptions options;
    options.arch = arch.str();
    auto it = loaded->features.find(arch.str());
    if (it != loaded->features.end())
      options.requested = it->second;
    StaticEvaluator evaluator;
    if (!evaluator.prepare(record, options))
      return llvm::createStringError("expert solution " + record.error);
    evaluator.analyze(record, options);
    return std::optional<SampleRecord>(std::move(record));
  }
  return std::nullopt;
}
