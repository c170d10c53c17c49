//===- Feedback.h - A run result as the next turn's message ----*- C++ -*-===//
//
// renderFeedback() turns the JSON of `ptxbench run --json` (and, when given,
// of `ptxbench analyze --format json`) into the user message of a model's
// next turn: compile and plan errors trimmed to the first few with their
// lines, the failed correctness check with its statistics, each requested
// family's verdict with every fallback finding (source line and the
// architecture-specific alternative), the ptxas warnings that cost speed,
// and the speed against the baseline library and the speed of light with
// the aim. A pure function of its inputs (no clock, no files): the Fixit
// records reuse it.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_FEEDBACK_H
#define PTXBENCH_PROMPT_FEEDBACK_H

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

std::string renderFeedback(const llvm::json::Value &result,
                           const llvm::json::Value *analysis);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_FEEDBACK_H
