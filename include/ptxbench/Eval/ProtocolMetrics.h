//===- ProtocolMetrics.h - The paper's numbers over a sample's turns -*- C++
//-*-===//
//
// The metrics of the PTXBench paper's protocol, per model, context and
// task, for a turn limit k (a sample's turns 1..k; a single-turn sample's
// turn 0 is its turn 1): correct@k (some turn <= k PASSED), correct with
// the requested families credited at run time @k (creditedCorrect at some
// turn <= k), and best speedup@k (over the turns <= k, the best of each
// turn's least dev-workload speedup, minDevSpeedup; 0 for a sample with no
// correct timed turn, averaged over samples). With the tokens, cost and
// latency the store keeps per turn, they make the report's one row per
// model, its per-group table and its charts. docs/eval.md defines each.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_PROTOCOLMETRICS_H
#define PTXBENCH_EVAL_PROTOCOLMETRICS_H

#include "ptxbench/Eval/ReportTables.h"

namespace ptxbench::eval {

struct ProtocolGroup {
  std::string model, context, task;
  unsigned samples = 0;
  /// k: the most turns a sample of the group reached.
  unsigned turnLimit = 0;
  /// Some sample of the group ran on a GPU; without one the rates below
  /// measure nothing.
  bool ran = false;
  /// At index k-1, for k = 1..turnLimit: samples correct at some turn
  /// <= k, samples correct with the requested families credited, and the
  /// sum over samples of the best speedup (0 for a sample without one).
  std::vector<unsigned> correct, credited;
  std::vector<double> bestSpeedupSum;

  /// The rates and the mean best speedup at turn limit `k` (a group whose
  /// samples stopped before k stands at its own turn limit).
  double correctAt(unsigned k) const;
  double creditedAt(unsigned k) const;
  double bestSpeedupAt(unsigned k) const;
};

/// Tokens, cost and latency of one model's turns (the store's usage
/// columns, filled from generation.json).
struct ModelUsage {
  /// Rows, those with usage recorded, and those with a latency (answered
  /// requests; one that failed for good has only a cost).
  unsigned turns = 0, withUsage = 0, answered = 0;
  int64_t inputTokens = 0, outputTokens = 0, reasoningTokens = 0,
          cachedTokens = 0;
  double costUsd = 0, latencySeconds = 0;
  /// Some of it estimated (a server that reported none, failed attempts).
  bool estimated = false;
};

/// Groups by (model, context, task), in that order.
std::vector<ProtocolGroup>
protocolGroups(const std::vector<SampleRecord> &records);
/// Model -> its usage.
std::map<std::string, ModelUsage>
modelUsage(const std::vector<SampleRecord> &records);

/// Whether a row's run ran on a GPU: a run result naming a device, not
/// NO_GPU, HARNESS_ERROR or SKIPPED (a plan checked offline names none).
bool ranOnGpu(const SampleRecord &record);
/// The report's banner when no row of the store ran on a GPU; empty when
/// some did.
std::string noGpuBanner(const std::vector<SampleRecord> &records);

/// One row per model: contexts, tasks, samples, turn limit, correct@k,
/// correct+credited@k and best speedup@k averaged over its groups (each at
/// its own k), tokens, cost and mean latency per turn.
Table modelSummaryTable(const std::vector<ProtocolGroup> &groups,
                        const std::map<std::string, ModelUsage> &usage);
/// Per model, context and task at k, then per model and context the mean
/// over its tasks.
Table protocolTable(const std::vector<ProtocolGroup> &groups);

/// Appends to the CSV's flat table (flatTable(), model, context and task
/// first) each group's k, correct@k, credited@k (fractions) and best
/// speedup@k; empty where the group has none or never ran on a GPU.
void addProtocolColumns(Table &flat, const std::vector<ProtocolGroup> &groups);

/// One point per row with usage: the model, its reasoning tokens (output
/// tokens when the model reported no reasoning) and the turn's speedup
/// (minDevSpeedup, 0 when not correct or not timed).
struct TokenPoint {
  std::string model;
  double tokens = 0, speedup = 0;
  bool reasoning = false;
};
std::vector<TokenPoint> tokenPoints(const std::vector<SampleRecord> &records);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_PROTOCOLMETRICS_H
