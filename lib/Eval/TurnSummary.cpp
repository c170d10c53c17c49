//===- TurnSummary.cpp - The report's per-turn view and pass@k ------------===//
//
// A sample's outcome is read with the same code as the main tables
// (summarize() on the one record), so "compile", "correct" and fast_1 mean
// the same here as there. Rates are over every sample of the model and
// context; "correct" and fast_1 print "-" when no sample really ran.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/TurnSummary.h"

#include "ptxbench/Eval/ReportTables.h"
#include "ptxbench/Prompt/ExtractCode.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

using namespace ptxbench::eval;

namespace {

using SampleId = std::tuple<std::string, std::string, std::string, std::string>;

/// Records by sample, each sample's turns in order.
std::map<SampleId, std::vector<const SampleRecord *>>
bySample(const std::vector<SampleRecord> &records) {
  std::map<SampleId, std::vector<const SampleRecord *>> samples;
  for (const SampleRecord &r : records)
    samples[{r.key.model, r.key.context, r.key.task, r.key.sampleId}].push_back(
        &r);
  for (auto &[id, turns] : samples)
    llvm::sort(turns, [](const SampleRecord *a, const SampleRecord *b) {
      return a->key.turn < b->key.turn;
    });
  return samples;
}

} // namespace

TurnOutcome ptxbench::eval::turnOutcome(const SampleRecord &record) {
  std::vector<GroupStats> groups = summarize({record});
  TurnOutcome o;
  if (groups.empty())
    return o;
  const GroupStats &g = groups.front();
  o.compiled = g.compiled > 0;
  o.ran = g.runAttempted > 0;
  o.correct = g.correct > 0;
  std::map<std::string, bool> used = familiesUsed(record);
  o.featuresUsed = !used.empty();
  for (auto &[family, isUsed] : used)
    o.featuresUsed &= isUsed;
  auto dev = g.splits.find("dev");
  // fastPThresholds[2] is p = 1.
  o.fast1 = dev != g.splits.end() && dev->second.fast[2] > 0;
  return o;
}

double ptxbench::eval::passAtK(unsigned n, unsigned c, unsigned k) {
  if (k > n || n == 0)
    return 0;
  if (n - c < k)
    return 1;
  // 1 - prod_{i = n-c+1}^{n} (1 - k / i)
  double fail = 1;
  for (unsigned i = n - c + 1; i <= n; ++i)
    fail *= 1.0 - double(k) / double(i);
  return 1 - fail;
}

Table ptxbench::eval::turnTable(const std::vector<SampleRecord> &records) {
  Table table{"After each turn (a sample stands at its last turn so far)",
              {"model", "context", "turn", "samples", "compile", "correct",
               "requested features", "fast_1"},
              {}};
  auto samples = bySample(records);
  // (model, context) -> the turns recorded.
  std::map<std::pair<std::string, std::string>, std::set<int64_t>> turns;
  for (auto &[id, rs] : samples)
    for (const SampleRecord *r : rs)
      turns[{std::get<0>(id), std::get<1>(id)}].insert(r->key.turn);
  for (auto &[group, ts] : turns) {
    for (int64_t t : ts) {
      unsigned n = 0, compiled = 0, ran = 0, correct = 0, features = 0,
               fast = 0;
      for (auto &[id, rs] : samples) {
        if (std::get<0>(id) != group.first || std::get<1>(id) != group.second)
          continue;
        ++n;
        const SampleRecord *at = nullptr;
        for (const SampleRecord *r : rs)
          if (r->key.turn <= t)
            at = r;
        if (!at)
          continue;
        TurnOutcome o = turnOutcome(*at);
        compiled += o.compiled;
        ran += o.ran;
        correct += o.correct;
        features += o.featuresUsed;
        fast += o.fast1;
      }
      table.rows.push_back({group.first, group.second, std::to_string(t),
                            std::to_string(n), formatRate(compiled, n),
                            ran ? formatRate(correct, n) : "-", formatRate(features, n),
                            ran ? formatRate(fast, n) : "-"});
    }
  }
  return table;
}

Table ptxbench::eval::passAtKTable(const std::vector<SampleRecord> &records) {
  static const unsigned ks[] = {1, 5, 10};
  Table table{
      "pass@k over samples (last turn; correct = PASSED)",
      {"model", "context", "tasks", "samples", "pass@1", "pass@5", "pass@10"},
      {}};
  auto samples = bySample(records);
  // (model, context) -> task -> (n, c, ran).
  struct Count {
    unsigned n = 0, c = 0, ran = 0;
  };
  std::map<std::pair<std::string, std::string>, std::map<std::string, Count>>
      groups;
  for (auto &[id, rs] : samples) {
    Count &count = groups[{std::get<0>(id), std::get<1>(id)}][std::get<2>(id)];
    TurnOutcome o = turnOutcome(*rs.back());
    ++count.n;
    count.c += o.correct;
    count.ran += o.ran;
  }
  for (auto &[group, tasks] : groups) {
    unsigned total = 0, ran = 0, smallest = ~0u;
    for (auto &[task, count] : tasks) {
      total += count.n;
      ran += count.ran;
      smallest = std::min(smallest, count.n);
    }
    std::vector<std::string> row = {group.first, group.second,
                                    std::to_string(tasks.size()),
                                    std::to_string(total)};
    for (unsigned k : ks) {
      if (!ran || k > smallest) {
        row.push_back("-");
        continue;
      }
      double sum = 0;
      for (auto &[task, count] : tasks)
        sum += passAtK(count.n, count.c, k);
      row.push_back(llvm::formatv("{0:f3}", sum / tasks.size()).str());
    }
    table.rows.push_back(row);
  }
  return table;
}

Table ptxbench::eval::languageTable(const std::vector<SampleRecord> &records) {
  Table table{"By language (every answer, each turn one)",
              {"model", "context", "task", "language", "answers", "compile",
               "refused", "correct", "requested features", "fast_1"},
              {}};
  struct Count {
    unsigned n = 0, compiled = 0, refused = 0, ran = 0, correct = 0,
             features = 0, fast = 0;
  };
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           Count>
      groups;
  for (const SampleRecord &r : records) {
    std::string language =
        r.language.empty()
            ? "-"
            : prompt::languageName(prompt::languageOfWord(r.language)).str();
    Count &c = groups[{r.key.model, r.key.context, r.key.task, language}];
    TurnOutcome o = turnOutcome(r);
    ++c.n;
    c.compiled += o.compiled;
    c.refused += r.status == status::Refused;
    c.ran += o.ran;
    c.correct += o.correct;
    c.features += o.featuresUsed;
    c.fast += o.fast1;
  }
  for (auto &[key, c] : groups)
    table.rows.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key),
                          std::get<3>(key), std::to_string(c.n),
                          formatRate(c.compiled, c.n),
                          formatRate(c.refused, c.n),
                          c.ran ? formatRate(c.correct, c.n) : "-",
                          formatRate(c.features, c.n),
                          c.ran ? formatRate(c.fast, c.n) : "-"});
  return table;
}
