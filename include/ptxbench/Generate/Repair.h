//===- Repair.h - A teacher repairs another model's failed kernels -*- C++ -*-===//
//
// `ptxbench generate --repair-from STORE --model TEACHER`: every failed
// kernel of the store (eval::isWrong, one per kernel identity) becomes a
// sample of the teacher whose first request is the task's prompt, the
// failed kernel and the feedback the student got for it; the teacher then
// has up to --turns fix turns with feedback, as any generate sample. The
// samples are keyed TEACHER/repair/<task>/<eval::repairSampleId(failed)>,
// which is how `fixit` pairs a failure with its repair.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_GENERATE_REPAIR_H
#define PTXBENCH_GENERATE_REPAIR_H

#include "ptxbench/Eval/Sample.h"
#include "ptxbench/Generate/Generate.h"
#include "ptxbench/Prompt/Tags.h"

#include <set>

namespace ptxbench::generate {

struct RepairPlanOptions {
  std::string tasksDir = "tasks";
  std::string arch = "sm_90a";
  /// Only these tasks' failures; empty: every task's.
  std::set<std::string> tasks;
  /// The language the teacher is asked in; failures in another language
  /// are left out.
  prompt::AnswerLanguage language = prompt::AnswerLanguage::Native;
  /// Tags a tag file defines (a failed sample's context is its tag), and
  /// the docs/ folder their documents are read from.
  prompt::TagSet tags;
  std::string docsDir;
};

struct RepairPlan {
  std::vector<PreparedSample> samples;
  /// Failed rows seen; of them, those of another kernel already planned,
  /// of another arch, language or task, and repairs themselves (a
  /// teacher's failed repair is not repaired again).
  unsigned failures = 0, duplicates = 0, otherArch = 0, otherLanguage = 0,
           otherTask = 0, repairs = 0;
};

/// The repairs of the failures among `records` (a store's rows, in key
/// order; the first row of each failed kernel is the one repaired).
llvm::Expected<RepairPlan>
planRepairs(const std::vector<eval::SampleRecord> &records,
            const RepairPlanOptions &options);

/// The first user message of a repair: the task's user message, the failed
/// kernel and its feedback, and what to send.
std::string repairMessage(llvm::StringRef taskMessage,
                          const eval::SampleRecord &failed,
                          llvm::StringRef feedback);

} // namespace ptxbench::generate

#endif // PTXBENCH_GENERATE_REPAIR_H
