//===- Study.cpp - A study file: the paper's protocol in one place --------===//
//
// Reads a study file strictly: every key is known or refused, what a study
// cannot run is refused by name, counts stay within generate's limits,
// names are folder names and each is given once, and paths are relative
// to the study file's folder without `..`, so a study file from elsewhere
// cannot read or write outside the folder it sits in.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Generate/Study.h"

#include "ptxbench/Client/Models.h"
#include "ptxbench/Prompt/Prompt.h"
#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdlib>
#include <set>

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::client;
using namespace ptxbench::generate;
namespace path = llvm::sys::path;

namespace {

/// The keys a study file may hold.
constexpr StringLiteral knownKeys[] = {
    "name",         "models_file",    "models",       "tasks_dir",
    "tasks",        "docs_dir",       "arch",         "language",
    "tags",         "tag_definitions", "replicas",    "turns",
    "target_speedup", "context_policy", "shapes",     "static_only",
    "max_cost",     "max_tokens",     "seed",         "concurrency",
    "timeout_s",    "out",            "repair",       "fixit"};

/// Keys a study cannot run, each with what it would have been.
constexpr std::pair<StringLiteral, StringLiteral> notYet[] = {
    {"repairs", "\"repairs\" (the stage is \"repair\")"},
    {"reasons", "\"reasons\" on their own (they are \"fixit\": "
                "{\"reasons_by\": MODEL})"},
    {"reason", "\"reason\" on its own (it is \"fixit\": "
               "{\"reasons_by\": MODEL})"},
    {"kernelgen", "\"kernelgen\" on its own (it is \"fixit\": "
                  "{\"record\": \"kernelgen\"})"},
    {"train", "training (training/sft.py, docs/adapt.md)"},
};

/// Limits, as generate's flags have them.
constexpr unsigned maxReplicas = 10000, maxTurns = 100, maxConcurrency = 4096,
                   maxModels = 64, maxTasks = 1024, maxTags = 64;

/// The shortest decimal that reads back as `x`.
std::string shortest(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15)
    return formatv("{0}", format("%.0f", x)).str();
  for (int digits = 1; digits < 17; ++digits) {
    std::string text = formatv("{0}", format("%.*g", digits, x)).str();
    if (std::strtod(text.c_str(), nullptr) == x)
      return text;
  }
  return formatv("{0}", format("%.17g", x)).str();
}

class Reader {
public:
  Reader(StringRef file, const json::Object &o) : file(file), o(o) {}

  Error fail(const Twine &key, const Twine &why) const {
    return createStringError(file + ": " + key + ": " + why);
  }

  Expected<std::optional<std::string>> string(StringRef key) const {
    const json::Value *v = o.get(key);
    if (!v)
      return std::nullopt;
    std::optional<StringRef> s = v->getAsString();
    if (!s)
      return fail(key, "expected a string");
    return s->str();
  }

  /// A list of distinct names, each a folder name.
  Expected<std::vector<std::string>> names(StringRef key, unsigned limit,
                                           bool tags = false) const {
    std::vector<std::string> out;
    const json::Value *v = o.get(key);
    if (!v)
      return out;
    const json::Array *a = v->getAsArray();
    if (!a)
      return fail(key, "expected a list of names");
    if (a->size() > limit)
      return fail(key, Twine(a->size()) + " names; at most " + Twine(limit));
    for (const json::Value &e : *a) {
      std::optional<StringRef> s = e.getAsString();
      if (!s)
        return fail(key, "expected a list of names");
      std::string why = tags ? prompt::checkTagName(*s)
                        : isFolderName(*s) ? ""
                                           : "'" + s->str() +
                                                 "' is not a folder name "
                                                 "(no '/', not starting "
                                                 "with '.')";
      if (!why.empty())
        return fail(key, why);
      if (is_contained(out, *s))
        return fail(key, "'" + *s + "' is given twice");
      out.push_back(s->str());
    }
    return out;
  }

  /// A whole number in [lo, hi], or `fallback` when absent.
  Expected<int64_t> count(StringRef key, int64_t lo, int64_t hi,
                          int64_t fallback) const {
    const json::Value *v = o.get(key);
    if (!v)
      return fallback;
    std::optional<int64_t> n = v->getAsInteger();
    if (!n)
      return fail(key, "expected a whole number");
    if (*n < lo || *n > hi)
      return fail(key, "must be between " + Twine(lo) + " and " + Twine(hi) +
                           ", got " + Twine(*n));
    return *n;
  }

