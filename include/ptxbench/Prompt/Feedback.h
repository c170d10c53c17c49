//===- Feedback.h - A run result as the next turn's message ----*- C++ -*-===//
//
// renderFeedback() turns a run result (`ptxbench run --json` read back with
// runtime::parseRunResult) and, when given, the analysis report (`ptxbench
// analyze --format json` read back with report::parseAnalysisReport) into
// the user message of a model's
// next turn: compile and plan errors trimmed to the first few with their
// lines, the failed correctness check with its statistics, each requested
// family's verdict with every fallback finding (source line and the
// architecture-specific alternative), the ptxas warnings that cost speed,
// and the speed against the baseline library and the speed of light with
// the aim (with a goal, the target speedup and how far each dev workload
// is from it). A pure function of its inputs (no clock, no files): the Fixit
// records reuse it.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_FEEDBACK_H
#define PTXBENCH_PROMPT_FEEDBACK_H

#include "ptxbench/Report/AnalysisReport.h"
#include "ptxbench/Runtime/Result.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace ptxbench::prompt {

/// The first `maxErrors` error diagnostics of a compiler log (NVRTC's
/// `file(line): error: ...` or ptxas's `line N; error : ...`), each with the
/// context lines that follow it, and a count of the rest.
std::string trimCompilerLog(llvm::StringRef log, unsigned maxErrors = 5);

/// The display name of a baseline (`cublaslt_gemm` -> `cuBLASLt`).
std::string baselineDisplayName(llvm::StringRef baseline);

/// What an optimization turn aims at (`ptxbench generate
/// --target-speedup`): a correct submission is told, per dev workload, the
/// speedup it reached and how far it is from the target, and which
/// requested families were not credited at run time.
struct FeedbackGoal {
  /// The speedup over the library every dev workload must reach.
  double targetSpeedup = 0;
  /// Requested requirements the run did not credit, with their run-time
  /// verdicts (eval::uncredited()).
  std::vector<std::pair<std::string, std::string>> uncredited;
};

/// The closing instruction of a feedback message: send the whole
/// submission again, in one ```cuda or ```ptx block with its `// @ptxbench`
/// lines, or with `triton` in one ```python block with its `# @ptxbench`
/// lines.
std::string resendInstruction(bool triton);

/// A result's language is Triton when its `solution` is a .py file.
std::string renderFeedback(const runtime::RunResult &result,
                           const report::AnalysisReport *analysis,
                           const FeedbackGoal *goal = nullptr);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_FEEDBACK_H
