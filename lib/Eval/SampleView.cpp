//===- SampleView.cpp - One recorded sample, for a person -----------------===//
//
// `ptxbench report --sample`: a sample's code with its findings at their lines (the
// analysis report read back as structs), its run, and the feedback a model
// would get for it.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/SampleView.h"

#include "ptxbench/Eval/Summary.h"
#include "ptxbench/Prompt/Feedback.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace ptxbench::eval;
namespace json = llvm::json;

namespace {

void addFinding(const ptxbench::report::Finding &f, bool cuda,
                std::vector<LineDiagnostic> &out) {
  LineDiagnostic d;
  d.level = ptxbench::report::Finding::levelName(f.level).str();
  d.kind = f.kind;
  d.message = f.message;
  if (!f.alternative.empty())
    d.message += "; " + f.alternative;
  if (const auto &loc = cuda ? f.source : f.ptx)
    d.line = loc->line;
  out.push_back(std::move(d));
}

} // namespace

std::vector<LineDiagnostic>
ptxbench::eval::sampleDiagnostics(const SampleRecord &record) {
  std::vector<LineDiagnostic> out;
  if (std::optional<json::Value> messages =
          parseStoredJson(record.diagnosticsJson))
    if (const json::Array *a = messages->getAsArray())
      for (const json::Value &v : *a)
        if (const json::Object *m = v.getAsObject())
          out.push_back({unsigned(m->getInteger("line").value_or(0)),
                         m->getBoolean("error").value_or(false) ? "error"
                                                                : "warning",
                         "compiler",
                         m->getString("text").value_or("").str()});
  bool cuda = record.language != "ptx"; // findings at source lines
  std::optional<ptxbench::report::AnalysisReport> report =
      parseStoredReport(record.staticJson);
  if (!report)
    return out;
  for (const ptxbench::report::Finding &f : report->moduleFindings)
    addFinding(f, cuda, out);
  for (const ptxbench::report::KernelReport &kernel : report->kernels)
    for (const auto *list : {&kernel.fallbacks, &kernel.ptxasWarnings})
      for (const ptxbench::report::Finding &f : *list)
        addFinding(f, cuda, out);
  return out;
}

void ptxbench::eval::printSample(const SampleRecord &r,
                                 llvm::raw_ostream &os) {
  os << "sample " << r.key.str() << " (id " << r.id << ")\n";
  os << "solution: " << r.solutionPath << " (" << r.language << ")\n";
  os << "arch: " << r.arch << "  shapes: " << r.shapes
     << "  status: " << r.status
     << "  run: " << (r.ran() ? r.runStatus : "not run") << "\n";
  if (!r.canonicalHash.empty())
    os << "canonical hash: " << r.canonicalHash << "\n";
  if (!r.reusedFrom.empty())
    os << "run reused from " << r.reusedFrom
       << " (the same kernels, launch plan, task and settings)\n";
  std::optional<ptxbench::report::AnalysisReport> analysis =
      parseStoredReport(r.staticJson);
  if (analysis) {
    os << "verdict: " << ptxbench::report::verdictName(analysis->verdict());
    std::vector<std::string> fams;
    for (auto &[family, used] : familiesUsed(r))
      fams.push_back(family + (used ? "=used" : "=not used"));
    os << " (" << llvm::join(fams, " ") << ")\n";
  }
  if (!r.error.empty())
    os << "error: " << r.error << "\n";

  std::vector<LineDiagnostic> diagnostics = sampleDiagnostics(r);
  std::multimap<unsigned, const LineDiagnostic *> byLine;
  for (const LineDiagnostic &d : diagnostics)
    byLine.insert({d.line, &d});
  os << "\n--- code ---\n";
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(r.code).split(lines, '\n');
  if (!lines.empty() && lines.back().empty())
    lines.pop_back();
  for (auto [i, line] : llvm::enumerate(lines)) {
    os << llvm::formatv("{0,5} | {1}\n", i + 1, line);
    auto [begin, end] = byLine.equal_range(unsigned(i + 1));
    for (auto it = begin; it != end; ++it)
      os << "      ^ " << it->second->level << ": [" << it->second->kind
         << "] " << it->second->message << "\n";
  }
  bool header = false;
  for (const LineDiagnostic &d : diagnostics)
    if (d.line == 0 || d.line > lines.size()) {
      if (!header)
        os << "--- diagnostics without a line in the code ---\n";
      header = true;
      os << d.level << ": [" << d.kind << "] " << d.message << "\n";
    }

  if (llvm::StringRef(r.runJson).trim().empty())
    return; // not run
  llvm::Expected<ptxbench::runtime::RunResult> read =
      ptxbench::runtime::readRunResult(r.runJson);
  os << "\n--- run ---\n";
  if (!read) {
    os << "the stored run result cannot be read: "
       << llvm::toString(read.takeError()) << "\n";
    return;
  }
  const ptxbench::runtime::RunResult &run = *read;
  os << "device: " << run.device << "  status: "
     << ptxbench::runtime::statusName(ptxbench::runtime::worstStatus(run))
     << "\n";
  // The run's verdicts (what executed and did the task's work), which lead
  // over the static ones: the per-family summary the run's writer makes.
  std::map<std::string, ptxbench::runtime::FamilySummary> counts =
      ptxbench::runtime::familySummaries(run);
  if (!run.countsDisabled && !counts.empty()) {
    std::vector<std::string> fams;
    for (const auto &[family, c] : counts) {
      std::string text =
          family + "=" + ptxbench::runtime::verdictName(c.verdict).str();
      if (c.share >= 0)
        text += llvm::formatv(" ({0:f2}% of the work)", c.share * 100).str();
      fams.push_back(text);
    }
    os << "requested at run time: " << llvm::join(fams, ", ") << "\n";
  }
  for (const ptxbench::runtime::WorkloadResult &w : run.workloads) {
    os << "  " << w.workload << " [" << (w.split.empty() ? "dev" : w.split)
       << "]: " << ptxbench::runtime::statusName(w.status);
    if (std::optional<double> s = ptxbench::runtime::speedup(w))
      os << llvm::formatv("  speedup {0:f2}x", *s);
    if (!w.message.empty())
      os << "  " << w.message;
    os << "\n";
    for (const auto &f : w.workFindings)
      os << "    [" << f.kind << "] " << f.message << "\n";
  }
  // The next turn's message, exactly as a model would get it.
  os << "\n--- feedback ---\n"
     << ptxbench::prompt::renderFeedback(run, analysis ? &*analysis : nullptr);
}