  /// A number in (0, hi], or 0 when absent.
  Expected<double> positive(StringRef key, double hi) const {
    const json::Value *v = o.get(key);
    if (!v)
      return 0.0;
    std::optional<double> x = v->getAsNumber();
    if (!x)
      return fail(key, "expected a number");
    if (!(*x > 0) || !std::isfinite(*x) || *x > hi)
      return fail(key, "must be more than 0 and at most " + shortest(hi) +
                           ", got " + shortest(*x));
    return *x;
  }

  /// A relative path without `..`, resolved against `base`.
  Expected<std::string> relativePath(StringRef key, StringRef base,
                                     StringRef fallback) const {
    auto given = string(key);
    if (!given)
      return given.takeError();
    std::string p = given->value_or(fallback.str());
    if (p.empty())
      return fail(key, "is empty");
    if (any_of(p, [](char c) { return (unsigned char)c < 0x20; }))
      return fail(key, "holds control characters");
    if (path::is_absolute(p) || p.front() == '~')
      return fail(key, "'" + p +
                           "' is absolute; paths in a study file are "
                           "relative to its folder (pass --" +
                           StringRef(key).split('_').first +
                           " on the command line for another place)");
    for (StringRef part : make_range(path::begin(p), path::end(p)))
      if (part == "..")
        return fail(key, "'" + p +
                             "' leaves the study file's folder ('..'); pass "
                             "it on the command line instead");
    SmallString<256> out(base);
    path::append(out, p);
    path::remove_dots(out, /*remove_dot_dot=*/false);
    return std::string(out);
  }

private:
  StringRef file;
  const json::Object &o;
};

std::string joinPath(StringRef a, StringRef b) {
  SmallString<256> p(a);
  path::append(p, b);
  return std::string(p);
}

/// The "repair" and "fixit" objects, each key checked.
Error readStages(StringRef file, const json::Object &o, Study &s) {
  auto object = [&](StringRef key, ArrayRef<StringRef> keys)
      -> Expected<const json::Object *> {
    const json::Value *v = o.get(key);
    if (!v)
      return nullptr;
    const json::Object *obj = v->getAsObject();
    if (!obj)
      return createStringError(file + ": " + key + ": expected an object");
    for (const auto &kv : *obj)
      if (!is_contained(keys, StringRef(kv.first)))
        return createStringError(file + ": " + key + "." + StringRef(kv.first) +
                                 ": unknown key (known: " + join(keys, ", ") +
                                 ")");
    return obj;
  };
  const json::Object *repair = nullptr, *fixit = nullptr;
  if (Error e = object("repair", {"teacher", "turns", "max_cost"})
                    .moveInto(repair))
    return e;
  if (Error e = object("fixit", {"record", "fix_sources", "reasons_by",
                                 "min_reason_chars", "max_reason_chars",
                                 "max_cost"})
                    .moveInto(fixit))
    return e;
  if (repair) {
    std::string where = (file + ": repair").str();
    Reader r(where, *repair);
    RepairStage stage;
    auto teacher = r.string("teacher");
    if (!teacher)
      return teacher.takeError();
    if (!*teacher || !isFolderName(**teacher))
      return r.fail("teacher", "expected a model name (a folder name)");
    stage.teacher = **teacher;
    int64_t turns = 0;
    if (Error e = r.count("turns", 1, maxTurns, 5).moveInto(turns))
      return e;
    stage.turns = unsigned(turns);
    if (Error e = r.positive("max_cost", 1e9).moveInto(stage.maxCost))
      return e;
    s.repair = stage;
  }
  if (fixit) {
    std::string where = (file + ": fixit").str();
    Reader r(where, *fixit);
    FixitStage stage;
    auto record = r.string("record");
    if (!record)
      return record.takeError();
    if (*record) {
      if (!is_contained(ArrayRef<StringRef>{"three", "five", "kernelgen"},
                        StringRef(**record)))
        return r.fail("record", "expected three, five or kernelgen, got '" +
                                    **record + "'");
      stage.record = **record;
    }
    auto sources = r.names("fix_sources", 3);
    if (!sources)
      return sources.takeError();
    for (const std::string &src : *sources)
      if (!is_contained(ArrayRef<StringRef>{"later-turn", "repair", "expert"},
                        StringRef(src)))
        return r.fail("fix_sources", "expected later-turn, repair or expert, "
                                     "got '" +
                                         src + "'");
    stage.fixSources = std::move(*sources);
    auto by = r.string("reasons_by");
    if (!by)
      return by.takeError();
    if (*by && !isFolderName(**by))
      return r.fail("reasons_by", "expected a model name (a folder name)");
    stage.reasonsBy = by->value_or("");
    int64_t lo = 0, hi = 0;
    if (Error e = r.count("min_reason_chars", 1, 1 << 20, 0).moveInto(lo))
      return e;
    if (Error e = r.count("max_reason_chars", 1, 1 << 20, 0).moveInto(hi))
      return e;
    if ((lo || hi) && stage.reasonsBy.empty())
      return r.fail("min_reason_chars", "the reason lengths filter written "
                                        "reasons: give reasons_by");
    stage.minReasonChars = unsigned(lo);
    stage.maxReasonChars = unsigned(hi);
    if (Error e = r.positive("max_cost", 1e9).moveInto(stage.maxCost))
      return e;
    s.fixit = std::move(stage);
  }
  return Error::success();
}

} // namespace

