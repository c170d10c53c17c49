//===- TurnEval.h - One turn evaluated, and its feedback --------*- C++ -*-===//
//
// What `ptxbench generate` does between turns: evaluate the answer as
// `ptxbench eval` does (lib/Eval's sweep, recorded in the store), decide
// whether the sample is finished (eval::solved, the reading of alternatives
// and credit the report and fixit share, and with a target speedup the
// least dev speedup against it), and render the next user message with
// renderFeedback (the text of `ptxbench feedback`).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_GENERATE_TURNEVAL_H
#define PTXBENCH_GENERATE_TURNEVAL_H

#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/Sweep.h"

namespace ptxbench::generate {

struct TurnVerdict {
  /// The store's static status and run status.
  std::string status, runStatus;
  /// The next turn's user message.
  std::string feedback;
  /// Why the turn could not be evaluated (the store failed); empty if it
  /// was.
  std::string error;
  bool solved = false;
  /// The turn's least dev speedup (eval::minDevSpeedup).
  std::optional<double> minDevSpeedup;
  /// Solved, and at the target speedup when there is one: the sample stops.
  bool finished = false;
};

/// Whether a turn ends its sample: solved, and with a target (> 0) its
/// least dev speedup at or above it.
bool finished(bool solved, std::optional<double> minDevSpeedup,
              double targetSpeedup);

/// Evaluates `input` (one turn) into `store` and reads the verdict back;
/// `targetSpeedup` (0: none) is `generate --target-speedup`.
TurnVerdict evaluateTurn(eval::ResultsStore &store,
                         const eval::SampleInput &input,
                         const eval::SweepOptions &options,
                         double targetSpeedup = 0, bool triton = false);

/// The feedback on a recorded turn: renderFeedback of its run result and
/// analysis; of a result made from the compiler's messages when the code
/// did not compile (or was only analyzed); the extraction error when the
/// answer had no usable code. With `targetSpeedup` (> 0) a run's feedback
/// says how far each dev workload is from it and, for a correct run, which
/// requested families were not credited. `triton`: the prompt asked for
/// Triton (what an answer without usable code is told to send).
std::string turnFeedback(const eval::SampleRecord &record,
                         double targetSpeedup = 0, bool triton = false);

} // namespace ptxbench::generate

#endif // PTXBENCH_GENERATE_TURNEVAL_H
