//===- TurnSummary.h - The report's per-turn view and pass@k ----*- C++ -*-===//
//
// Multi-turn samples (`ptxbench generate --turns T`) are recorded once per
// turn. After turn t a sample stands at its last turn <= t (a sample that
// passed early keeps its passing turn). turnTable() gives, per model and
// context, the compile, correct, requested-feature and fast_1 rates of the
// samples after each turn; passAtKTable() the unbiased pass@k estimate
// (1 - C(n-c, k) / C(n, k), averaged over tasks) of the samples' last turns;
// languageTable() the same rates split by the language of the answers.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_TURNSUMMARY_H
#define PTXBENCH_EVAL_TURNSUMMARY_H

#include "ptxbench/Eval/ReportTables.h"

namespace ptxbench::eval {

/// One sample's standing in the per-turn view.
struct TurnOutcome {
  bool compiled = false, ran = false, correct = false, featuresUsed = false,
       fast1 = false;
};
TurnOutcome turnOutcome(const SampleRecord &record);

/// The unbiased pass@k estimate for n samples of which c are correct.
double passAtK(unsigned n, unsigned c, unsigned k);

/// Per model, context and turn: samples, compile, correct,
/// requested-feature (every requested family used) and fast_1 rates.
Table turnTable(const std::vector<SampleRecord> &records);
/// Per model and context: tasks, samples, pass@1, pass@5, pass@10.
Table passAtKTable(const std::vector<SampleRecord> &records);

/// Per model, context, task and the language the answers were written in
/// (CUDA C++, PTX, Triton; "-" where there was no code): answers (every
/// turn counts), compile, refused, correct, requested-feature and fast_1
/// rates.
Table languageTable(const std::vector<SampleRecord> &records);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_TURNSUMMARY_H
