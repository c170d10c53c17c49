//===- Summary.h - Aggregate recorded samples into report numbers -*- C++ -*-===//
//
// The numbers of `ptxbench report`, per model x context x task x arch:
// compile, run and correctness rates, each requested family's use (static
// verdict `used`, SASS confirmation), fallback kinds, and per workload split
// (dev, held-out) fast_p, mean and geometric-mean speedup over the library
// and the speed-of-light fraction. Every rate's denominator is all samples
// of the group; docs/eval.md defines each number.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_SUMMARY_H
#define PTXBENCH_EVAL_SUMMARY_H

#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/Sample.h"
#include "ptxbench/Runtime/Result.h"

#include "llvm/ADT/StringRef.h"

#include <array>
#include <map>
#include <vector>

namespace ptxbench::eval {

/// The thresholds p of fast_p.
constexpr std::array<double, 5> fastPThresholds = {0, 0.5, 1.0, 1.5, 2.0};

struct SplitStats {
  /// Samples whose run covered this split's workloads.
  unsigned runs = 0;
  /// Samples correct on every workload of the split.
  unsigned correct = 0;
  /// fast_p numerators: correct and speedup > p.
  std::array<unsigned, fastPThresholds.size()> fast{};
  /// Per correct sample with timings: the geometric mean of its workloads'
  /// speedups over the library, and the mean speed-of-light fraction.
  std::vector<double> speedups, solFractions;

  double meanSpeedup() const;
  double geomeanSpeedup() const;
  double meanSol() const;
};

/// One workload's numbers over the samples of a group that ran it.
struct WorkloadStats {
  std::string split; // dev, heldout
  unsigned runs = 0, correct = 0;
  /// Per correct timed run: the speedup over the library and, when the
  /// card's peaks were known, the speed-of-light fraction.
  std::vector<double> speedups, solFractions;
};

/// One requested family's run-time counts over a group.
struct ExecutedStats {
  /// Samples whose instrumented run measured the family, those with its
  /// instructions in the code, and those where it executed at least once.
  unsigned measured = 0, inCode = 0, executed = 0;
  /// Samples whose run-time verdict is `used` (it did the task's share of
  /// the work on every workload; a family without a work measure: it
  /// executed) and `token` (it executed but did less on some workload).
  unsigned used = 0, token = 0;
};

struct GroupStats {
  std::string model, context, task, arch;
  /// Rows (every turn of a sample is one), distinct sample ids among them,
  /// and the samples `generate` was asked for (0: not known).
  unsigned samples = 0, sampleIds = 0, asked = 0;
  /// Analyzed and not rejected by ptxas.
  unsigned compiled = 0;
  /// Samples with a real run (not NO_GPU, HARNESS_ERROR or SKIPPED), those
  /// that ran without error (PASSED, INCORRECT or SUSPICIOUS), and those
  /// PASSED.
  unsigned runAttempted = 0, ranOk = 0, correct = 0;
  /// Of those attempted, the samples whose stored run JSON is not a run
  /// result (runtime::readRunResult refuses it) or not the one their run
  /// status came from: neither ran without error nor correct, and nothing
  /// of it is counted below. ranOk and correct come from the result itself.
  unsigned unreadableRuns = 0;
  /// Final status (run status when run) -> samples.
  std::map<std::string, unsigned> statuses;
  /// Requested family -> samples where some kernel uses it.
  std::map<std::string, unsigned> used;
  /// Samples whose SASS was checked; family -> those with SASS instructions.
  unsigned sassChecked = 0;
  std::map<std::string, unsigned> sass;
  /// Fallback kind -> samples with at least one such finding.
  std::map<std::string, unsigned> fallbacks;
  /// Requested family -> run-time counts (`ptxbench run`'s instrumented
  /// run: runtime::familySummaries, the run JSON's `feature_counts`).
  std::map<std::string, ExecutedStats> executed;
  /// "dev", "heldout".
  std::map<std::string, SplitStats> splits;
  /// Workload name -> its numbers, for groups with runs.
  std::map<std::string, WorkloadStats> workloads;
};

/// Why a row's stored run JSON is not a run result (runtime::
/// readRunResult's error), or why it is not the result the row's run status
/// came from (another worst status); none when it is one or the row has
/// none. Such a row counts as run, never as correct
/// (GroupStats::unreadableRuns).
std::optional<std::string> runResultError(const SampleRecord &record);

/// The run-time counts of a requirement: its family's, or for alternatives
/// ("bulk_copy|tma") the one used by the most samples. Null when no run
/// measured it.
const ExecutedStats *executedStats(const GroupStats &g,
                                   llvm::StringRef requirement);

/// The run-time verdict of one requirement of a sample (over its
/// workloads the least credit, runtime::acrossWorkloads; for alternatives,
/// "bulk_copy|tma", the best of them), with the share of the work when
/// measured.
struct RunVerdict {
  runtime::FamilyVerdict verdict = runtime::FamilyVerdict::NotMeasured;
  double share = -1;
  /// It did the task's share of the work (a family without a work
  /// measure: it executed).
  bool credited() const { return runtime::credited(verdict); }
  llvm::StringRef name() const { return runtime::verdictName(verdict); }
};

/// Requirement (as the task writes it, "bulk_copy|tma") -> its run-time
/// verdict, for the requirements the sample's run measured (eval's
/// `feature_counts`, which count each family on its own). The one reading
/// of alternatives and credit that report, fixit and generate's early stop
/// share.
std::map<std::string, RunVerdict> runVerdicts(const SampleRecord &record);

/// The requested requirements a sample's run did not credit, each with its
/// run-time verdict ("token", "not triggered", ...; "not measured" when no
/// run measured it), in name order.
std::vector<std::pair<std::string, std::string>>
uncredited(const SampleRecord &record);

/// Correct: its stored run result is readable, is the one its run status
/// came from, and has workloads, every one PASSED.
bool ranCorrect(const SampleRecord &record);

/// Correct with the requested families doing the work: its run passed
/// every workload and every requirement was measured and credited
/// (runVerdicts). The report's correct-with-credited-features.
bool creditedCorrect(const SampleRecord &record);

/// Whether a recorded sample is finished: creditedCorrect() and the
/// analysis found no fallback.
bool solved(const SampleRecord &record);

/// The turn's speedup: the least speedup over the library among its run's
/// dev workloads (a workload without a split is dev), when every workload
/// of the run PASSED and every dev workload has a speedup; none otherwise
/// (not correct, not timed, no library time, or no dev workload).
/// `generate --target-speedup` compares it with the target, the report's
/// best speedup@k takes the best of a sample's turns.
std::optional<double> minDevSpeedup(const SampleRecord &record);

/// Groups `records` by (model, context, task, arch), in that order. With
/// `requested` (ResultsStore::requested()), each group knows how many
/// samples were asked for, and a group asked for with no row at all is
/// there too, with zero samples.
std::vector<GroupStats>
summarize(const std::vector<SampleRecord> &records,
          llvm::ArrayRef<ResultsStore::Requested> requested = {});

/// One sample's requested-family verdicts from its static JSON: family ->
/// whether some kernel uses it.
std::map<std::string, bool> familiesUsed(const SampleRecord &record);
/// The fallback kinds in a sample's static JSON, in report order.
std::vector<std::string> fallbackKinds(const SampleRecord &record);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_SUMMARY_H
