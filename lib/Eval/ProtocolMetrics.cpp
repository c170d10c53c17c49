//===- ProtocolMetrics.cpp - The paper's numbers over a sample's turns ----===//
//
// A sample's turns are read in order; after turn k it is correct when some
// turn <= k PASSED, credited when some turn <= k was also credited at run
// time (creditedCorrect, the reading solved() and fixit share), and its
// best speedup is the best of those turns' least dev speedup. Rates are
// over every sample of the group; a group with no GPU run prints "-".
// Averages over groups (a model's, a context's) are means of the groups'
// values, each at its own turn limit.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ProtocolMetrics.h"
#include "ptxbench/Task/Verdict.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <set>

using namespace ptxbench::eval;
namespace runtime = ptxbench::runtime;

namespace {

using SampleId = std::tuple<std::string, std::string, std::string, std::string>;

unsigned turnIndex(const SampleRecord &r) {
  return unsigned(std::max<int64_t>(1, r.key.turn));
}

std::string percent(double v) { return llvm::formatv("{0:f1}%", v * 100); }
std::string speedup(double v) { return llvm::formatv("{0:f2}x", v); }

} // namespace

static double at(const std::vector<unsigned> &v, unsigned k, unsigned samples) {
  if (v.empty() || !samples)
    return 0;
  return double(v[std::min<size_t>(k, v.size()) - 1]) / samples;
}

double ProtocolGroup::correctAt(unsigned k) const {
  return at(correct, k, samples);
}
double ProtocolGroup::creditedAt(unsigned k) const {
  return at(credited, k, samples);
}
double ProtocolGroup::bestSpeedupAt(unsigned k) const {
  if (bestSpeedupSum.empty() || !samples)
    return 0;
  return bestSpeedupSum[std::min<size_t>(k, bestSpeedupSum.size()) - 1] /
         samples;
}

bool ptxbench::eval::ranOnGpu(const SampleRecord &r) {
  if (!r.ran() || runtime::isStatus(r.runStatus, runtime::Status::NoGpu) ||
      runtime::isStatus(r.runStatus, runtime::Status::HarnessError) ||
      runtime::isStatus(r.runStatus, runtime::Status::Skipped))
    return false;
  std::optional<runtime::RunResult> run = runtime::parseRunResult(r.runJson);
  return run && !run->device.empty();
}

std::string
ptxbench::eval::noGpuBanner(const std::vector<SampleRecord> &records) {
  if (records.empty() || llvm::any_of(records, ranOnGpu))
    return "";
  return "No sample in this store ran on a GPU (every run is NO_GPU, or the "
         "sweep was static only): correctness, the speedups and the "
         "run-time credit are not measured, and their columns show \"-\". "
         "Run `ptxbench eval` on a machine with a GPU to fill them in.";
}

std::vector<ProtocolGroup>
ptxbench::eval::protocolGroups(const std::vector<SampleRecord> &records) {
  std::map<SampleId, std::vector<const SampleRecord *>> samples;
  for (const SampleRecord &r : records)
    samples[{r.key.model, r.key.context, r.key.task, r.key.sampleId}].push_back(
        &r);
  std::map<std::tuple<std::string, std::string, std::string>,
           std::vector<const std::vector<const SampleRecord *> *>>
      groups;
  for (auto &[id, turns] : samples) {
    llvm::sort(turns, [](const SampleRecord *a, const SampleRecord *b) {
      return a->key.turn < b->key.turn;
    });
    groups[{std::get<0>(id), std::get<1>(id), std::get<2>(id)}].push_back(
        &turns);
  }
  std::vector<ProtocolGroup> result;
  for (auto &[key, members] : groups) {
    ProtocolGroup g;
    std::tie(g.model, g.context, g.task) = key;
    g.samples = members.size();
    for (const auto *turns : members)
      for (const SampleRecord *r : *turns) {
        g.turnLimit = std::max(g.turnLimit, turnIndex(*r));
        g.ran |= ranOnGpu(*r);
      }
    g.correct.assign(g.turnLimit, 0);
    g.credited.assign(g.turnLimit, 0);
    g.bestSpeedupSum.assign(g.turnLimit, 0);
    for (const auto *turns : members) {
      bool correct = false, credited = false;
      double best = 0;
      size_t next = 0;
      for (unsigned k = 1; k <= g.turnLimit; ++k) {
        for (; next < turns->size() && turnIndex(*(*turns)[next]) <= k;
             ++next) {
          const SampleRecord &r = *(*turns)[next];
          correct |= ranCorrect(r);
          credited |= creditedCorrect(r);
          if (std::optional<double> s = minDevSpeedup(r))
            best = std::max(best, *s);
        }
        g.correct[k - 1] += correct;
        g.credited[k - 1] += credited;
        g.bestSpeedupSum[k - 1] += best;
      }
    }
    result.push_back(std::move(g));
  }
  return result;
}

