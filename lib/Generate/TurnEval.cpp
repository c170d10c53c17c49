//===- TurnEval.cpp - One turn evaluated, and its feedback ----------------===//
//
// The turn goes through lib/Eval's sweep (so it is evaluated, deduplicated
// and recorded exactly as `ptxbench eval` would), and its feedback is
// renderFeedback() of what the store holds: the run result and analysis
// when it ran, a result made from the compiler's messages when it did not
// compile, and the extraction error when there was no code. With a target
// speedup a solved turn is finished only when its least dev speedup
// reaches the target; its feedback says how far each dev workload is.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Generate/TurnEval.h"

#include "ptxbench/Eval/Summary.h"
#include "ptxbench/Prompt/Feedback.h"
#include "ptxbench/Support/HostPaths.h"

#include "llvm/Support/Path.h"

using namespace ptxbench;
using namespace ptxbench::generate;
using llvm::StringRef;

/// The feedback before its last pass.
static std::string feedbackText(const eval::SampleRecord &rec,
                                double targetSpeedup, bool triton) {
  const std::string &task = rec.key.task;
  // The answer's own language when it had code, else the one asked for.
  if (!rec.language.empty())
    triton = rec.language == "py";
  std::optional<report::AnalysisReport> analysis =
      eval::parseStoredReport(rec.staticJson);
  std::optional<runtime::RunResult> run =
      runtime::parseRunResult(rec.runJson);
  if (rec.status == eval::status::ExtractError ||
      rec.status == eval::status::NoSolution) {
    return "Your answer for `" + task +
           "` has no usable submission: " + rec.error + "\n\n" +
           prompt::resendInstruction(triton);
  }
  if (rec.status == eval::status::Crashed)
    return "ptxbench could not analyze your submission for `" + task +
           "`: its analysis stopped (an internal failure or a limit of "
           "the harness, not a verdict on the code). Submit it again, "
           "simpler if you can, in one fenced code block with its `" +
           (triton ? "#" : "//") + " @ptxbench` launch-plan lines.\n";
  if (run) {
    // An optimization turn: how far the speed is from the target, and the
    // requested families the run did not credit.
    prompt::FeedbackGoal goal;
    goal.targetSpeedup = targetSpeedup;
    if (targetSpeedup > 0)
      goal.uncredited = eval::uncredited(rec);
    return prompt::renderFeedback(*run, analysis ? &*analysis : nullptr,
                                  targetSpeedup > 0 ? &goal : nullptr);
  }
  // Never ran: a result made from the static verdict.
  runtime::WorkloadResult workload;
  workload.workload = "all";
  if (rec.analyzed()) {
    workload.status = runtime::Status::NoGpu;
    workload.message = "not run: static evaluation only";
  } else {
    workload.status = runtime::Status::CompileError;
    workload.message =
        rec.status == eval::status::CompileError
            ? "The submission does not compile"
        : rec.status == eval::status::Refused
            ? "The submission is refused: a Triton answer is @triton.jit "
              "kernels, imports of triton and numeric constants only"
            : "The submission could not be analyzed";
    workload.compileLog = rec.error;
  }
  runtime::RunResult result;
  result.task = task;
  result.workloads.push_back(std::move(workload));
  // The feedback asks for the answer's language again.
  if (triton)
    result.solution = rec.sourceName();
  return prompt::renderFeedback(result, rec.analyzed() && analysis ? &*analysis
                                                                   : nullptr);
}

std::string ptxbench::generate::turnFeedback(const eval::SampleRecord &rec,
                                             double targetSpeedup,
                                             bool triton) {
  // The next request carries this text to the provider: no folder of this
  // host (the store's fields are without them already; this is the last
  // pass, HostPaths.h).
  HostPaths paths = HostPaths::standard();
  if (StringRef folder = llvm::sys::path::parent_path(rec.solutionPath);
      !folder.empty())
    paths.addFolder(folder);
  return paths(feedbackText(rec, targetSpeedup, triton));
}

TurnVerdict ptxbench::generate::evaluateTurn(eval::ResultsStore &store,
                                             const eval::SampleInput &input,
                                             const eval::SweepOptions &options,
                                             double targetSpeedup,
                                             bool triton) {
  TurnVerdict v;
  auto swept = eval::runSweep(store, {input}, options);
  if (!swept) {
    v.error = llvm::toString(swept.takeError());
    return v;
  }
  auto stored = store.get(input.key);
  if (!stored || !*stored) {
    v.error = stored ? "the sample is not in the store after evaluation"
                     : llvm::toString(stored.takeError());
    return v;
  }
  const eval::SampleRecord &rec = **stored;
  v.status = rec.status;
  v.runStatus = rec.runStatus;
  v.solved = eval::solved(rec);
  v.minDevSpeedup = eval::minDevSpeedup(rec);
  v.finished = finished(v.solved, v.minDevSpeedup, targetSpeedup);
  v.feedback = turnFeedback(rec, targetSpeedup, triton);
  return v;
}

bool ptxbench::generate::finished(bool solved,
                                  std::optional<double> minDevSpeedup,
                                  double targetSpeedup) {
  if (!solved)
    return false;
  return targetSpeedup <= 0 ||
         (minDevSpeedup && *minDevSpeedup >= targetSpeedup);
}
