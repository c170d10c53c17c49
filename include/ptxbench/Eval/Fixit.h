//===- Fixit.h - Fine-tuning pairs from mistakes and their fixes -*- C++ -*-===//
//
// `ptxbench fixit`: pairs each wrong or fallback kernel of a results store
// with a later fixed kernel of the same model, task and arch (the same
// trajectory first, by turn), or else the task's expert solution, and writes
// chat records (HF `messages`: system, user, assistant) whose explanation is
// derived deterministically from the difference between the two analyses
// and runs. Caps per task and per failure kind, deduplication by the wrong
// kernel's canonical hash; docs/fixit.md documents the schema.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_FIXIT_H
#define PTXBENCH_EVAL_FIXIT_H

#include "ptxbench/Eval/Sample.h"

#include "llvm/Support/JSON.h"

#include <functional>
#include <map>
#include <optional>

namespace ptxbench::eval {

/// Whether a recorded sample has code that failed to compile, import or
/// run correctly, misses a requested family or contains a fallback.
bool isWrong(const SampleRecord &record);
/// Whether it is analyzed, uses every requested family, has no fallback
/// and (when it ran on a GPU) passed.
bool isFixed(const SampleRecord &record);
/// One label per wrong sample: compile_error, import_error, the run status
/// in lower case (incorrect, timeout, ...), the first fallback kind, or
/// feature-<verdict>.
std::string failureKind(const SampleRecord &record);

struct FixitOptions {
  unsigned maxPerTask = 0, maxPerKind = 0; // 0: no cap
  /// The task's system prompt (its description and requested families).
  std::function<std::string(const SampleRecord &)> taskSummary;
  /// The task's expert solution, analyzed, when it has one.
  std::function<std::optional<SampleRecord>(const SampleRecord &)> expert;
};

struct FixitResult {
  std::vector<llvm::json::Value> records;
  unsigned wrong = 0, unpaired = 0, duplicates = 0, cappedByTask = 0,
           cappedByKind = 0;
  /// Samples whose run ended in HARNESS_ERROR: the harness's failure, not
  /// the model's, so neither wrong nor fixed; rerun them.
  std::vector<std::string> harnessErrors;
  /// (task, failure kind) -> records written.
  std::map<std::pair<std::string, std::string>, unsigned> distribution;
  /// The Shannon entropy, in bits, of `distribution`.
  double entropy() const;
  llvm::json::Value distributionJSON() const;
};

FixitResult buildFixit(const std::vector<SampleRecord> &records,
                       const FixitOptions &options);

/// The user message: the wrong kernel and a description of its problems.
std::string describeProblems(const SampleRecord &wrong);
/// The assistant message: what changed between the two, then the fix.
std::string explainFix(const SampleRecord &wrong, const SampleRecord &fixed);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_FIXIT_H
