//===- AnalysisReport.cpp - Print an analysis report ----------------------===//
//
// The words of the report's enums, the verdict of the requested set, and
// the three renderings of an AnalysisReport: JSON for programs (schema in
// docs/analyze.md; ReadReport.cpp reads it back), SARIF 2.1.0 for editors
// and CI, text for people.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Report/AnalysisReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/WithColor.h"

using namespace ptxbench;
using namespace ptxbench::report;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {
constexpr std::pair<ReportVerdict, const char *> reportVerdictNames[] = {
    {ReportVerdict::Used, "used"},
    {ReportVerdict::Serialized, "serialized"},
    {ReportVerdict::Partial, "partial"},
    {ReportVerdict::Missing, "missing"},
    {ReportVerdict::NoneRequested, "none-requested"},
};
constexpr std::pair<Finding::Level, const char *> levelNames[] = {
    {Finding::Level::Note, "note"},
    {Finding::Level::Warning, "warning"},
    {Finding::Level::Error, "error"},
};
} // namespace

llvm::StringRef ptxbench::report::verdictName(ReportVerdict verdict) {
  for (auto [v, name] : reportVerdictNames)
    if (v == verdict)
      return name;
  llvm_unreachable("a report verdict without a name");
}

std::optional<ReportVerdict>
ptxbench::report::parseReportVerdict(llvm::StringRef name) {
  for (auto [v, text] : reportVerdictNames)
    if (name == text)
      return v;
  return std::nullopt;
}

llvm::StringRef Finding::levelName(Level level) {
  for (auto [l, name] : levelNames)
    if (l == level)
      return name;
  llvm_unreachable("a level without a name");
}

std::optional<Finding::Level> Finding::parseLevel(llvm::StringRef name) {
  for (auto [l, text] : levelNames)
    if (name == text)
      return l;
  return std::nullopt;
}

Verdict AnalysisReport::familyVerdict(llvm::StringRef family) const {
  Verdict best = Verdict::Missing;
  for (const KernelReport &kernel : kernels)
    for (const auto &[name, verdict] : kernel.requested)
      if (name == family)
        best = runtime::acrossKernels(best, verdict);
  return best;
}

ReportVerdict AnalysisReport::verdict() const {
  if (requested.empty())
    return ReportVerdict::NoneRequested;
  unsigned used = 0, serialized = 0;
  for (const std::string &family : requested) {
    Verdict best = familyVerdict(family);
    used += best == Verdict::Used;
    serialized += best == Verdict::Serialized;
  }
  if (used == requested.size())
    return ReportVerdict::Used;
  if (used + serialized == requested.size())
    return ReportVerdict::Serialized;
  return used + serialized ? ReportVerdict::Partial : ReportVerdict::Missing;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static Value locationToJSON(const SourceLocation &loc) {
  return Object{{"file", loc.file}, {"line", loc.line}, {"col", loc.column}};
}

static Value findingToJSON(const Finding &finding) {
  Object object{{"kind", finding.kind},
                {"level", Finding::levelName(finding.level)},
                {"message", finding.message}};
  if (!finding.alternative.empty())
    object["alternative"] = finding.alternative;
  object["ptx"] = finding.ptx ? locationToJSON(*finding.ptx) : Value(nullptr);
  object["source"] =
      finding.source ? locationToJSON(*finding.source) : Value(nullptr);
  return object;
}

static Array findingsToJSON(const std::vector<Finding> &findings) {
  Array array;
  for (const Finding &finding : findings)
    array.push_back(findingToJSON(finding));
  return array;
}

Value ptxbench::report::toJSON(const AnalysisReport &report) {
  Array kernels;
  for (const KernelReport &kernel : report.kernels) {
    Object features, requested;
    for (const FamilyUse &use : kernel.features) {
      Object entry{{"count", use.count},
                   {"reachable", use.reachable > 0},
                   {"reachable_count", use.reachable}};
      if (use.sass)
        entry["sass"] = *use.sass;
      features[use.family] = std::move(entry);
    }
    for (const auto &[family, verdict] : kernel.requested)
      requested[family] = verdictName(verdict);
    Value resources = nullptr;
    if (kernel.resources)
      resources = Object{
          {"registers", kernel.resources->registers},
          {"shared_bytes", kernel.resources->sharedBytes},
          {"spill_bytes", kernel.resources->spillStoreBytes +
                              kernel.resources->spillLoadBytes},
          {"stack_bytes", kernel.resources->stackBytes},
          {"local_bytes", kernel.resources->localBytes}};
    kernels.push_back(Object{{"name", kernel.name},
                             {"features", std::move(features)},
                             {"requested", std::move(requested)},
                             {"fallbacks", findingsToJSON(kernel.fallbacks)},
                             {"resources", std::move(resources)},
                             {"ptxas_warnings", findingsToJSON(kernel.ptxasWarnings)}});
  }
  Array requested;
  for (const std::string &family : report.requested)
    requested.push_back(family);
  return Object{{"file", report.file},
                {"arch", report.arch},
                {"requested", std::move(requested)},
                {"verdict", verdictName(report.verdict())},
                {"assembled", report.assembled},
                {"assembly_note", report.assemblyNote},
                {"sass_checked", report.sassChecked},
                {"sass_note", report.sassNote},
                {"kernels", std::move(kernels)},
                {"module_findings", findingsToJSON(report.moduleFindings)}};
}

//===----------------------------------------------------------------------===//
// SARIF
//===----------------------------------------------------------------------===//

static Value sarifLocation(const SourceLocation &loc) {
  Object region{{"startLine", loc.line}};
  if (loc.column)
    region["startColumn"] = loc.column;
  return Object{{"physicalLocation",
                 Object{{"artifactLocation", Object{{"uri", loc.file}}},
                        {"region", std::move(region)}}}};
}

Value ptxbench::report::toSARIF(const AnalysisReport &report) {
  Array results, rules;
  llvm::StringSet<> ruleIds;
  auto add = [&](const Finding &finding, llvm::StringRef kernel) {
    if (ruleIds.insert(finding.kind).second)
      rules.push_back(Object{{"id", finding.kind}});
    std::string text = finding.message;
    if (!finding.alternative.empty())
      text += "; " + finding.alternative;
    Object result{{"ruleId", finding.kind},
                  {"level", Finding::levelName(finding.level)},
                  {"message", Object{{"text", text}}}};
    // The CUDA line is the primary location when there is one: it is the
    // file the user edits (a .cu submission's PTX exists only in memory).
    Array locations, related;
    std::optional<SourceLocation> primary =
        finding.source ? finding.source : finding.ptx;
    if (primary)
      locations.push_back(sarifLocation(*primary));
    if (finding.source && finding.ptx)
      related.push_back(sarifLocation(*finding.ptx));
    result["locations"] = std::move(locations);
    if (!related.empty())
      result["relatedLocations"] = std::move(related);
    if (!kernel.empty())
      result["properties"] = Object{{"kernel", kernel}};
    results.push_back(std::move(result));
  };
  for (const Finding &finding : report.moduleFindings)
    add(finding, "");
  for (const KernelReport &kernel : report.kernels) {
    for (const Finding &finding : kernel.fallbacks)
      add(finding, kernel.name);
    for (const Finding &finding : kernel.ptxasWarnings)
      add(finding, kernel.name);
  }
  Object driver{{"name", "ptxbench"},
                {"informationUri", "https://github.com/ptxbench/ptxbench"},
                {"rules", std::move(rules)}};
  return Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", Array{Object{{"tool", Object{{"driver", std::move(driver)}}},
                            {"results", std::move(results)}}}}};
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

