//===- SolutionManifest.cpp - Check a solutions/manifest.json -------------===//
//
// A task's example solutions are listed in solutions/manifest.json (the
// format is docs/tasks.md's and tasks/solutions.schema.json's): the tasks
// they solve and, per solution file, its architecture, the expected harness
// status and static verdicts, and how the GPU script runs it. The check
// reports, like the task loader, every problem with its JSON path: unknown
// or mistyped keys, tasks that do not exist, solution files that are
// missing, and unknown statuses, families and verdicts.
//
//===----------------------------------------------------------------------===//

#include "TaskReader.h"

#include "ptxbench/ISA/ISA.h"
#include "ptxbench/Support/JSON.h"
#include "ptxbench/Task/Verdict.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

/// A harness status name, at `path`.
void checkStatus(TaskReader &reader, const json::Value &value,
                 const Twine &path) {
  std::optional<StringRef> s = value.getAsString();
  if (!s || !parseStatus(*s))
    reader.error(path, "expected a harness status (PASSED, INCORRECT, "
                       "COMPILE_ERROR, TIMEOUT, ...), got " +
                           (s ? "\"" + s->str() + "\"" : kindOf(value).str()));
}

void checkSolution(TaskReader &reader, const json::Object &o, StringRef path,
                   StringRef folder, ArrayRef<std::string> tasks) {
  reader.unknownKeys(o, path,
                     {"file", "arch", "status", "run", "features", "note",
                      "expert", "compiles", "status_by_task"});
  if (std::optional<std::string> file =
          reader.string(o, "file", path, /*required=*/true,
                        "the solution's file name, beside manifest.json")) {
    SmallString<256> full(folder);
    sys::path::append(full, *file);
    if (!sys::fs::exists(full))
      reader.error(joinPath(path, "file"),
                   "\"" + *file + "\" does not exist in " + folder);
  }
  if (std::optional<std::string> arch =
          reader.string(o, "arch", path, /*required=*/true,
                        "an architecture such as sm_90a")) {
    StringRef a(*arch);
    bool ok = a.consume_front("sm_");
    if (ok && (a.ends_with("a") || a.ends_with("f")))
      a = a.drop_back();
    if (!ok || a.empty() || !all_of(a, isDigit))
      reader.error(joinPath(path, "arch"),
                   "expected sm_<number> with an optional 'a' or 'f' suffix, "
                   "got \"" +
                       *arch + "\"");
  }
  if (const json::Value *status = o.get("status"))
    checkStatus(reader, *status, joinPath(path, "status"));
  else
    reader.error(joinPath(path, "status"),
                 "missing; expected the harness status expected on every "
                 "workload");
  reader.oneOf(o, "run", path, {"all", "dev", "skip"}, StringRef("dev"));
  if (const json::Object *features =
          reader.object(o, "features", path, /*required=*/false,
                        "an object of family -> expected verdict")) {
    std::vector<std::string> families;
    for (const auto &kv : *features)
      families.push_back(kv.first.str());
    llvm::sort(families);
    for (const std::string &family : families) {
      std::string fpath = joinPath(joinPath(path, "features"), family);
      if (!ptxbench::isa::familiesOfRequirement(family))
        reader.error(fpath, "unknown feature family; expected a name from "
                            "docs/isa-coverage.md");
      std::optional<StringRef> verdict = features->get(family)->getAsString();
      if (!verdict || !parseStaticVerdict(*verdict))
        reader.error(fpath, "expected \"used\", \"missing\", \"unreachable\" "
                            "or \"serialized\"");
    }
  }
  reader.string(o, "note", path, /*required=*/false, "a string");
  for (StringRef key : {"expert", "compiles"})
    if (const json::Value *v = o.get(key); v && !v->getAsBoolean())
      reader.error(joinPath(path, key),
                   "expected true or false, got " + kindOf(*v));
  if (const json::Object *byTask =
          reader.object(o, "status_by_task", path, /*required=*/false,
                        "an object of task -> harness status")) {
    std::vector<std::string> names;
    for (const auto &kv : *byTask)
      names.push_back(kv.first.str());
    llvm::sort(names);
    for (const std::string &name : names) {
      std::string tpath = joinPath(joinPath(path, "status_by_task"), name);
      if (!is_contained(tasks, name))
        reader.error(tpath, "not one of the manifest's tasks");
      checkStatus(reader, *byTask->get(name), tpath);
    }
  }
}

} // namespace

std::vector<TaskDiagnostic>
ptxbench::runtime::checkSolutionManifest(StringRef manifest,
                                         StringRef tasksDir) {
  std::vector<TaskDiagnostic> diagnostics;
  auto buffer = MemoryBuffer::getFile(manifest);
  if (!buffer) {
    diagnostics.push_back(
        {manifest.str(), "",
         "cannot read the manifest: " + buffer.getError().message()});
    return diagnostics;
  }
  Expected<json::Value> root = ptxbench::parseJSON((*buffer)->getBuffer());
  if (!root) {
    diagnostics.push_back(jsonDiagnostic(manifest, root.takeError()));
    return diagnostics;
  }
  TaskReader reader(manifest, diagnostics);
  const json::Object *o = reader.asObject(
      *root, "(top)", "an object with \"tasks\" and \"solutions\"");
  if (!o)
    return diagnostics;
  reader.unknownKeys(*o, "", {"$schema", "description", "tasks", "solutions"});
  reader.string(*o, "$schema", "", /*required=*/false, "a string");
  reader.string(*o, "description", "", /*required=*/false, "a string");
  std::vector<std::string> tasks;
  if (const json::Array *list =
          reader.array(*o, "tasks", "", /*required=*/true, 1,
                       "a non-empty array of the task names the solutions "
                       "solve"))
    for (size_t i = 0; i < list->size(); ++i) {
      std::optional<StringRef> name = (*list)[i].getAsString();
      if (!name) {
        reader.error(indexPath("tasks", i),
                     "expected a task name, got " + kindOf((*list)[i]));
        continue;
      }
      SmallString<256> json(tasksDir);
      sys::path::append(json, *name, "task.json");
      if (!sys::fs::exists(json))
        reader.error(indexPath("tasks", i),
                     "no task \"" + *name + "\" (" + json + " does not exist)");
      tasks.push_back(name->str());
    }
  StringRef folder = sys::path::parent_path(manifest);
  if (const json::Array *solutions =
          reader.array(*o, "solutions", "", /*required=*/true, 1,
                       "a non-empty array of solutions ({\"file\", \"arch\", "
                       "\"status\", ...})"))
    for (size_t i = 0; i < solutions->size(); ++i) {
      std::string path = indexPath("solutions", i);
      if (const json::Object *s = reader.asObject(
              (*solutions)[i], path, "an object {\"file\", \"arch\", ...}"))
        checkSolution(reader, *s, path, folder, tasks);
    }
  return diagnostics;
}
