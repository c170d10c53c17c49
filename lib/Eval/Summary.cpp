//===- Summary.cpp - Aggregate recorded samples into report numbers -------===//

#include "ptxbench/Eval/Summary.h"

#include "ptxbench/ISA/ISA.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace ptxbench::eval;
namespace runtime = ptxbench::runtime;

double SplitStats::meanSpeedup() const {
  double sum = 0;
  for (double s : speedups)
    sum += s;
  return speedups.empty() ? 0 : sum / speedups.size();
}

double SplitStats::geomeanSpeedup() const {
  double logs = 0;
  for (double s : speedups)
    logs += std::log(s);
  return speedups.empty() ? 0 : std::exp(logs / speedups.size());
}

double SplitStats::meanSol() const {
  double sum = 0;
  for (double s : solFractions)
    sum += s;
  return solFractions.empty() ? 0 : sum / solFractions.size();
}

std::map<std::string, bool>
ptxbench::eval::familiesUsed(const SampleRecord &record) {
  std::map<std::string, bool> result;
  std::optional<ptxbench::report::AnalysisReport> report =
      parseStoredReport(record.staticJson);
  if (!report)
    return result;
  for (const std::string &family : report->requested)
    result[family] = false;
  for (const ptxbench::report::KernelReport &kernel : report->kernels)
    for (const auto &[family, verdict] : kernel.requested)
      if (verdict == ptxbench::report::Verdict::Used)
        result[family] = true;
  return result;
}

std::vector<std::string>
ptxbench::eval::fallbackKinds(const SampleRecord &record) {
  std::vector<std::string> kinds;
  std::optional<ptxbench::report::AnalysisReport> report =
      parseStoredReport(record.staticJson);
  if (!report)
    return kinds;
  std::set<std::string> seen;
  for (const ptxbench::report::KernelReport &kernel : report->kernels)
    for (const ptxbench::report::Finding &finding : kernel.fallbacks)
      if (seen.insert(finding.kind).second)
        kinds.push_back(finding.kind);
  return kinds;
}

/// A workload's split; one without is dev (a run outside a sweep).
static llvm::StringRef splitOf(const runtime::WorkloadResult &w) {
  return w.split.empty() ? "dev" : llvm::StringRef(w.split);
}

static bool isDev(const runtime::WorkloadResult &w) {
  return splitOf(w) == "dev";
}

/// The family names of a requirement: its alternatives ("bulk_copy|tma"),
/// or the name itself when the ISA table does not know it.
static std::vector<std::string> alternatives(llvm::StringRef requirement) {
  std::vector<std::string> names;
  if (auto families = ptxbench::isa::familiesOfRequirement(requirement))
    for (ptxbench::isa::Family f : *families)
      names.push_back(ptxbench::isa::familyName(f).str());
  else
    names.push_back(requirement.str());
  return names;
}

std::map<std::string, RunVerdict>
ptxbench::eval::runVerdicts(const SampleRecord &r) {
  std::map<std::string, RunVerdict> result;
  if (!r.ran())
    return result;
  std::optional<runtime::RunResult> run = runtime::parseRunResult(r.runJson);
  if (!run)
    return result;
  std::map<std::string, runtime::FamilySummary> counts =
      runtime::familySummaries(*run);
  for (auto &[requirement, used] : familiesUsed(r))
    for (const std::string &name : alternatives(requirement)) {
      auto c = counts.find(name);
      if (c == counts.end() || c->second.executed < 0)
        continue;
      RunVerdict v{c->second.verdict, c->second.share};
      auto it = result.find(requirement);
      if (it == result.end() ||
          runtime::acrossAlternatives(it->second.verdict, v.verdict) !=
              it->second.verdict)
        result[requirement] = v;
    }
  return result;
}

/// The row's run result, when its run JSON is one and its run status is the
/// result's own (its worst workload's, as the GPU stage stores it): a row
/// whose status column and result disagree was put together from two runs,
/// or edited, and neither can be believed.
static llvm::Expected<runtime::RunResult> storedRun(const SampleRecord &r) {
  llvm::Expected<runtime::RunResult> run = runtime::readRunResult(r.runJson);
  if (!run)
    return run.takeError();
  llvm::StringRef own = runtime::statusName(runtime::worstStatus(*run));
  if (r.runStatus != own)
    return llvm::createStringError(
        "its run status " + r.runStatus + " is not its result's own (" +
        own + ")");
  return run;
}

