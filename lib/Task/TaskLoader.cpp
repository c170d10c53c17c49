//===- TaskLoader.cpp - Load a task description (task.json) ---------------===//
//
// The entry points (checkTask, loadTask and their text forms) and the
// document itself: its keys, name and parameters, the FLOP and byte counts,
// the requested and encouraged feature families and the accumulator
// precision. Tensors, workloads, checks and timing, and the reference are
// read by their own files (TaskReader.h). Every problem is collected
// before the load fails, so `ptxbench tasks check`, `run`, `eval` and the
// others report the same complete list: "FILE: JSON.PATH: message", with
// the line and column llvm::json gives for syntax errors.
//
//===----------------------------------------------------------------------===//

#include "TaskReader.h"

#include "ptxbench/ISA/ISA.h"
#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <limits>

using namespace llvm;
using namespace ptxbench::runtime;

std::string TaskDiagnostic::str() const {
  std::string place = file;
  if (line)
    place += ":" + std::to_string(line) + ":" + std::to_string(column);
  return place + ": " + (path.empty() ? "" : path + ": ") + message;
}

TaskDiagnostic ptxbench::runtime::jsonDiagnostic(StringRef file, Error error) {
  TaskDiagnostic d{file.str(), "", ""};
  handleAllErrors(
      std::move(error),
      [&](const ptxbench::JSONError &e) {
        d.line = e.line;
        d.column = e.column;
        d.path = e.path;
        d.message = e.message;
      },
      [&](const ErrorInfoBase &e) { d.message = e.message(); });
  return d;
}

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

/// Parameter names are identifiers, as expressions spell them.
bool isIdentifier(StringRef name) {
  if (name.empty() || !(isAlpha(name[0]) || name[0] == '_'))
    return false;
  return all_of(name, [](char c) { return isAlnum(c) || c == '_'; });
}

/// An architecture key of "features": sm_<digits>, optionally with the
/// architecture-specific 'a' or family 'f' suffix.
bool isArchName(StringRef name) {
  if (!name.consume_front("sm_"))
    return false;
  if (name.ends_with("a") || name.ends_with("f"))
    name = name.drop_back();
  return !name.empty() && all_of(name, isDigit);
}

std::string knownFamilies() {
  static const char *const names[] = {
#define PTXBENCH_FAMILY(Enum, Name, Summary, ArchSpecific) Name,
#include "ptxbench/ISA/ISAFamilies.inc"
  };
  std::string text;
  for (const char *name : names)
    text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

} // namespace