std::map<std::string, ModelUsage>
ptxbench::eval::modelUsage(const std::vector<SampleRecord> &records) {
  std::map<std::string, ModelUsage> usage;
  for (const SampleRecord &r : records) {
    ModelUsage &u = usage[r.key.model];
    ++u.turns;
    const GenerationUsage &g = r.generation;
    if (!g.known())
      continue;
    ++u.withUsage;
    u.inputTokens += g.inputTokens;
    u.outputTokens += g.outputTokens;
    u.reasoningTokens += g.reasoningTokens;
    u.cachedTokens += g.cachedTokens;
    u.costUsd += g.costUsd;
    u.latencySeconds += g.latencySeconds;
    u.answered += g.latencySeconds > 0;
    u.estimated |= g.source == "estimated";
  }
  return usage;
}

/// One of a group's numbers at turn limit k.
using Metric = double (ProtocolGroup::*)(unsigned) const;

/// The mean of `metric` over the groups that ran, each at its own turn
/// limit (`atLimit`) or at turn 1; "-" when none ran.
static std::string meanOver(const std::vector<const ProtocolGroup *> &groups,
                            Metric metric, bool atLimit) {
  double sum = 0;
  unsigned n = 0;
  for (const ProtocolGroup *g : groups)
    if (g->ran) {
      sum += (g->*metric)(atLimit ? g->turnLimit : 1);
      ++n;
    }
  if (!n)
    return "-";
  return metric == &ProtocolGroup::bestSpeedupAt ? speedup(sum / n)
                                                 : percent(sum / n);
}

static std::string tokenCount(int64_t n) {
  if (n >= 10000000)
    return llvm::formatv("{0:f1}M", n / 1e6);
  if (n >= 10000)
    return llvm::formatv("{0:f1}k", n / 1e3);
  return std::to_string(n);
}