std::optional<std::string>
ptxbench::eval::runResultError(const SampleRecord &r) {
  if (llvm::StringRef(r.runJson).trim().empty())
    return std::nullopt;
  llvm::Expected<runtime::RunResult> run = storedRun(r);
  if (run)
    return std::nullopt;
  return llvm::toString(run.takeError());
}

/// A run with workloads, every one of them PASSED.
static bool allPassed(const runtime::RunResult &run) {
  return !run.workloads.empty() &&
         llvm::all_of(run.workloads, [](const runtime::WorkloadResult &w) {
           return w.status == runtime::Status::Passed;
         });
}

std::vector<std::pair<std::string, std::string>>
ptxbench::eval::uncredited(const SampleRecord &r) {
  std::vector<std::pair<std::string, std::string>> missing;
  std::map<std::string, RunVerdict> verdicts = runVerdicts(r);
  for (auto &[requirement, used] : familiesUsed(r)) {
    auto it = verdicts.find(requirement);
    if (it == verdicts.end())
      missing.push_back(
          {requirement,
           runtime::verdictName(runtime::FamilyVerdict::NotMeasured).str()});
    else if (!it->second.credited())
      missing.push_back({requirement, it->second.name().str()});
  }
  return missing;
}

/// The row's run result when it ran correct (ranCorrect).
static std::optional<runtime::RunResult> passedRun(const SampleRecord &r) {
  llvm::Expected<runtime::RunResult> run = storedRun(r);
  if (!run) {
    llvm::consumeError(run.takeError());
    return std::nullopt;
  }
  if (!allPassed(*run))
    return std::nullopt;
  return std::move(*run);
}

bool ptxbench::eval::ranCorrect(const SampleRecord &r) {
  return passedRun(r).has_value();
}

bool ptxbench::eval::creditedCorrect(const SampleRecord &r) {
  return ranCorrect(r) && !familiesUsed(r).empty() && uncredited(r).empty();
}

bool ptxbench::eval::solved(const SampleRecord &r) {
  return creditedCorrect(r) && fallbackKinds(r).empty();
}

std::optional<double> ptxbench::eval::minDevSpeedup(const SampleRecord &r) {
  std::optional<runtime::RunResult> run = passedRun(r);
  if (!run)
    return std::nullopt;
  std::optional<double> least;
  for (const runtime::WorkloadResult &w : run->workloads) {
    if (!isDev(w))
      continue;
    std::optional<double> speedup = runtime::speedup(w);
    // A dev workload without a library time has no speedup: the turn's
    // least one is not known.
    if (!speedup)
      return std::nullopt;
    least = least ? std::min(*least, *speedup) : *speedup;
  }
  return least;
}

const ExecutedStats *
ptxbench::eval::executedStats(const GroupStats &g,
                              llvm::StringRef requirement) {
  const ExecutedStats *best = nullptr;
  for (const std::string &name : alternatives(requirement)) {
    auto it = g.executed.find(name);
    if (it == g.executed.end() || !it->second.measured)
      continue;
    if (!best || it->second.used > best->used ||
        (it->second.used == best->used &&
         it->second.executed > best->executed))
      best = &it->second;
  }
  return best;
}

/// Families with SASS instructions in some kernel.
static std::set<std::string>
sassFamilies(const ptxbench::report::AnalysisReport &report) {
  std::set<std::string> result;
  for (const ptxbench::report::KernelReport &kernel : report.kernels)
    for (const ptxbench::report::FamilyUse &use : kernel.features)
      if (use.sass.value_or(0) > 0)
        result.insert(use.family);
  return result;
}