std::optional<Task> TaskReader::read(const json::Value &root) {
  Task task;
  const json::Object *top =
      asObject(root, "(top)", "an object (a task description)");
  if (!top)
    return std::nullopt;
  const json::Object &o = *top;
  unknownKeys(o, "",
              {"$schema",    "name",      "description",     "params",
               "tensors",    "workloads", "check",           "flops",
               "bytes",      "reference", "baseline",        "operands",
               "python",     "family",    "heldout_variant", "features",
               "encouraged", "timing",    "credit",          "accumulate"});
  string(o, "$schema", "", /*required=*/false,
         "a string (the JSON Schema's location, for editors)");
  if (std::optional<std::string> name =
          string(o, "name", "", /*required=*/true,
                 "a string (the task's name, usually its folder's)")) {
    if (name->empty())
      error("name", "expected a non-empty name");
    task.name = *name;
  }
  if (std::optional<std::string> family =
          string(o, "family", "", /*required=*/false,
                 "a string (the family the task is a variant of)")) {
    if (!isIdentifier(*family))
      error("family", "\"" + *family +
                          "\" is not a family name; expected letters, digits "
                          "and '_', not starting with a digit");
    task.family = *family;
  }
  if (const json::Value *held = o.get("heldout_variant")) {
    if (std::optional<bool> b = held->getAsBoolean())
      task.heldoutVariant = *b;
    else
      error("heldout_variant",
            "expected true or false (whether the variant is held out), got " +
                kindOf(*held));
    if (!o.get("family"))
      error("heldout_variant", "a held-out variant is a variant of a family; "
                               "expected \"family\" too");
  }
  task.description =
      string(o, "description", "", /*required=*/false,
             "a string (what the kernel computes, shown to models)")
          .value_or("");

  // Parameters: the names shapes, counts and workloads use.
  bool paramsOk = false;
  if (const json::Array *params =
          array(o, "params", "", /*required=*/true, 1,
                "a non-empty array of parameter names such as [\"M\", \"N\", "
                "\"K\"]")) {
    size_t before = errorCount();
    for (size_t i = 0; i < params->size(); ++i) {
      std::string path = indexPath("params", i);
      std::optional<StringRef> s = (*params)[i].getAsString();
      if (!s) {
        error(path, "expected a parameter name (a string), got " +
                        kindOf((*params)[i]));
      } else if (!isIdentifier(*s)) {
        error(path, "\"" + *s +
                        "\" is not a name; expected letters, digits "
                        "and '_', not starting with a digit");
      } else if (is_contained(task.params, *s)) {
        error(path, "duplicate \"" + *s + "\"; expected unique names");
      } else {
        task.params.push_back(s->str());
      }
    }
    paramsOk = errorCount() == before;
  }
  const Params *params = paramsOk ? &task.params : nullptr;

  std::vector<bool> complete;
  bool resolvable = readTensors(o, params, task, complete);
  readWorkloads(o, params, complete, task);

  readChecks(o, complete, task);

  for (auto [key, field] : {std::pair<StringRef, Expr *>{"flops", &task.flops},
                            {"bytes", &task.bytes}}) {
    const json::Value *v = o.get(key);
    if (!v) {
      error(key, "missing; expected an integer expression over the "
                 "parameters (the " +
                     StringRef(key == "flops" ? "floating-point operations"
                                              : "bytes moved") +
                     " of one launch)");
      continue;
    }
    if (std::optional<Expr> e = expr(*v, key, params))
      *field = *e;
  }
  checkWorkCounts(task);

  readReference(o, resolvable, complete, task);

  for (auto [key, map] :
       {std::pair<StringRef, std::map<std::string, std::vector<std::string>> *>{
            "features", &task.features},
        {"encouraged", &task.encouraged}}) {
    const json::Object *features =
        object(o, key, "", /*required=*/false,
               "an object of architectures, such as {\"sm_90a\": "
               "[\"wgmma\", \"tma\"]}");
    if (!features)
      continue;
    std::vector<std::string> archs;
    for (const auto &kv : *features)
      archs.push_back(kv.first.str());
    llvm::sort(archs);
    for (const std::string &arch : archs) {
      std::string path = joinPath(key, arch);
      if (!isArchName(arch))
        error(path, "unknown architecture; expected sm_<number> with an "
                    "optional 'a' or 'f' suffix, such as sm_90a");
      const json::Value &value = *features->get(arch);
      const json::Array *list = value.getAsArray();
      if (!list) {
        error(path, "expected an array of feature family names, got " +
                        kindOf(value));
        continue;
      }
      auto &out = (*map)[arch];
      for (size_t i = 0; i < list->size(); ++i) {
        std::optional<StringRef> s = (*list)[i].getAsString();
        if (!s) {
          error(indexPath(path, i), "expected a feature family name (a "
                                    "string), got " +
                                        kindOf((*list)[i]));
          continue;
        }
        // Family names are the ISA table's (docs/isa-coverage.md). A family,
        // or alternatives of which any one will do ("bulk_copy|tma").
        if (!ptxbench::isa::familiesOfRequirement(*s)) {
          error(indexPath(path, i), "unknown feature family " +
                                        Twine(s->contains('|') ? "in " : "") +
                                        "\"" + *s + "\"; expected one of " +
                                        knownFamilies() +
                                        ", or alternatives joined by '|'");
          continue;
        }
        out.push_back(s->str());
      }
    }
  }

  readTiming(o, task);

  if (std::optional<std::string> acc =
          oneOf(o, "accumulate", "", {"f32", "any"}, StringRef()))
    task.accumulate = *acc;

  if (errorCount())
    return std::nullopt;
  return task;
}

TaskCheck ptxbench::runtime::checkTaskText(StringRef text, StringRef fileName) {
  TaskCheck check;
  check.file = fileName.str();
  ptxbench::JSONLimits limits;
  limits.maxBytes = kMaxTaskBytes;
  Expected<json::Value> root = ptxbench::parseJSON(text, limits);
  if (!root) {
    check.diagnostics.push_back(jsonDiagnostic(check.file, root.takeError()));
    return check;
  }
  TaskReader reader(fileName, check.diagnostics);
  check.task = reader.read(*root);
  return check;
}

TaskCheck ptxbench::runtime::checkTask(StringRef path) {
  SmallString<256> file(path);
  if (sys::fs::is_directory(path))
    sys::path::append(file, "task.json");
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(file);
  if (!buffer) {
    TaskCheck check;
    check.file = file.str().str();
    check.diagnostics.push_back(
        {check.file, "",
         "cannot read the task file: " + buffer.getError().message()});
    return check;
  }
  TaskCheck check = checkTaskText((*buffer)->getBuffer(), file);
  if (check.task)
    check.task->dir = sys::path::parent_path(file).str();
  return check;
}

/// Every diagnostic, one per line.
static Error toError(const TaskCheck &check) {
  std::string text;
  for (const TaskDiagnostic &d : check.diagnostics)
    text += (text.empty() ? "" : "\n") + d.str();
  return createStringError(inconvertibleErrorCode(), text);
}

Expected<Task> ptxbench::runtime::parseTask(StringRef text,
                                            StringRef fileName) {
  TaskCheck check = checkTaskText(text, fileName);
  if (!check.task)
    return toError(check);
  return std::move(*check.task);
}

Expected<Task> ptxbench::runtime::loadTask(StringRef path) {
  TaskCheck check = checkTask(path);
  if (!check.task)
    return toError(check);
  return std::move(*check.task);
}
