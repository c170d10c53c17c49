//===- Compare.cpp - Models side by side, with bootstrap intervals --------===//
//
// Each sample is read at its last turn with the report's own per-sample code
// (turnOutcome, summarize, fallbackKinds), so a rate here means what it
// means in the other tables. A metric that needs a run (correct, executed,
// fast_1) is unknown for a sample without one, and a rate over samples of
// which none is known prints "-". The bootstrap draws, for every task cell
// and model, as many samples as the cell has, with replacement, from a
// seeded mt19937_64 (the same store and seed always give the same
// intervals); the interval is the percentiles of the resampled differences.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/Compare.h"
#include "ptxbench/Eval/TurnSummary.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

using namespace ptxbench::eval;

namespace {

/// Outcomes of one metric for one model in one task cell: known samples and
/// those true.
struct Cell {
  std::vector<bool> known; // the known outcomes
  unsigned samples = 0;    // all samples, known or not
};

/// (split, context, task) -> model -> metric -> cell.
using Cells =
    std::map<std::tuple<std::string, std::string, std::string>,
             std::map<std::string, std::vector<Cell>>>;

std::string percent(double x) { return llvm::formatv("{0:f1}", 100 * x); }

/// The rate over the given cells, or none when no outcome is known.
std::optional<double> rate(const std::vector<const Cell *> &cells) {
  unsigned n = 0, k = 0;
  for (const Cell *c : cells) {
    n += c->known.size();
    k += std::count(c->known.begin(), c->known.end(), true);
  }
  if (!n)
    return std::nullopt;
  return double(k) / n;
}

/// One resampled rate: each cell's known outcomes drawn with replacement.
double resampledRate(const std::vector<const Cell *> &cells,
                     std::mt19937_64 &rng) {
  unsigned n = 0, k = 0;
  for (const Cell *c : cells) {
    size_t size = c->known.size();
    for (size_t i = 0; i < size; ++i)
      k += c->known[rng() % size];
    n += size;
  }
  return n ? double(k) / n : 0;
}

double percentile(std::vector<double> &values, double q) {
  llvm::sort(values);
  double at = q * (values.size() - 1);
  size_t lo = size_t(std::floor(at)), hi = size_t(std::ceil(at));
  return values[lo] + (values[hi] - values[lo]) * (at - lo);
}

} // namespace

const std::vector<std::string> &ptxbench::eval::compareMetrics() {
  static const std::vector<std::string> metrics = {
      "compile", "correct", "features used", "features executed",
      "any fallback", "fast_1"};
  return metrics;
}

std::vector<SampleMetric>
ptxbench::eval::sampleMetrics(const SampleRecord &record) {
  TurnOutcome o = turnOutcome(record);
  SampleMetric ran = o.ran ? SampleMetric(true) : std::nullopt;
  // Executed: every requested family's run-time verdict is used (executed,
  // for a family without a work measure); unknown when a run measured none.
  SampleMetric executed;
  std::map<std::string, bool> requested = familiesUsed(record);
  std::vector<GroupStats> groups = summarize({record});
  if (!groups.empty() && !requested.empty()) {
    bool measured = true, all = true;
    for (auto &[requirement, used] : requested) {
      const ExecutedStats *stats = executedStats(groups.front(), requirement);
      if (!stats) {
        measured = false;
        break;
      }
      all &= stats->used > 0;
    }
    if (measured)
      executed = all;
  }
  return {o.compiled,
          ran ? SampleMetric(o.correct) : std::nullopt,
          o.featuresUsed,
          executed,
          !fallbackKinds(record).empty(),
          ran ? SampleMetric(o.fast1) : std::nullopt};
}