std::string Study::samplesDir() const { return joinPath(outDir, "samples"); }
std::string Study::storePath() const {
  return joinPath(outDir, "results.sqlite");
}
std::string Study::tagFilePath() const { return joinPath(outDir, "tags.json"); }
std::string Study::repairsDir() const { return joinPath(outDir, "repairs"); }
std::string Study::fixitPath() const { return joinPath(outDir, "fixit.jsonl"); }

Expected<Study> generate::loadStudy(StringRef file,
                                    const StudyOverrides &overrides) {
  constexpr size_t maxBytes = 1 << 20;
  auto buffer = MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!buffer)
    return createStringError("cannot read study file '" + file +
                             "': " + buffer.getError().message());
  if ((*buffer)->getBufferSize() > maxBytes)
    return createStringError("study file '" + file + "' is larger than 1 MiB");
  JSONLimits limits;
  limits.maxDepth = 8;
  limits.maxBytes = maxBytes;
  auto value = parseJSON((*buffer)->getBuffer(), limits);
  if (!value)
    return createStringError(describeJSONError(value.takeError(), file));
  const json::Object *o = value->getAsObject();
  if (!o)
    return createStringError(file + ": expected a JSON object");
  Reader r(file, *o);

  // Every key known; the stages to come named as such.
  std::vector<std::string> keys;
  for (const auto &kv : *o)
    keys.push_back(kv.first.str());
  llvm::sort(keys);
  for (const std::string &key : keys) {
    for (const auto &[name, what] : notYet)
      if (key == name)
        return r.fail(key, "not supported yet: a study cannot run " + what +
                               " (docs/study.md says what it runs); remove "
                               "the key and run that stage on its own");
    if (!is_contained(knownKeys, key))
      return r.fail(key, "unknown key (known: " +
                               join(ArrayRef<StringLiteral>(knownKeys), ", ") +
                               ")");
  }

  Study s;
  SmallString<256> base(path::parent_path(file));
  if (base.empty())
    base = ".";
  auto name = r.string("name");
  if (!name)
    return name.takeError();
  if (!*name)
    return r.fail("name", "missing (the study's name)");
  if (std::string why = prompt::checkTagName(**name); !why.empty())
    return r.fail("name", "a study name, like a tag " + why.substr(3));
  s.name = **name;

  auto pathOf = [&](StringRef key, const std::string &override,
                    StringRef fallback, std::string &into) -> Error {
    if (!override.empty()) {
      into = override;
      return Error::success();
    }
    if (!o->get(key) && fallback.empty())
      return Error::success();
    auto p = r.relativePath(key, base, fallback);
    if (!p)
      return p.takeError();
    into = *p;
    return Error::success();
  };
  if (Error e = pathOf("models_file", overrides.modelsFile, "", s.modelsFile))
    return std::move(e);
  if (Error e = pathOf("tasks_dir", overrides.tasksDir, "tasks", s.tasksDir))
    return std::move(e);
  if (Error e = pathOf("docs_dir", overrides.docsDir, "", s.docsDir))
    return std::move(e);
  if (Error e = pathOf("out", overrides.outDir, s.name, s.outDir))
    return std::move(e);

  auto models = r.names("models", maxModels);
  if (!models)
    return models.takeError();
  if (models->empty())
    return r.fail("models", "missing or empty (the models to ask; `corpus` "
                            "is built in)");
  s.models = std::move(*models);
  auto tasks = r.names("tasks", maxTasks);
  if (!tasks)
    return tasks.takeError();
  s.tasks = std::move(*tasks);

  if (const json::Value *defs = o->get("tag_definitions")) {
    auto parsed =
        prompt::parseTagSet(*defs, (file + ": tag_definitions").str());
    if (!parsed)
      return parsed.takeError();
    s.tagDefinitions = std::move(*parsed);
  }
  auto tags = r.names("tags", maxTags, /*tags=*/true);
  if (!tags)
    return tags.takeError();
  if (tags->empty())
    return r.fail("tags", "missing or empty (built in: none, brief, full; "
                          "tag_definitions defines more)");
  for (const std::string &t : *tags)
    if (auto resolved = prompt::resolveTag(t, s.tagDefinitions); !resolved)
      return r.fail("tags", toString(resolved.takeError()));
  s.tags = std::move(*tags);

  auto str = [&](StringRef key, std::string &into,
                 ArrayRef<StringRef> allowed) -> Error {
    auto v = r.string(key);
    if (!v)
      return v.takeError();
    if (!*v)
      return Error::success();
    if (!is_contained(allowed, **v))
      return r.fail(key, "expected " + join(allowed, ", ") + ", got '" + **v +
                             "'");
    into = **v;
    return Error::success();
  };
  SmallVector<StringRef> archs(prompt::promptArchitectures().begin(),
                               prompt::promptArchitectures().end());
  if (Error e = str("arch", s.arch, archs))
    return std::move(e);
  if (Error e = str("language", s.language, {"cuda", "triton"}))
    return std::move(e);
  if (Error e = str("context_policy", s.contextPolicy,
                    {"full", "last-pair", "single"}))
    return std::move(e);
  if (Error e = str("shapes", s.shapes, {"dev", "heldout", "all"}))
    return std::move(e);

  int64_t replicas = 0, turns = 0, concurrency = 0;
  if (Error e = r.count("replicas", 1, maxReplicas, 1).moveInto(replicas))
    return std::move(e);
  if (Error e = r.count("turns", 1, maxTurns, 1).moveInto(turns))
    return std::move(e);
  if (Error e =
          r.count("concurrency", 1, maxConcurrency, 0).moveInto(concurrency))
    return std::move(e);
  if (Error e = r.count("max_tokens", 1, int64_t(1) << 50, 0)
                    .moveInto(s.maxTokens))
    return std::move(e);
  if (Error e = r.positive("target_speedup", 1000).moveInto(s.targetSpeedup))
    return std::move(e);
  if (Error e = r.positive("max_cost", 1e9).moveInto(s.maxCost))
    return std::move(e);
  if (Error e = r.positive("timeout_s", 86400).moveInto(s.timeoutSeconds))
    return std::move(e);
  s.replicas = unsigned(replicas);
  s.turns = unsigned(turns);
  s.concurrency = unsigned(concurrency);
  uint64_t folders = uint64_t(s.models.size()) * s.tags.size() *
                     std::max<size_t>(1, s.tasks.size()) * s.replicas;
  if (folders > 1000000)
    return r.fail("replicas",
                  formatv("{0} models x {1} tags x {2} tasks x {3} replicas "
                          "is {4} samples, more than 1000000 in one study; "
                          "split it",
                          s.models.size(), s.tags.size(),
                          std::max<size_t>(1, s.tasks.size()), s.replicas,
                          folders)
                      .str());
  if (s.targetSpeedup > 0 && s.shapes == "heldout")
    return r.fail("target_speedup", "is measured on the dev workloads; "
                                    "shapes \"heldout\" runs none");
  if (const json::Value *v = o->get("seed")) {
    std::optional<int64_t> n = v->getAsInteger();
    if (!n)
      return r.fail("seed", "expected a whole number");
    s.seed = *n;
  }
  if (const json::Value *v = o->get("static_only")) {
    std::optional<bool> b = v->getAsBoolean();
    if (!b)
      return r.fail("static_only", "expected true or false");
    s.staticOnly = *b;
  }
  if (Error e = readStages(file, *o, s))
    return std::move(e);
  return s;
}

