//===- TaskChecks.cpp - How a task's outputs are checked and timed --------===//
//
// The sections that say how a submission is judged rather than what it
// computes: "check" (per-dtype tolerances, the relative L2 bound and the
// number of checked trials, with a tolerance for every output's dtype),
// "timing" (warmup and sampling limits) and "credit" (the share of the work
// a requested family must do to count as used).
//
//===----------------------------------------------------------------------===//

#include "TaskReader.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace llvm;
using namespace ptxbench::runtime;

static constexpr double inf = std::numeric_limits<double>::infinity();

void TaskReader::readChecks(const json::Object &top,
                            const std::vector<bool> &complete, Task &task) {
  if (const json::Object *check =
          object(top, "check", "", /*required=*/true,
                 "an object with \"tolerance\" and/or \"rel_l2\"")) {
    unknownKeys(*check, "check", {"tolerance", "rel_l2", "trials"});
    bool tolerancesOk = true;
    if (const json::Object *tol =
            object(*check, "tolerance", "check", /*required=*/false,
                   "an object of per-dtype tolerances such as {\"bf16\": "
                   "{\"atol\": 0.02, \"rtol\": 0.01}}")) {
      std::vector<std::string> keys;
      for (const auto &kv : *tol)
        keys.push_back(kv.first.str());
      llvm::sort(keys);
      for (const std::string &key : keys) {
        std::string path = joinPath("check.tolerance", key);
        std::optional<DType> dtype = parseDType(key);
        if (!dtype) {
          error(path, "unknown dtype; expected one of bf16, f16, f32, i32, "
                      "e4m3");
          tolerancesOk = false;
          continue;
        }
        const json::Object *to =
            asObject(*tol->get(key), path,
                     "an object {\"atol\": number, \"rtol\": number}");
        if (!to) {
          tolerancesOk = false;
          continue;
        }
        unknownKeys(*to, path, {"atol", "rtol"});
        Tolerance t;
        bool ok = true;
        for (auto [key, field] :
             {std::pair<StringRef, double *>{"atol", &t.atol},
              {"rtol", &t.rtol}}) {
          if (!to->get(key)) {
            error(joinPath(path, key), "missing; expected a number >= 0");
            ok = false;
          } else if (std::optional<double> v =
                         number(*to, key, path, 0, 0, inf)) {
            *field = *v;
          } else {
            ok = false;
          }
        }
        if (ok)
          task.tolerances[*dtype] = t;
        else
          tolerancesOk = false;
      }
    } else if (check->get("tolerance")) {
      tolerancesOk = false;
    }
    if (check->get("rel_l2")) {
      if (std::optional<double> l2 =
              number(*check, "rel_l2", "check", 0, 0, inf, true))
        task.relL2 = *l2;
      else
        tolerancesOk = false;
    }
    if (std::optional<int64_t> trials =
            integer(*check, "trials", "check", 1, 1, 100))
      task.trials = unsigned(*trials);
    if (!check->get("tolerance") && !check->get("rel_l2"))
      error("check", "names no check; expected \"tolerance\" and/or "
                     "\"rel_l2\"");
    if (tolerancesOk && !task.tolerances.empty())
      for (size_t t = 0; t < task.tensors.size(); ++t) {
        const TensorSpec &tensor = task.tensors[t];
        if (complete[t] && tensor.role == Role::Output &&
            !task.tolerances.count(tensor.dtype))
          error("check.tolerance", "no tolerance for output \"" + tensor.name +
                                       "\" of dtype " +
                                       dtypeName(tensor.dtype) +
                                       "; expected one per output dtype");
      }
  }
}

void TaskReader::readTiming(const json::Object &top, Task &task) {
  if (const json::Object *timing =
          object(top, "timing", "", /*required=*/false,
                 "an object such as {\"warmup\": 3, \"min_samples\": 10, "
                 "\"max_samples\": 100, \"max_seconds\": 2.0, "
                 "\"target_rse\": 0.005}")) {
    unknownKeys(
        *timing, "timing",
        {"warmup", "min_samples", "max_samples", "max_seconds", "target_rse"});
    Task::Timing &t = task.timing;
    std::optional<int64_t> warmup =
        integer(*timing, "warmup", "timing", t.warmup, 0, 1000000);
    std::optional<int64_t> minS =
        integer(*timing, "min_samples", "timing", t.minSamples, 1, 1000000);
    std::optional<int64_t> maxS =
        integer(*timing, "max_samples", "timing", t.maxSamples, 1, 1000000);
    std::optional<double> maxSeconds =
        number(*timing, "max_seconds", "timing", t.maxSeconds, 0, inf, true);
    std::optional<double> targetRse =
        number(*timing, "target_rse", "timing", t.targetRse, 0, inf);
    if (minS && maxS && *maxS < *minS)
      error("timing.max_samples", "expected max_samples >= min_samples (" +
                                      Twine(*maxS) + " < " + Twine(*minS) +
                                      ")");
    if (warmup)
      t.warmup = unsigned(*warmup);
    if (minS)
      t.minSamples = unsigned(*minS);
    if (maxS)
      t.maxSamples = unsigned(*maxS);
    if (maxSeconds)
      t.maxSeconds = *maxSeconds;
    if (targetRse)
      t.targetRse = *targetRse;
  }

  if (const json::Object *credit = object(
          top, "credit", "", /*required=*/false,
          "an object such as {\"flops\": 0.9, \"bytes\": 0.5} (shares of the "
          "work a requested family must do)")) {
    unknownKeys(*credit, "credit", {"flops", "bytes"});
    if (std::optional<double> v =
            number(*credit, "flops", "credit", task.creditFlops, 0, 1))
      task.creditFlops = *v;
    if (std::optional<double> v =
            number(*credit, "bytes", "credit", task.creditBytes, 0, 1))
      task.creditBytes = *v;
  }
}