std::vector<Table>
ptxbench::eval::compareTables(const std::vector<SampleRecord> &records,
                              const CompareOptions &options) {
  const std::vector<std::string> &metrics = compareMetrics();
  // Each sample at its last turn.
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           const SampleRecord *>
      last;
  for (const SampleRecord &r : records) {
    if (!llvm::is_contained(options.models, r.key.model))
      continue;
    const SampleRecord *&at =
        last[{r.key.model, r.key.context, r.key.task, r.key.sampleId}];
    if (!at || at->key.turn < r.key.turn)
      at = &r;
  }

  Cells cells;
  // (model, split, context) -> fallback kind -> samples; and samples.
  std::map<std::tuple<std::string, std::string, std::string>,
           std::map<std::string, unsigned>>
      kinds;
  std::map<std::tuple<std::string, std::string, std::string>, unsigned>
      kindSamples;
  for (auto &[id, r] : last) {
    auto &[model, context, task, sampleId] = id;
    std::string split =
        options.heldoutTasks.count(task) ? "held-out" : "seen";
    std::vector<Cell> &cell = cells[{split, context, task}][model];
    cell.resize(metrics.size());
    std::vector<SampleMetric> values = sampleMetrics(*r);
    for (size_t m = 0; m < metrics.size(); ++m) {
      ++cell[m].samples;
      if (values[m])
        cell[m].known.push_back(*values[m]);
    }
    ++kindSamples[{model, split, context}];
    for (const std::string &kind : fallbackKinds(*r))
      ++kinds[{model, split, context}][kind];
  }

  Table table{"Models compared (rate over samples at their last turn; "
              "difference from " +
                  options.models.front() + " with a " +
                  llvm::formatv("{0:f0}", 100 * options.confidence).str() +
                  "% bootstrap interval, percentage points)",
              {"split", "context", "task", "metric"},
              {}};
  for (const std::string &model : options.models)
    table.header.push_back(model);
  for (size_t i = 1; i < options.models.size(); ++i)
    table.header.push_back("diff " + options.models[i]);

  // The rows: each task cell, then all tasks of a split and context.
  std::vector<std::tuple<std::string, std::string, std::string,
                         std::vector<decltype(cells)::const_iterator>>>
      rows;
  std::map<std::pair<std::string, std::string>,
           std::vector<decltype(cells)::const_iterator>>
      bySplit;
  for (auto it = cells.begin(); it != cells.end(); ++it) {
    auto &[split, context, task] = it->first;
    rows.emplace_back(split, context, task,
                      std::vector<decltype(cells)::const_iterator>{it});
    bySplit[{split, context}].push_back(it);
  }
  for (auto &[key, its] : bySplit)
    if (its.size() > 1)
      rows.emplace_back(key.first, key.second, "(all)", its);
  std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    // seen before held-out, then context, tasks before their total.
    auto rank = [](const auto &r) {
      return std::make_tuple(std::get<0>(r) != "seen", std::get<1>(r),
                             std::get<2>(r) == "(all)");
    };
    return rank(a) < rank(b);
  });

  static const Cell empty;
  double tail = (1 - options.confidence) / 2;
  for (auto &[split, context, task, its] : rows) {
    for (size_t m = 0; m < metrics.size(); ++m) {
      std::vector<std::vector<const Cell *>> perModel;
      for (const std::string &model : options.models) {
        std::vector<const Cell *> cs;
        for (auto it : its) {
          auto found = it->second.find(model);
          cs.push_back(found == it->second.end() ? &empty
                                                 : &found->second[m]);
        }
        perModel.push_back(std::move(cs));
      }
      std::vector<std::string> row = {split, context, task, metrics[m]};
      std::vector<std::optional<double>> rates;
      for (const auto &cs : perModel) {
        rates.push_back(rate(cs));
        unsigned samples = 0, known = 0, k = 0;
        for (const Cell *c : cs) {
          samples += c->samples;
          known += c->known.size();
          k += std::count(c->known.begin(), c->known.end(), true);
        }
        row.push_back(rates.back() ? llvm::formatv("{0}% ({1}/{2})",
                                                   percent(*rates.back()), k,
                                                   known)
                                         .str()
                                   : samples ? "-" : "(no samples)");
      }
      for (size_t i = 1; i < perModel.size(); ++i) {
        if (!rates[0] || !rates[i]) {
          row.push_back("-");
          continue;
        }
        // The same seed for every row, so one row's interval does not
        // depend on which rows come before it.
        std::mt19937_64 rng(options.seed);
        std::vector<double> diffs;
        diffs.reserve(options.resamples);
        for (unsigned b = 0; b < options.resamples; ++b) {
          double base = resampledRate(perModel[0], rng);
          diffs.push_back(resampledRate(perModel[i], rng) - base);
        }
        double d = *rates[i] - *rates[0];
        std::string text = llvm::formatv("{0}{1}", d >= 0 ? "+" : "",
                                         percent(d))
                               .str();
        if (!diffs.empty())
          text += llvm::formatv(" [{0}, {1}]", percent(percentile(diffs, tail)),
                                percent(percentile(diffs, 1 - tail)))
                      .str();
        row.push_back(text);
      }
      table.rows.push_back(std::move(row));
    }
  }

  Table fallbacks{"Fallback kinds of the compared models (samples with at "
                  "least one such finding)",
                  {"model", "split", "context", "samples", "fallback kind",
                   "count"},
                  {}};
  for (const std::string &model : options.models)
    for (auto &[key, n] : kindSamples) {
      if (std::get<0>(key) != model)
        continue;
      auto found = kinds.find(key);
      if (found == kinds.end()) {
        fallbacks.rows.push_back({model, std::get<1>(key), std::get<2>(key),
                                  std::to_string(n), "(none)", "0"});
        continue;
      }
      for (auto &[kind, count] : found->second)
        fallbacks.rows.push_back({model, std::get<1>(key), std::get<2>(key),
                                  std::to_string(n), kind,
                                  std::to_string(count)});
    }
  return {table, fallbacks};
}
