//===- Reasons.h - Reasons for fixes, written by a model --------*- C++ -*-===//
//
// `fixit --reasons-by MODEL`: for every pair (Fixit.h) a writer model is
// shown both kernels, both analyses and runs and what changed, and asked
// for the reasoning that leads from the failed kernel to the fix (for a
// KernelGen record, from the task to the correct kernel). The requests go
// through generate's engine (one prepared sample per pair, under
// REASONS_DIR/<writer>/reason|explain/<task>/<pair id>: the same files,
// rate limits, budget and resume), and each answer is held against the
// facts (ReasonCheck.h): a reason that contradicts them, or is shorter or
// longer than allowed, is dropped and counted.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_GENERATE_REASONS_H
#define PTXBENCH_GENERATE_REASONS_H

#include "ptxbench/Eval/Fixit.h"
#include "ptxbench/Eval/ReasonCheck.h"
#include "ptxbench/Generate/Generate.h"

namespace ptxbench::generate {

struct ReasonOptions {
  /// The engine's settings: the writer (one model), the folder of the
  /// requests (outDir), budget, concurrency, seed, progress; its samples
  /// are made here and nothing is evaluated.
  GenerateOptions generate;
  /// The task's description and requested families (FixitOptions).
  std::function<std::string(const eval::SampleRecord &)> taskSummary;
  /// Reasons outside [minChars, maxChars] are dropped (0: no bound).
  size_t minChars = 0, maxChars = 0;
};

/// What became of one pair's reason.
enum class ReasonFate { Kept, Unanswered, TooShort, TooLong, Contradicted };
llvm::StringRef reasonFateName(ReasonFate fate);

struct WrittenReason {
  ReasonFate fate = ReasonFate::Unanswered;
  /// The reason (what the answer held between <reason> tags, or all of it,
  /// without <think> blocks), and the answer's file.
  std::string text, responsePath;
  std::vector<eval::Contradiction> contradictions;
};

struct ReasonsResult {
  /// One per pair, in order.
  std::vector<WrittenReason> reasons;
  GenerateStats stats;
  std::string writer;
  unsigned count(ReasonFate fate) const;
  /// Contradicted reasons by the kind of their first contradiction.
  std::map<std::string, unsigned> contradictedBy() const;
};

/// The writer's request for `pair`: the system message and the user
/// message with the task, both kernels and their facts.
std::vector<prompt::ChatMessage>
reasonRequest(const eval::FixitPair &pair, llvm::StringRef taskSummary);

/// The reason in a writer's answer.
std::string extractReason(llvm::StringRef answer);

llvm::Expected<ReasonsResult>
writeReasons(const std::vector<eval::FixitPair> &pairs,
             const ReasonOptions &options);

} // namespace ptxbench::generate

#endif // PTXBENCH_GENERATE_REASONS_H
