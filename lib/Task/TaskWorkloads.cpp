//===- TaskWorkloads.cpp - A task's workloads: read, named, selected ------===//
//
// The "workloads" section: the development and held-out splits, each a list
// of parameter bindings. Reading gives each workload a name (its own, or
// "dev M=.. N=.. K=.." from its split and values), checks that it binds
// every parameter and nothing else, that names are unique, that every
// tensor dimension is at least 1 under it and no tensor is larger than any
// GPU's memory, and that the FLOP and byte counts evaluate for it.
// selectWorkloads expands a selection (a split, "all", or one name) into the
// workloads to run.
//
//===----------------------------------------------------------------------===//

#include "TaskReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <map>

using namespace llvm;
using namespace ptxbench::runtime;

void TaskReader::readWorkloads(const json::Object &top, const Params *params,
                               const std::vector<bool> &complete, Task &task) {
  const json::Object *workloads =
      object(top, "workloads", "", /*required=*/true,
             "an object with \"dev\" and \"heldout\" arrays of workloads");
  if (!workloads)
    return;
  unknownKeys(*workloads, "workloads", {"dev", "heldout"});
  // Where each workload name was first used, for duplicates.
  StringMap<std::string> seen;
  for (auto [split, list] :
       {std::pair<StringRef, std::vector<Workload> *>{"dev", &task.dev},
        {"heldout", &task.heldout}}) {
    const json::Array *entries =
        array(*workloads, split, "workloads", /*required=*/true, 1,
              "a non-empty array of workloads ({\"name\": ..., and a value "
              "per parameter})");
    if (!entries)
      continue;
    for (size_t i = 0; i < entries->size(); ++i) {
      std::string path = indexPath(joinPath("workloads", split), i);
      const json::Object *w = asObject(
          (*entries)[i], path,
          "an object binding every parameter, such as {\"name\": \"dev-1k\", "
          "\"M\": 1024}");
      if (!w)
        continue;
      size_t before = errorCount();
      Workload workload;
      std::vector<std::string> keys;
      for (const auto &kv : *w)
        keys.push_back(kv.first.str());
      llvm::sort(keys);
      for (const std::string &key : keys) {
        const json::Value &value = *w->get(key);
        std::string kpath = joinPath(path, key);
        if (key == "name") {
          std::optional<StringRef> s = value.getAsString();
          if (!s || s->empty())
            error(kpath,
                  "expected a non-empty string (the workload's name), "
                  "got " +
                      (s ? StringRef("an empty string") : kindOf(value)));
          else
            workload.name = s->str();
          continue;
        }
        if (params && !is_contained(*params, key)) {
          error(kpath, "unknown parameter; expected \"name\" or one of the "
                       "params (" +
                           join(*params, ", ") + ")");
          continue;
        }
        // 0 is a value (a switch such as CAUSAL); a tensor dimension of 0
        // is refused below, where the workload's shapes are evaluated.
        std::optional<int64_t> v = value.getAsInteger();
        if (!v || *v < 0) {
          error(kpath, "expected a non-negative integer, got " +
                           (v ? std::to_string(*v) : kindOf(value).str()));
          continue;
        }
        workload.params[key] = *v;
      }
      if (params)
        for (const std::string &p : *params)
          if (!w->get(p))
            error(joinPath(path, p), "missing; expected a non-negative "
                                     "integer (every workload binds every "
                                     "parameter)");
      if (workload.name.empty() && params) {
        workload.name = split.str();
        for (const std::string &p : *params)
          workload.name += " " + p + "=" + std::to_string(workload.params[p]);
      }
      if (!workload.name.empty()) {
        auto [it, inserted] = seen.try_emplace(workload.name, path);
        if (!inserted)
          error(w->get("name") ? joinPath(path, "name") : path,
                "workload name \"" + workload.name + "\" is also " +
                    it->second +
                    "'s; expected unique names (--shapes NAME picks one)");
      }
      if (errorCount() != before || !params)
        continue;
      // Every dimension of every tensor must be at least 1; each offending
      // expression is reported once, with the tensors that use it.
      std::vector<std::pair<std::string, int64_t>> small;
      std::map<std::string, std::vector<std::string>> users;
      for (size_t t = 0; t < task.tensors.size(); ++t) {
        if (!complete[t])
          continue;
        for (const Expr &dim : task.tensors[t].shape) {
          Expected<int64_t> v = dim.evaluate(workload.params);
          if (!v) {
            // The expression's place ("FILE: tensors[0].shape[1]") is known
            // from its location.
            std::string message = toString(v.takeError());
            StringRef rest(message);
            rest.consume_front(fileName().str() + ": ");
            error(path, rest);
            continue;
          }
          if (*v >= 1)
            continue;
          std::vector<std::string> &names = users[dim.text().str()];
          if (names.empty())
            small.push_back({dim.text().str(), *v});
          if (!is_contained(names, task.tensors[t].name))
            names.push_back(task.tensors[t].name);
        }
      }
      for (const auto &[text, value] : small)
        error(path, "dimension '" + text + "' is " + Twine(value) + " (in " +
                        join(users[text], ", ") +
                        "); expected every dimension to be at least 1");
      if (small.empty())
        checkTensorSizes(path, workload, complete, task);
      list->push_back(std::move(workload));
    }
  }
}