Table ptxbench::eval::modelSummaryTable(
    const std::vector<ProtocolGroup> &groups,
    const std::map<std::string, ModelUsage> &usage) {
  Table t{"Per model (each group at its turn limit k; averaged over "
          "contexts and tasks)",
          {"model", "contexts", "tasks", "samples", "k", "correct@k",
           "credited@k", "best speedup@k", "tokens in", "tokens out",
           "reasoning", "cost", "latency/turn"},
          {}};
  std::map<std::string, std::vector<const ProtocolGroup *>> byModel;
  for (const ProtocolGroup &g : groups)
    byModel[g.model].push_back(&g);
  for (auto &[model, gs] : byModel) {
    std::set<std::string> contexts, tasks;
    unsigned samples = 0, k = 0;
    for (const ProtocolGroup *g : gs) {
      contexts.insert(g->context);
      tasks.insert(g->task);
      samples += g->samples;
      k = std::max(k, g->turnLimit);
    }
    std::vector<std::string> row = {model, std::to_string(contexts.size()),
                                    std::to_string(tasks.size()),
                                    std::to_string(samples), std::to_string(k)};
    for (Metric m : {&ProtocolGroup::correctAt, &ProtocolGroup::creditedAt,
                     &ProtocolGroup::bestSpeedupAt})
      row.push_back(meanOver(gs, m, true));
    auto it = usage.find(model);
    if (it == usage.end() || !it->second.withUsage) {
      for (int i = 0; i < 5; ++i)
        row.push_back("-");
    } else {
      const ModelUsage &u = it->second;
      row.push_back(tokenCount(u.inputTokens));
      row.push_back(tokenCount(u.outputTokens));
      row.push_back(tokenCount(u.reasoningTokens));
      row.push_back(llvm::formatv("${0:f4}{1}", u.costUsd,
                                  u.estimated ? " (some estimated)" : "")
                        .str());
      row.push_back(
          u.answered
              ? llvm::formatv("{0:f2} s", u.latencySeconds / u.answered).str()
              : "-");
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table ptxbench::eval::protocolTable(const std::vector<ProtocolGroup> &groups) {
  Table t{"Protocol metrics at the turn limit k",
          {"model", "context", "task", "samples", "k", "correct@k",
           "credited@k", "best speedup@k", "correct@1", "best speedup@1"},
          {}};
  auto rate = [](const ProtocolGroup &g, unsigned n) {
    return g.ran ? formatRate(n, g.samples) : "-";
  };
  std::map<std::pair<std::string, std::string>,
           std::vector<const ProtocolGroup *>>
      byContext;
  for (const ProtocolGroup &g : groups) {
    unsigned k = g.turnLimit;
    t.rows.push_back(
        {g.model, g.context, g.task, std::to_string(g.samples),
         std::to_string(k), rate(g, g.correct[k - 1]),
         rate(g, g.credited[k - 1]), g.ran ? speedup(g.bestSpeedupAt(k)) : "-",
         rate(g, g.correct[0]), g.ran ? speedup(g.bestSpeedupAt(1)) : "-"});
    byContext[{g.model, g.context}].push_back(&g);
  }
  for (auto &[key, gs] : byContext) {
    if (gs.size() < 2)
      continue;
    unsigned samples = 0, k = 0;
    for (const ProtocolGroup *g : gs) {
      samples += g->samples;
      k = std::max(k, g->turnLimit);
    }
    std::vector<std::string> row = {
        key.first, key.second,
        llvm::formatv("mean of {0} tasks", gs.size()).str(),
        std::to_string(samples), std::to_string(k)};
    for (auto [m, atLimit] : {std::pair{&ProtocolGroup::correctAt, true},
                              {&ProtocolGroup::creditedAt, true},
                              {&ProtocolGroup::bestSpeedupAt, true},
                              {&ProtocolGroup::correctAt, false},
                              {&ProtocolGroup::bestSpeedupAt, false}})
      row.push_back(meanOver(gs, m, atLimit));
    t.rows.push_back(std::move(row));
  }
  return t;
}

void ptxbench::eval::addProtocolColumns(
    Table &flat, const std::vector<ProtocolGroup> &groups) {
  for (const char *h :
       {"turn_limit", "correct_at_k", "credited_at_k", "best_speedup_at_k"})
    flat.header.push_back(h);
  std::map<std::tuple<std::string, std::string, std::string>,
           const ProtocolGroup *>
      byKey;
  for (const ProtocolGroup &g : groups)
    byKey[{g.model, g.context, g.task}] = &g;
  for (std::vector<std::string> &row : flat.rows) {
    auto it =
        row.size() < 3 ? byKey.end() : byKey.find({row[0], row[1], row[2]});
    const ProtocolGroup *g = it == byKey.end() ? nullptr : it->second;
    row.push_back(g ? std::to_string(g->turnLimit) : "");
    for (Metric m : {&ProtocolGroup::correctAt, &ProtocolGroup::creditedAt,
                     &ProtocolGroup::bestSpeedupAt})
      row.push_back(g && g->ran
                        ? llvm::formatv("{0:f4}", (g->*m)(g->turnLimit)).str()
                        : "");
  }
}

std::vector<TokenPoint>
ptxbench::eval::tokenPoints(const std::vector<SampleRecord> &records) {
  std::set<std::string> reasoners;
  for (const SampleRecord &r : records)
    if (r.generation.reasoningTokens > 0)
      reasoners.insert(r.key.model);
  std::vector<TokenPoint> points;
  for (const SampleRecord &r : records) {
    if (!r.generation.known() || !ranOnGpu(r))
      continue;
    bool reasoning = reasoners.count(r.key.model);
    points.push_back({r.key.model,
                      double(reasoning ? r.generation.reasoningTokens
                                       : r.generation.outputTokens),
                      minDevSpeedup(r).value_or(0), reasoning});
  }
  return points;
}