std::vector<std::string> generate::generateArguments(const Study &s,
                                                     bool withStoreAndTasks) {
  std::vector<std::string> a;
  auto add = [&](StringRef flag, const Twine &value) {
    a.push_back(flag.str());
    a.push_back(value.str());
  };
  if (!s.modelsFile.empty())
    add("--models", s.modelsFile);
  add("--model", join(s.models, ","));
  add("--tasks", s.tasksDir);
  if (withStoreAndTasks && !s.tasks.empty())
    add("--task", join(s.tasks, ","));
  add("--arch", s.arch);
  add("--language", s.language);
  add("--tag", join(s.tags, ","));
  if (!s.tagDefinitions.empty())
    add("--tag-file", s.tagFilePath());
  if (!s.docsDir.empty())
    add("--docs", s.docsDir);
  add("--replicas", Twine(s.replicas));
  add("--turns", Twine(s.turns));
  if (s.targetSpeedup > 0)
    add("--target-speedup", shortest(s.targetSpeedup));
  add("--context-policy", s.contextPolicy);
  add("--shapes", s.shapes);
  add("--out", s.samplesDir());
  if (withStoreAndTasks)
    add("--db", s.storePath());
  if (s.concurrency)
    add("--concurrency", Twine(s.concurrency));
  if (s.maxCost > 0)
    add("--max-cost", shortest(s.maxCost));
  if (s.maxTokens > 0)
    add("--max-tokens", Twine(s.maxTokens));
  if (s.seed)
    add("--seed", Twine(*s.seed));
  if (s.timeoutSeconds > 0)
    add("--timeout", shortest(s.timeoutSeconds));
  if (s.staticOnly && withStoreAndTasks)
    a.push_back("--static-only");
  return a;
}

