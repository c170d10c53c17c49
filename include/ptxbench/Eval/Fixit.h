//===- Fixit.h - Fine-tuning pairs from mistakes and their fixes -*- C++ -*-===//
//
// `ptxbench fixit`: pairs each wrong or fallback kernel of a results store
// with its fix, from the sources in the order asked: a later fixed kernel
// of the same model, task and arch (the same trajectory first, by turn), a
// teacher's repair of that very sample (Repair.h), or the task's expert
// solution; or, for KernelGen records, takes each correct kernel alone.
// The records (FixitRecords.h) explain the fix with a reason derived
// deterministically from the difference between the two analyses and
// runs, or written by a model and checked against them (ReasonCheck.h).
// Caps per task and per failure kind, deduplication by the wrong kernel's
// canonical hash; docs/fixit.md documents the schema.
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

/// Where a wrong sample's fix comes from, tried in the order given.
enum class FixSource {
  /// A later turn of the same model, task and arch (the same trajectory
  /// first).
  LaterTurn,
  /// A teacher's repair of this very sample (`generate --repair-from`,
  /// Repair.h): its first fixed turn.
  Repair,
  /// The task's expert solution.
  Expert,
};
llvm::StringRef fixSourceName(FixSource source);
std::optional<FixSource> parseFixSource(llvm::StringRef name);

/// One wrong sample and its fix; for a KernelGen record, a correct sample
/// alone (`wrong` null).
struct FixitPair {
  const SampleRecord *wrong = nullptr;
  SampleRecord fixed;
  FixSource source = FixSource::LaterTurn;
  /// The failure kind (failureKind), or `correct` for a KernelGen record.
  std::string kind;
  /// The fixed kernel's key as records name it (`expert:<path>` for an
  /// expert solution).
  std::string fixedKey() const;
  /// A name for the pair: `p` and 16 hex digits of a SHA-256 of both keys
  /// (`k` and of the one key for a KernelGen record); a new fix of the
  /// same failure is a new pair.
  std::string id() const;
};

struct FixitOptions {
  unsigned maxPerTask = 0, maxPerKind = 0; // 0: no cap
  /// The fixes tried, in order.
  std::vector<FixSource> sources = {FixSource::LaterTurn, FixSource::Repair,
                                    FixSource::Expert};
  /// The task's system prompt (its description and requested families).
  std::function<std::string(const SampleRecord &)> taskSummary;
  /// The task's expert solution, analyzed, when it has one.
  std::function<std::optional<SampleRecord>(const SampleRecord &)> expert;
};

struct FixitResult {
  std::vector<llvm::json::Value> records;
  /// The pairs the records are made from, in record order.
  std::vector<FixitPair> pairs;
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

/// The pairs of `records` (deduplicated and capped), with their counts;
/// `records` of the result is left empty.
FixitResult pairFixit(const std::vector<SampleRecord> &records,
                      const FixitOptions &options);
/// KernelGen: every fixed (correct) sample, one per kernel identity,
/// capped per task, as a pair without a wrong sample.
FixitResult pairKernelGen(const std::vector<SampleRecord> &records,
                          const FixitOptions &options);
/// pairFixit() and the three-message record of each pair, its explanation
/// derived from the two analyses.
FixitResult buildFixit(const std::vector<SampleRecord> &records,
                       const FixitOptions &options);

/// The user message: the wrong kernel and a description of its problems.
std::string describeProblems(const SampleRecord &wrong);
/// The assistant message: what changed between the two, then the fix.
std::string explainFix(const SampleRecord &wrong, const SampleRecord &fixed);
/// What changed between the two, derived from their analyses and runs
/// (explainFix without the fixed kernel).
std::string derivedReason(const SampleRecord &wrong,
                          const SampleRecord &fixed);
/// What a correct kernel does, derived from its analysis and run: each
/// requested family with its reachable instructions and run-time verdict,
/// the run and its speedup (a KernelGen record's explanation).
std::string describeKernel(const SampleRecord &kernel);
/// The kernel in a fenced block of its language.
std::string fencedCode(const SampleRecord &record);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_FIXIT_H
