//===- TurnEval.h - One turn evaluated, and its feedback --------*- C++ -*-===//
//
// What `ptxbench generate` does between turns: evaluate the answer as
// `ptxbench eval` does (lib/Eval's sweep, recorded in the store), decide
// whether the sample is finished (eval::solved, the reading of alternatives
// and credit the report and fixit share), and render the next user message with
// renderFeedback (the text of `ptxbench feedback`).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CLIENT_TURNEVAL_H
#define PTXBENCH_CLIENT_TURNEVAL_H

#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/Sweep.h"

namespace ptxbench::client {

struct TurnVerdict {
  /// The store's static status and run status.
  std::string status, runStatus;
  /// The next turn's user message.
  std::string feedback;
  /// Why the turn could not be evaluated (the store failed); empty if it
  /// was.
  std::string error;
  bool solved = false;
};

/// Evaluates `input` (one turn) into `store` and reads the verdict back.
TurnVerdict evaluateTurn(eval::ResultsStore &store,
                         const eval::SampleInput &input,
                         const eval::SweepOptions &options);

/// The feedback on a recorded turn: renderFeedback of its run result and
/// analysis; of a result made from the compiler's messages when the code
/// did not compile (or was only analyzed); the extraction error when the
/// answer had no usable code.
std::string turnFeedback(const eval::SampleRecord &record);

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_TURNEVAL_H
