//===- Fixit.cpp - Fine-tuning pairs from mistakes and their fixes --------===//
//
// Everything here is a function of the recorded analyses: the same store
// gives the same records, byte for byte. Candidates are visited in the
// order of a hash of their key, so caps keep a spread of models and samples
// rather than the alphabetically first.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/Fixit.h"

#include "ptxbench/Eval/FixitRecords.h"
#include "ptxbench/Eval/Repair.h"
#include "ptxbench/Eval/SampleView.h"
#include "ptxbench/Eval/Summary.h"
#include "ptxbench/Prompt/ExtractCode.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace ptxbench::eval;
namespace runtime = ptxbench::runtime;
namespace json = llvm::json;
using llvm::formatv;
using ptxbench::report::AnalysisReport;
using ptxbench::report::verdictName;
using ptxbench::report::ReportVerdict;
using StaticVerdict = ptxbench::runtime::StaticVerdict;

namespace {

std::string sha256(llvm::StringRef text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

std::string identity(const SampleRecord &r) { return kernelIdentity(r); }

bool realRunFailed(const SampleRecord &r) {
  return r.ran() && !runtime::isStatus(r.runStatus, runtime::Status::Passed) &&
         !runtime::isStatus(r.runStatus, runtime::Status::NoGpu) &&
         !runtime::isStatus(r.runStatus, runtime::Status::HarnessError) &&
         !runtime::isStatus(r.runStatus, runtime::Status::Skipped);
}

/// The stored report's verdict on the requested set; none without a
/// readable report.
std::optional<ReportVerdict> reportVerdict(const SampleRecord &r) {
  std::optional<AnalysisReport> report = parseStoredReport(r.staticJson);
  if (!report)
    return std::nullopt;
  return report->verdict();
}

/// Requested family -> reachable instructions, summed over kernels.
std::map<std::string, int64_t> requestedCounts(const SampleRecord &r) {
  std::map<std::string, int64_t> counts;
  std::optional<AnalysisReport> report = parseStoredReport(r.staticJson);
  if (!report)
    return counts;
  for (auto &[requirement, used] : familiesUsed(r))
    counts[requirement] = 0;
  // A requirement with alternatives ("bulk_copy|tma") counts each of its
  // families' instructions.
  auto requirementsOf = [&](llvm::StringRef family) {
    std::vector<std::string> out;
    for (auto &[requirement, n] : counts) {
      llvm::SmallVector<llvm::StringRef> names;
      llvm::StringRef(requirement).split(names, '|');
      if (llvm::is_contained(names, family))
        out.push_back(requirement);
    }
    return out;
  };
  for (const ptxbench::report::KernelReport &kernel : report->kernels)
    for (const ptxbench::report::FamilyUse &use : kernel.features)
      for (const std::string &requirement : requirementsOf(use.family))
        counts[requirement] += use.reachable;
  return counts;
}

/// Verdict per requested family (the best over kernels).
std::map<std::string, StaticVerdict> familyVerdicts(const SampleRecord &r) {
  std::map<std::string, StaticVerdict> verdicts;
  std::optional<AnalysisReport> report = parseStoredReport(r.staticJson);
  if (!report)
    return verdicts;
  for (const ptxbench::report::KernelReport &kernel : report->kernels)
    for (const auto &[family, v] : kernel.requested) {
      auto [it, inserted] = verdicts.try_emplace(family, v);
      it->second = ptxbench::runtime::acrossKernels(it->second, v);
    }
  return verdicts;
}

/// A requested family the run measured that did not do the task's share
/// of the work (token, not triggered, not in code).
bool runShortfall(const SampleRecord &r) {
  for (auto &[family, v] : runVerdicts(r))
    if (!v.credited())
      return true;
  return false;
}

/// The run's geometric-mean speedup over its timed workloads (each
/// runtime::speedup of its timings); none when the row has no readable run
/// result or no workload was timed against the library.
std::optional<double> runSpeedup(const SampleRecord &r) {
  std::optional<runtime::RunResult> run = runtime::parseRunResult(r.runJson);
  if (!run)
    return std::nullopt;
  double logs = 0;
  unsigned n = 0;
  for (const runtime::WorkloadResult &w : run->workloads)
    if (std::optional<double> s = runtime::speedup(w)) {
      logs += std::log(*s);
      ++n;
    }
  if (!n)
    return std::nullopt;
  return std::exp(logs / n);
}

std::string fence(const SampleRecord &r) {
  return "```" +
         ptxbench::prompt::fenceTag(ptxbench::prompt::languageOfWord(r.language)).str() + "\n" +
         r.code + (llvm::StringRef(r.code).ends_with("\n") ? "" : "\n") +
         "```";
}

/// The family a fallback kind stands in for: "cp-async-instead-of-tma" ->
/// "tma".
std::string replacedFamily(llvm::StringRef kind) {
  size_t at = kind.find("-instead-of-");
  if (at == llvm::StringRef::npos)
    return kind.starts_with("wgmma") ? "wgmma" : "";
  return kind.drop_front(at + 12).str();
}

} // namespace

bool ptxbench::eval::isWrong(const SampleRecord &r) {
  if (r.code.empty())
    return false;
  if (r.status == status::CompileError || r.status == status::ImportError ||
      r.status == status::Refused)
    return true;
  if (!r.analyzed())
    return false;
  return reportVerdict(r) != ReportVerdict::Used || !fallbackKinds(r).empty() ||
         realRunFailed(r) || runShortfall(r);
}

bool ptxbench::eval::isFixed(const SampleRecord &r) {
  return r.analyzed() && reportVerdict(r) == ReportVerdict::Used &&
         fallbackKinds(r).empty() &&
         !realRunFailed(r) && !runShortfall(r);
}

std::string ptxbench::eval::failureKind(const SampleRecord &r) {
  if (!r.analyzed())
    return r.status;
  if (realRunFailed(r))
    return llvm::StringRef(r.runStatus).lower();
  std::vector<std::string> kinds = fallbackKinds(r);
  if (!kinds.empty())
    return kinds.front();
  for (auto &[family, v] : runVerdicts(r))
    if (!v.credited()) {
      std::string kind = "feature-" + v.name().str();
      std::replace(kind.begin(), kind.end(), ' ', '-');
      return kind;
    }
  std::optional<ReportVerdict> v = reportVerdict(r);
  return "feature-" + (v ? verdictName(*v).str() : "");
}

std::string ptxbench::eval::describeProblems(const SampleRecord &r) {
  std::string text = formatv("This {0} kernel for task {1} on {2} has "
                             "problems:\n",
                             ptxbench::prompt::languageName(
                                 ptxbench::prompt::languageOfWord(r.language)),
                             r.key.task, r.arch)
                         .str();
  if (r.status == status::CompileError || r.status == status::ImportError)
    text += "- it does not " +
            std::string(r.status == status::CompileError ? "compile"
                                                         : "import") +
            ": " + r.error + "\n";
  if (r.status == status::Refused)
    text += "- it is refused: " + r.error + "\n";
  // The run's verdict first (what executed and did the work), the static
  // one beside it.
  std::map<std::string, RunVerdict> run = runVerdicts(r);
  for (auto &[family, v] : familyVerdicts(r)) {
    auto it = run.find(family);
    if (it != run.end() && !it->second.credited()) {
      text += "- requested family " + family + ": " +
              it->second.name().str() + " at run time";
      if (it->second.share >= 0)
        text += formatv(" ({0:f2}% of the work)", it->second.share * 100)
                    .str();
      text += "; static verdict " + verdictName(v).str() + "\n";
    } else if (v != StaticVerdict::Used) {
      text += "- requested family " + family + ": " + verdictName(v).str() +
              "\n";
    }
  }
  for (const LineDiagnostic &d : sampleDiagnostics(r)) {
    if (d.kind == "compiler" && d.level != "error")
      continue;
    text += "- ";
    if (d.line)
      text += "line " + std::to_string(d.line) + ": ";
    text += "[" + d.kind + "] " + d.message + "\n";
  }
  if (realRunFailed(r))
    text += "- the run on the GPU: " + r.runStatus + "\n";
  return text + "\n" + fence(r) + "\n\nFix it.";
}

std::string ptxbench::eval::explainFix(const SampleRecord &wrong,
                                       const SampleRecord &fixed) {
  return derivedReason(wrong, fixed) + "\nThe fixed kernel:\n\n" +
         fence(fixed);
}

std::string ptxbench::eval::fencedCode(const SampleRecord &r) {
  return fence(r);
}

std::string ptxbench::eval::describeKernel(const SampleRecord &r) {
  std::string text = "What this kernel does for the task:\n";
  std::map<std::string, int64_t> counts = requestedCounts(r);
  std::map<std::string, RunVerdict> run = runVerdicts(r);
  for (auto &[family, v] : familyVerdicts(r)) {
    text += formatv("- {0}: {1} ({2} reachable instructions", family,
                    verdictName(v), counts[family])
                .str();
    auto it = run.find(family);
    if (it != run.end()) {
      text += "; " + it->second.name().str() + " at run time";
      if (it->second.share >= 0)
        text += formatv(", {0:f0}% of the work", it->second.share * 100).str();
    }
    text += ").\n";
  }
  if (r.ran())
    text += "- The run: " + r.runStatus + ".\n";
  if (std::optional<double> s = runSpeedup(r))
    text += formatv("- Speed against the library: {0:f2}x.\n", *s).str();
  return text;
}

std::string ptxbench::eval::derivedReason(const SampleRecord &wrong,
                                          const SampleRecord &fixed) {
  std::string text = "What was wrong and why the fix works:\n";
  if (!wrong.analyzed())
    text += "- The kernel did not " +
            std::string(wrong.status == status::CompileError ? "compile"
                                                              : "import") +
            " (" + wrong.error + "); the fixed kernel compiles for " +
            fixed.arch + ".\n";
  std::map<std::string, StaticVerdict> before = familyVerdicts(wrong),
                                        after = familyVerdicts(fixed);
  std::map<std::string, int64_t> counts = requestedCounts(fixed);
  for (auto &[family, v] : after) {
    StaticVerdict was =
        before.count(family) ? before[family] : StaticVerdict::Missing;
    if (was != v)
      text += formatv("- {0}: {1} -> {2} ({3} reachable instructions).\n",
                      family, verdictName(was), verdictName(v),
                      counts[family])
                  .str();
  }
  std::map<std::string, RunVerdict> runBefore = runVerdicts(wrong),
                                    runAfter = runVerdicts(fixed);
  for (auto &[family, v] : runBefore)
    if (!v.credited() && runAfter.count(family))
      text += formatv("- {0} at run time: {1} -> {2}.\n", family, v.name(),
                      runAfter[family].name())
                  .str();
  std::set<std::string> fixedKinds;
  for (const std::string &k : fallbackKinds(fixed))
    fixedKinds.insert(k);
  for (const LineDiagnostic &d : sampleDiagnostics(wrong)) {
    if (d.kind == "compiler" || fixedKinds.count(d.kind))
      continue;
    std::string family = replacedFamily(d.kind);
    text += "- Gone: [" + d.kind + "]";
    if (d.line)
      text += " at line " + std::to_string(d.line);
    if (!family.empty() && counts.count(family) && counts[family] > 0)
      text += formatv("; replaced by {0} {1} instructions", counts[family],
                      family)
                  .str();
    text += ". " + d.message + "\n";
  }
  if (realRunFailed(wrong))
    text += "- The run: " + wrong.runStatus + " -> " +
            (fixed.ran() ? fixed.runStatus : std::string("not run")) + ".\n";
  std::optional<double> s0 = runSpeedup(wrong), s1 = runSpeedup(fixed);
  if (s0 && s1)
    text += formatv("- Speed against the library: {0:f2}x -> {1:f2}x.\n",
                    *s0, *s1)
                .str();
  else if (s1)
    text += formatv("- Speed against the library: {0:f2}x.\n", *s1).str();
  return text;
}

double FixitResult::entropy() const {
  unsigned total = 0;
  for (auto &[cell, n] : distribution)
    total += n;
  double h = 0;
  for (auto &[cell, n] : distribution)
    if (n) {
      double p = double(n) / total;
      h -= p * std::log2(p);
    }
  return h;
}

json::Value FixitResult::distributionJSON() const {
  json::Object cells, byTask, byKind;
  for (auto &[cell, n] : distribution) {
    auto &[task, kind] = cell;
    json::Object *t = cells.getObject(task);
    if (!t) {
      cells[task] = json::Object();
      t = cells.getObject(task);
    }
    (*t)[kind] = int64_t(n);
    byTask[task] = byTask.getInteger(task).value_or(0) + n;
    byKind[kind] = byKind.getInteger(kind).value_or(0) + n;
  }
  return json::Object{{"records", int64_t(records.size())},
                      {"wrong_samples", int64_t(wrong)},
                      {"unpaired", int64_t(unpaired)},
                      {"duplicates", int64_t(duplicates)},
                      {"capped_by_task", int64_t(cappedByTask)},
                      {"capped_by_kind", int64_t(cappedByKind)},
                      {"entropy_bits", entropy()},
                      {"by_task_and_kind", std::move(cells)},
                      {"by_task", std::move(byTask)},
                      {"by_kind", std::move(byKind)}};
}

llvm::StringRef ptxbench::eval::fixSourceName(FixSource source) {
  switch (source) {
  case FixSource::LaterTurn:
    return "later-turn";
  case FixSource::Repair:
    return "repair";
  case FixSource::Expert:
    return "expert";
  }
  return "later-turn";
}

std::optional<FixSource> ptxbench::eval::parseFixSource(llvm::StringRef name) {
  for (FixSource s :
       {FixSource::LaterTurn, FixSource::Repair, FixSource::Expert})
    if (name == fixSourceName(s))
      return s;
  return std::nullopt;
}

std::string FixitPair::fixedKey() const {
  return source == FixSource::Expert ? "expert:" + fixed.solutionPath
                                     : fixed.key.str();
}

std::string FixitPair::id() const {
  if (!wrong)
    return "k" + sha256(fixedKey()).substr(0, 16);
  return "p" + sha256(wrong->key.str() + "\n" + fixedKey()).substr(0, 16);
}

FixitResult ptxbench::eval::pairFixit(const std::vector<SampleRecord> &all,
                                      const FixitOptions &options) {
  FixitResult result;
  std::vector<const SampleRecord *> wrong, fixed;
  // A teacher's repairs, by the sample id of the failure they repair.
  std::map<std::pair<std::string, std::string>,
           std::vector<const SampleRecord *>>
      repairs;
  for (const SampleRecord &r : all) {
    if (r.ran() &&
        runtime::isStatus(r.runStatus, runtime::Status::HarnessError))
      result.harnessErrors.push_back(r.key.str());
    if (isWrong(r))
      wrong.push_back(&r);
    else if (isFixed(r)) {
      fixed.push_back(&r);
      if (r.key.context == repairContext)
        repairs[{r.key.task, r.key.sampleId}].push_back(&r);
    }
  }
  result.wrong = wrong.size();
  // A deterministic shuffle: caps then keep a spread.
  llvm::sort(wrong, [](const SampleRecord *a, const SampleRecord *b) {
    return sha256(a->key.str()) < sha256(b->key.str());
  });
  std::map<std::string, std::optional<SampleRecord>> experts;
  // Each wrong sample's fix and its source's place in the order.
  struct Found {
    const SampleRecord *fix = nullptr;
    FixSource source = FixSource::LaterTurn;
    size_t rank = 0;
  };
  auto findFix = [&](const SampleRecord *w) {
    Found found;
    const SampleRecord *&best = found.fix;
    FixSource &source = found.source;
    for (FixSource candidate : options.sources) {
      if (best)
        break;
      source = candidate;
      if (candidate == FixSource::LaterTurn) {
        // A later turn of the same model, task and arch; the same
        // trajectory first, then the same context, then the earliest turn.
        auto rank = [&](const SampleRecord *f) {
          return std::make_tuple(f->key.sampleId != w->key.sampleId,
                                 f->key.context != w->key.context,
                                 f->key.turn, f->key.str());
        };
        for (const SampleRecord *f : fixed)
          if (f->key.model == w->key.model && f->key.task == w->key.task &&
              f->arch == w->arch && f->key.turn > w->key.turn &&
              (!best || rank(f) < rank(best)))
            best = f;
      } else if (candidate == FixSource::Repair) {
        // The earliest fixed turn of a teacher's repair of this sample (of
        // the teachers, the first by name).
        auto it = repairs.find({w->key.task, repairSampleId(w->key)});
        if (it != repairs.end())
          for (const SampleRecord *f : it->second)
            if (f->arch == w->arch &&
                (!best || std::make_tuple(f->key.turn, f->key.model) <
                              std::make_tuple(best->key.turn,
                                              best->key.model)))
              best = f;
      } else if (options.expert) {
        std::string taskKey = w->key.task + "|" + w->arch;
        if (!experts.count(taskKey))
          experts[taskKey] = options.expert(*w);
        if (experts[taskKey] && isFixed(*experts[taskKey]))
          best = &*experts[taskKey];
      }
      if (!best)
        ++found.rank;
    }
    return found;
  };
  std::vector<Found> fixes;
  // One record per wrong kernel: of its samples with a fix, the one whose
  // fix comes first in the order of sources, then the first visited.
  std::map<std::string, size_t> chosen;
  for (size_t i = 0; i < wrong.size(); ++i) {
    fixes.push_back(findFix(wrong[i]));
    if (!fixes[i].fix)
      continue;
    auto [it, inserted] = chosen.emplace(identity(*wrong[i]), i);
    if (!inserted && fixes[i].rank < fixes[it->second].rank)
      it->second = i;
  }
  std::map<std::string, unsigned> perTask, perKind;
  for (size_t i = 0; i < wrong.size(); ++i) {
    const SampleRecord *w = wrong[i];
    const SampleRecord *best = fixes[i].fix;
    FixSource source = fixes[i].source;
    if (!best) {
      ++result.unpaired;
      continue;
    }
    if (chosen[identity(*w)] != i) {
      ++result.duplicates;
      continue;
    }
    std::string kind = failureKind(*w);
    if (options.maxPerTask && perTask[w->key.task] >= options.maxPerTask) {
      ++result.cappedByTask;
      continue;
    }
    if (options.maxPerKind && perKind[kind] >= options.maxPerKind) {
      ++result.cappedByKind;
      continue;
    }
    ++perTask[w->key.task];
    ++perKind[kind];
    ++result.distribution[{w->key.task, kind}];
    FixitPair pair;
    pair.wrong = w;
    pair.fixed = *best;
    pair.source = source;
    pair.kind = kind;
    result.pairs.push_back(std::move(pair));
  }
  return result;
}

FixitResult ptxbench::eval::pairKernelGen(const std::vector<SampleRecord> &all,
                                          const FixitOptions &options) {
  FixitResult result;
  std::vector<const SampleRecord *> correct;
  for (const SampleRecord &r : all) {
    if (r.ran() &&
        runtime::isStatus(r.runStatus, runtime::Status::HarnessError))
      result.harnessErrors.push_back(r.key.str());
    if (isFixed(r))
      correct.push_back(&r);
  }
  llvm::sort(correct, [](const SampleRecord *a, const SampleRecord *b) {
    return sha256(a->key.str()) < sha256(b->key.str());
  });
  std::set<std::string> seen;
  std::map<std::string, unsigned> perTask;
  for (const SampleRecord *r : correct) {
    if (!seen.insert(identity(*r)).second) {
      ++result.duplicates;
      continue;
    }
    if (options.maxPerTask && perTask[r->key.task] >= options.maxPerTask) {
      ++result.cappedByTask;
      continue;
    }
    ++perTask[r->key.task];
    ++result.distribution[{r->key.task, "correct"}];
    FixitPair pair;
    pair.fixed = *r;
    pair.kind = "correct";
    result.pairs.push_back(std::move(pair));
  }
  return result;
}

FixitResult ptxbench::eval::buildFixit(const std::vector<SampleRecord> &all,
                                       const FixitOptions &options) {
  FixitResult result = pairFixit(all, options);
  for (const FixitPair &p : result.pairs)
    result.records.push_back(threeMessageRecord(
        p, derivedReason(*p.wrong, p.fixed), options.taskSummary));
  return result;
}
