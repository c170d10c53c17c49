//===- FixitRecords.h - The chat records fixit writes -----------*- C++ -*-===//
//
// A pair (Fixit.h) and its reason become one JSON line of HF `messages`
// and `metadata`, in one of three shapes (docs/fixit.md):
//   - three messages (system: the task; user: the wrong kernel and its
//     problems; assistant: the reason and the fixed kernel), the default;
//   - five messages, the paper's (system and user: the task's prompt;
//     assistant: the failed attempt; user: the feedback it got; assistant:
//     the reason in <think> tags and the fixed kernel);
//   - KernelGen (the task's prompt, then the explanation in <think> tags
//     and the correct kernel).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_FIXITRECORDS_H
#define PTXBENCH_EVAL_FIXITRECORDS_H

#include "ptxbench/Eval/Fixit.h"
#include "ptxbench/Prompt/Prompt.h"

namespace ptxbench::eval {

enum class RecordFormat { Three, Five, KernelGen };
llvm::StringRef recordFormatName(RecordFormat format);
std::optional<RecordFormat> parseRecordFormat(llvm::StringRef name);

/// What the records need beyond the store: the task's system text (three
/// messages), its prompt (five and KernelGen) and the feedback a failed
/// sample got (five).
struct RecordInputs {
  std::function<std::string(const SampleRecord &)> taskSummary;
  std::function<llvm::Expected<std::vector<prompt::ChatMessage>>(
      const SampleRecord &)>
      taskPrompt;
  std::function<std::string(const SampleRecord &)> feedback;
};

/// Who wrote a record's reason: empty for one derived from the analyses.
struct ReasonSource {
  std::string writer;
  std::string responsePath;
};

llvm::json::Value
threeMessageRecord(const FixitPair &pair, llvm::StringRef reason,
                   const std::function<std::string(const SampleRecord &)>
                       &taskSummary,
                   const ReasonSource &source = {});

/// The record of `pair` in `format` with `reason`; an error when the
/// task's prompt cannot be built.
llvm::Expected<llvm::json::Value>
fixitRecord(const FixitPair &pair, RecordFormat format, llvm::StringRef reason,
            const RecordInputs &inputs, const ReasonSource &source = {});

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_FIXITRECORDS_H