std::vector<std::string> generate::repairArguments(const Study &s) {
  std::vector<std::string> a;
  auto add = [&](StringRef flag, const Twine &value) {
    a.push_back(flag.str());
    a.push_back(value.str());
  };
  if (!s.modelsFile.empty())
    add("--models", s.modelsFile);
  add("--model", s.repair->teacher);
  add("--repair-from", s.storePath());
  add("--tasks", s.tasksDir);
  if (!s.tasks.empty())
    add("--task", join(s.tasks, ","));
  add("--arch", s.arch);
  add("--language", s.language);
  if (!s.tagDefinitions.empty())
    add("--tag-file", s.tagFilePath());
  if (!s.docsDir.empty())
    add("--docs", s.docsDir);
  add("--turns", Twine(s.repair->turns));
  if (s.targetSpeedup > 0)
    add("--target-speedup", shortest(s.targetSpeedup));
  add("--context-policy", s.contextPolicy);
  add("--shapes", s.shapes);
  add("--out", s.repairsDir());
  add("--db", s.storePath());
  if (s.repair->maxCost > 0)
    add("--max-cost", shortest(s.repair->maxCost));
  if (s.seed)
    add("--seed", Twine(*s.seed));
  if (s.staticOnly)
    a.push_back("--static-only");
  return a;
}

std::vector<std::string> generate::fixitArguments(const Study &s) {
  const FixitStage &f = *s.fixit;
  std::vector<std::string> a{"--db", s.storePath(), "-o", s.fixitPath(),
                             "--tasks", s.tasksDir, "--record", f.record};
  if (!f.fixSources.empty()) {
    a.push_back("--fix-sources");
    a.push_back(join(f.fixSources, ","));
  }
  if (!f.reasonsBy.empty()) {
    a.insert(a.end(), {"--reasons-by", f.reasonsBy});
    if (!s.modelsFile.empty())
      a.insert(a.end(), {"--models", s.modelsFile});
    if (f.minReasonChars)
      a.insert(a.end(), {"--min-reason-chars", std::to_string(f.minReasonChars)});
    if (f.maxReasonChars)
      a.insert(a.end(), {"--max-reason-chars", std::to_string(f.maxReasonChars)});
    if (f.maxCost > 0)
      a.insert(a.end(), {"--max-cost", shortest(f.maxCost)});
    if (s.seed)
      a.insert(a.end(), {"--seed", std::to_string(*s.seed)});
  }
  return a;
}
