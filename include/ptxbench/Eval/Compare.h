//===- Compare.h - Models side by side, with bootstrap intervals -*- C++ -*-===//
//
// `ptxbench report --compare BASE,OTHER,...`: per split (tasks seen in
// training or held out), context level and task, and over all tasks of a
// split and context, each model's rates over its samples (each at its last
// turn): compile, correct, requested features used (static), requested
// features executed (the run-time verdict `used` for every requested
// family), any fallback, fast_1; and each other model's difference from the
// first with a percentile bootstrap interval over samples (resampled within
// each task, so the tasks keep their weight). A second table counts the
// fallback kinds per model, split and context.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_COMPARE_H
#define PTXBENCH_EVAL_COMPARE_H

#include "ptxbench/Eval/ReportTables.h"

#include <cstdint>
#include <optional>
#include <set>

namespace ptxbench::eval {

struct CompareOptions {
  /// The models compared; the first is the baseline of the differences.
  std::vector<std::string> models;
  /// Tasks held out of training: their rows are in the `held-out` split,
  /// the others in `seen`.
  std::set<std::string> heldoutTasks;
  /// Bootstrap resamples for the intervals, and their seed.
  unsigned resamples = 1000;
  uint64_t seed = 0;
  /// The interval's coverage.
  double confidence = 0.95;
};

/// A binary outcome of one sample; unknown (no run) where a metric needs
/// one.
using SampleMetric = std::optional<bool>;

/// The metrics compared, in table order.
const std::vector<std::string> &compareMetrics();
/// One sample's metrics (its last turn's record), in compareMetrics() order.
std::vector<SampleMetric> sampleMetrics(const SampleRecord &record);

/// The two comparison tables (rates and differences; fallback kinds).
std::vector<Table> compareTables(const std::vector<SampleRecord> &records,
                                 const CompareOptions &options);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_COMPARE_H