void ptxbench::report::printText(const AnalysisReport &report,
                                 llvm::raw_ostream &os, bool color) {
  auto printFinding = [&](const Finding &finding) {
    if (finding.ptx) {
      os << finding.ptx->file << ':' << finding.ptx->line;
      if (finding.ptx->column)
        os << ':' << finding.ptx->column;
      os << ": ";
    } else {
      os << report.file << ": ";
    }
    llvm::raw_ostream::Colors colour =
        finding.level == Finding::Level::Error     ? llvm::raw_ostream::RED
        : finding.level == Finding::Level::Warning ? llvm::raw_ostream::MAGENTA
                                                   : llvm::raw_ostream::CYAN;
    if (color)
      os.changeColor(colour, /*Bold=*/true);
    os << Finding::levelName(finding.level) << ':';
    if (color)
      os.resetColor();
    os << " [" << finding.kind << "] " << finding.message;
    if (!finding.alternative.empty())
      os << "; " << finding.alternative;
    if (finding.source)
      os << " (" << finding.source->file << ':' << finding.source->line << ')';
    os << '\n';
  };
  for (const Finding &finding : report.moduleFindings)
    printFinding(finding);
  for (const KernelReport &kernel : report.kernels) {
    for (const Finding &finding : kernel.fallbacks)
      printFinding(finding);
    for (const Finding &finding : kernel.ptxasWarnings)
      printFinding(finding);
  }
  for (const KernelReport &kernel : report.kernels) {
    os << "kernel " << kernel.name << ':';
    for (const auto &[family, verdict] : kernel.requested)
      os << ' ' << family << '=' << verdictName(verdict);
    os << '\n' << "  features:";
    for (const FamilyUse &use : kernel.features) {
      os << ' ' << use.family << '=' << use.count;
      if (use.reachable != use.count)
        os << " (" << use.reachable << " reachable)";
      if (use.sass)
        os << "[sass " << *use.sass << ']';
    }
    os << '\n';
    if (kernel.resources)
      os << "  resources: " << kernel.resources->registers << " registers, "
         << kernel.resources->sharedBytes << " bytes shared, "
         << kernel.resources->spillStoreBytes +
                kernel.resources->spillLoadBytes
         << " bytes spilled\n";
  }
  if (!report.assemblyNote.empty())
    os << "note: " << report.assemblyNote << '\n';
  if (!report.sassNote.empty() && !report.sassChecked)
    os << "note: " << report.sassNote << '\n';
  os << "verdict: " << verdictName(report.verdict());
  if (!report.requested.empty())
    os << " (requested " << llvm::join(report.requested, ",") << " for "
       << report.arch << ")";
  os << '\n';
}