/// The most bytes one tensor may have: more than any GPU's memory, so a
/// larger one is a mistake in the task (a shape's exponent, a wrong
/// parameter), not a workload.
static constexpr uint64_t maxTensorBytes = uint64_t(1) << 40;

void TaskReader::checkTensorSizes(StringRef path, const Workload &workload,
                                  const std::vector<bool> &complete,
                                  const Task &task) {
  for (size_t t = 0; t < task.tensors.size(); ++t) {
    if (!complete[t])
      continue;
    const TensorSpec &spec = task.tensors[t];
    uint64_t bytes = dtypeSize(spec.dtype);
    bool overflow = false;
    std::vector<std::string> dims;
    for (const Expr &dim : spec.shape) {
      Expected<int64_t> v = dim.evaluate(workload.params);
      if (!v) {
        consumeError(v.takeError()); // reported with the dimensions
        return;
      }
      dims.push_back(std::to_string(*v));
      overflow |= __builtin_mul_overflow(bytes, uint64_t(*v), &bytes);
    }
    if (!overflow && bytes <= maxTensorBytes)
      continue;
    error(path, "tensor '" + spec.name + "' would be " +
                    (overflow ? std::string("more than 2^64")
                              : std::to_string(bytes)) +
                    " bytes ([" + join(dims, ", ") +
                    "]); expected at most 2^40 bytes (1 TiB) per tensor");
  }
}

void TaskReader::checkWorkCounts(const Task &task) {
  for (const std::vector<Workload> *split : {&task.dev, &task.heldout})
    for (const Workload &w : *split)
      for (auto [key, e] :
           {std::pair<StringRef, const Expr *>{"flops", &task.flops},
            {"bytes", &task.bytes}}) {
        if (e->isNull())
          continue;
        Expected<int64_t> v = e->evaluate(w.params);
        if (!v) {
          // "FILE: flops: error: division by zero in ...": the message.
          std::string message = toString(v.takeError());
          StringRef rest(message);
          if (size_t at = rest.find("error: "); at != StringRef::npos)
            rest = rest.drop_front(at + 7);
          error(key, rest + " for workload \"" + w.name + "\"");
        } else if (*v < 0) {
          error(key, "is " + Twine(*v) + " for workload \"" + w.name +
                         "\"; expected a count >= 0");
        }
      }
}

Expected<std::vector<Workload>>
ptxbench::runtime::selectWorkloads(const Task &task, StringRef which) {
  std::vector<Workload> out;
  if (which == "dev" || which == "all")
    out.insert(out.end(), task.dev.begin(), task.dev.end());
  if (which == "heldout" || which == "all")
    out.insert(out.end(), task.heldout.begin(), task.heldout.end());
  if (which == "dev" || which == "heldout" || which == "all")
    return out;
  // One workload by name (to profile or re-run it alone).
  std::string names;
  for (const std::vector<Workload> *split : {&task.dev, &task.heldout})
    for (const Workload &w : *split) {
      if (w.name == which)
        return std::vector<Workload>{w};
      names += ", '" + w.name + "'";
    }
  return createStringError(inconvertibleErrorCode(),
                           "unknown shape selection '" + which +
                               "' (expected dev, heldout, all or one of " +
                               task.name + "'s workloads" + names + ")");
}