/// Adds one run's workloads to the split statistics: speedups and
/// speed-of-light fractions computed from the timings, as the run's writer
/// computes them.
static void addRun(const runtime::RunResult &run, GroupStats &group) {
  struct Acc {
    bool allPassed = true;
    double logSpeedup = 0;
    unsigned timed = 0;
    double sol = 0;
    unsigned solCount = 0;
  };
  std::map<std::string, Acc> bySplit;
  for (const runtime::WorkloadResult &w : run.workloads) {
    std::string split = splitOf(w).str();
    Acc &acc = bySplit[split];
    WorkloadStats &ws = group.workloads[w.workload.empty() ? "?" : w.workload];
    ws.split = split;
    ++ws.runs;
    bool passed = w.status == runtime::Status::Passed;
    std::optional<double> speedup = runtime::speedup(w);
    double sol = runtime::solFraction(run, w);
    if (passed) {
      ++ws.correct;
      if (speedup)
        ws.speedups.push_back(*speedup);
      if (sol > 0)
        ws.solFractions.push_back(sol);
    } else {
      acc.allPassed = false;
    }
    if (speedup) {
      acc.logSpeedup += std::log(*speedup);
      ++acc.timed;
    }
    if (sol > 0) {
      acc.sol += sol;
      ++acc.solCount;
    }
  }
  for (auto &[split, acc] : bySplit) {
    SplitStats &s = group.splits[split];
    ++s.runs;
    if (!acc.allPassed)
      continue;
    ++s.correct;
    if (!acc.timed)
      continue;
    double speedup = std::exp(acc.logSpeedup / acc.timed);
    s.speedups.push_back(speedup);
    for (size_t i = 0; i < fastPThresholds.size(); ++i)
      s.fast[i] += speedup > fastPThresholds[i];
    if (acc.solCount)
      s.solFractions.push_back(acc.sol / acc.solCount);
  }
}

std::vector<GroupStats>
ptxbench::eval::summarize(const std::vector<SampleRecord> &records,
                          llvm::ArrayRef<ResultsStore::Requested> requested) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           GroupStats>
      groups;
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           std::set<std::string>>
      ids;
  for (const ResultsStore::Requested &q : requested) {
    GroupStats &g = groups[{q.model, q.context, q.task, q.arch}];
    g.model = q.model;
    g.context = q.context;
    g.task = q.task;
    g.arch = q.arch;
    g.asked = std::max(g.asked, q.samples);
  }
  for (const SampleRecord &r : records) {
    GroupStats &g =
        groups[{r.key.model, r.key.context, r.key.task, r.arch}];
    g.model = r.key.model;
    g.context = r.key.context;
    g.task = r.key.task;
    g.arch = r.arch;
    ++g.samples;
    std::set<std::string> &seen =
        ids[{r.key.model, r.key.context, r.key.task, r.arch}];
    g.sampleIds += seen.insert(r.key.sampleId).second;
    ++g.statuses[r.ran() ? r.runStatus : r.status];
    std::optional<ptxbench::report::AnalysisReport> report =
        parseStoredReport(r.staticJson);
    for (auto &[family, isUsed] : familiesUsed(r))
      g.used[family] += isUsed;
    for (const std::string &kind : fallbackKinds(r))
      ++g.fallbacks[kind];
    if (r.analyzed() && report) {
      bool rejected =
          !report->assembled &&
          llvm::StringRef(report->assemblyNote).starts_with("ptxas rejected");
      g.compiled += !rejected;
      if (report->sassChecked) {
        ++g.sassChecked;
        for (const std::string &family : sassFamilies(*report))
          ++g.sass[family];
      }
    }
    if (r.ran() && !runtime::isStatus(r.runStatus, runtime::Status::NoGpu) &&
        !runtime::isStatus(r.runStatus, runtime::Status::HarnessError) &&
        !runtime::isStatus(r.runStatus, runtime::Status::Skipped)) {
      ++g.runAttempted;
      llvm::Expected<runtime::RunResult> run = storedRun(r);
      // A row whose run result cannot be read, or is not the one its status
      // came from, ran, but nothing it claims counts: not its status, its
      // timings or its counts.
      if (!run) {
        llvm::consumeError(run.takeError());
        ++g.unreadableRuns;
        continue;
      }
      // A SUSPICIOUS run ran (and its output checked out) but is not
      // correct: it was faster than the hardware allows.
      runtime::Status status = runtime::worstStatus(*run);
      g.ranOk += status == runtime::Status::Passed ||
                 status == runtime::Status::Incorrect ||
                 status == runtime::Status::Suspicious;
      g.correct += status == runtime::Status::Passed;
      addRun(*run, g);
      // The per-family counts over the run's workloads, as the run's
      // writer sums them (its `feature_counts`).
      if (!run->countsDisabled)
        for (const auto &[family, c] : runtime::familySummaries(*run)) {
          if (c.executed < 0)
            continue;
          ExecutedStats &e = g.executed[family];
          ++e.measured;
          e.inCode += c.inCode > 0;
          e.executed += c.executed > 0;
          e.used += runtime::credited(c.verdict);
          e.token += c.verdict == runtime::FamilyVerdict::Token;
        }
    }
  }
  std::vector<GroupStats> result;
  for (auto &[key, g] : groups) {
    // Families requested for the group even if no sample was analyzed.
    result.push_back(std::move(g));
  }
  return result;
}
