//===- ReportTest.cpp - The analysis report's JSON, both ways -------------===//
//
// A report with every field set survives toJSON -> parseAnalysisReport; a
// report with a wrong type, an unknown word or a missing key is refused
// with its JSON path; hostile texts (huge arrays, deep nesting, absurd
// numbers) are refused within the limits, never crash.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Report/AnalysisReport.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace ptxbench;
using namespace ptxbench::report;

namespace {

Finding finding(Finding::Level level, std::string kind, bool withSource) {
  Finding f;
  f.level = level;
  f.kind = std::move(kind);
  f.message = "message of " + f.kind + " with \"quotes\" and \xc3\xa9";
  f.alternative = "alternative of " + f.kind;
  f.ptx = SourceLocation{"k.ptx", 120, 7};
  if (withSource)
    f.source = SourceLocation{"k.cu", 33, 0};
  return f;
}

/// A report in which every field is set to something not its default.
AnalysisReport fullReport() {
  AnalysisReport r;
  r.file = "sol.cu";
  r.arch = "sm_90a";
  r.requested = {"wgmma", "bulk_copy|tma", "mbarrier_tx"};
  r.assembled = true;
  r.assemblyNote = "assembled with nvJitLink 13.0";
  r.sassChecked = true;
  r.sassNote = "SASS from nvdisasm";
  KernelReport k;
  k.name = "gemm";
  k.features = {{"mbarrier_tx", 4, 3, 2u}, {"tma", 2, 2, std::nullopt},
                {"wgmma", 16, 16, 8u}};
  k.requested = {{"wgmma", Verdict::Serialized},
                 {"bulk_copy|tma", Verdict::Used},
                 {"mbarrier_tx", Verdict::Unreachable}};
  k.fallbacks = {finding(Finding::Level::Warning, "cp-async-instead-of-tma",
                         true),
                 finding(Finding::Level::Note, "f16-accumulator", false)};
  toolchain::KernelResources res;
  res.registers = 168;
  res.sharedBytes = 200704;
  res.spillStoreBytes = 24;
  res.stackBytes = 16;
  res.localBytes = 8;
  k.resources = res;
  k.ptxasWarnings = {
      finding(Finding::Level::Warning, "ptxas-wgmma-serialized", false)};
  r.kernels.push_back(k);
  KernelReport helper;
  helper.name = "scale";
  helper.requested = {{"wgmma", Verdict::Missing},
                      {"bulk_copy|tma", Verdict::Missing},
                      {"mbarrier_tx", Verdict::Used}};
  r.kernels.push_back(helper);
  r.moduleFindings = {finding(Finding::Level::Error, "target", false)};
  return r;
}

std::string text(const llvm::json::Value &value) {
  std::string s;
  llvm::raw_string_ostream(s) << value;
  return s;
}

std::string errorOf(llvm::StringRef json) {
  llvm::Expected<AnalysisReport> r = parseAnalysisReport(json);
  if (r)
    return "";
  return llvm::toString(r.takeError());
}

void expectSameFinding(const Finding &a, const Finding &b) {
  EXPECT_EQ(a.level, b.level);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.alternative, b.alternative);
  ASSERT_EQ(a.ptx.has_value(), b.ptx.has_value());
  if (a.ptx) {
    EXPECT_EQ(a.ptx->file, b.ptx->file);
    EXPECT_EQ(a.ptx->line, b.ptx->line);
    EXPECT_EQ(a.ptx->column, b.ptx->column);
  }
  ASSERT_EQ(a.source.has_value(), b.source.has_value());
  if (a.source) {
    EXPECT_EQ(a.source->file, b.source->file);
    EXPECT_EQ(a.source->line, b.source->line);
  }
}

TEST(ReportTest, RoundTripKeepsEveryField) {
  AnalysisReport written = fullReport();
  std::string json = text(toJSON(written));
  llvm::Expected<AnalysisReport> read = parseAnalysisReport(json);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->file, written.file);
  EXPECT_EQ(read->arch, written.arch);
  EXPECT_EQ(read->requested, written.requested);
  EXPECT_EQ(read->assembled, written.assembled);
  EXPECT_EQ(read->assemblyNote, written.assemblyNote);
  EXPECT_EQ(read->sassChecked, written.sassChecked);
  EXPECT_EQ(read->sassNote, written.sassNote);
  EXPECT_EQ(read->verdict(), written.verdict());
  ASSERT_EQ(read->kernels.size(), 2u);
  const KernelReport &k = read->kernels[0], &w = written.kernels[0];
  EXPECT_EQ(k.name, "gemm");
  ASSERT_EQ(k.features.size(), w.features.size());
  for (size_t i = 0; i < k.features.size(); ++i) {
    EXPECT_EQ(k.features[i].family, w.features[i].family);
    EXPECT_EQ(k.features[i].count, w.features[i].count);
    EXPECT_EQ(k.features[i].reachable, w.features[i].reachable);
    EXPECT_EQ(k.features[i].sass, w.features[i].sass);
  }
  // The kernel's verdicts come back in the report's order, not the JSON
  // object's (sorted) one.
  EXPECT_EQ(k.requested, w.requested);
  EXPECT_EQ(read->kernels[1].requested, written.kernels[1].requested);
  ASSERT_EQ(k.fallbacks.size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    expectSameFinding(k.fallbacks[i], w.fallbacks[i]);
  ASSERT_EQ(k.ptxasWarnings.size(), 1u);
  expectSameFinding(k.ptxasWarnings[0], w.ptxasWarnings[0]);
  ASSERT_TRUE(k.resources.has_value());
  EXPECT_EQ(k.resources->registers, 168u);
  EXPECT_EQ(k.resources->sharedBytes, 200704u);
  EXPECT_EQ(k.resources->spillStoreBytes + k.resources->spillLoadBytes, 24u);
  EXPECT_EQ(k.resources->stackBytes, 16u);
  EXPECT_EQ(k.resources->localBytes, 8u);
  EXPECT_FALSE(read->kernels[1].resources.has_value());
  ASSERT_EQ(read->moduleFindings.size(), 1u);
  expectSameFinding(read->moduleFindings[0], written.moduleFindings[0]);
  // And the three renderings of what was read are the writer's.
  EXPECT_EQ(text(toJSON(*read)), json);
  EXPECT_EQ(text(toSARIF(*read)), text(toSARIF(written)));
  std::string a, b;
  llvm::raw_string_ostream as(a), bs(b);
  printText(*read, as, /*color=*/false);
  printText(written, bs, /*color=*/false);
  EXPECT_EQ(a, b);
}

TEST(ReportTest, VerdictOfTheRequestedSet) {
  AnalysisReport r = fullReport();
  // wgmma only serialized, the rest used by some kernel.
  EXPECT_EQ(r.verdict(), ReportVerdict::Serialized);
  EXPECT_EQ(r.familyVerdict("mbarrier_tx"), Verdict::Used);
  EXPECT_EQ(r.familyVerdict("not-requested"), Verdict::Missing);
  r.kernels[1].requested[0].second = Verdict::Used;
  EXPECT_EQ(r.verdict(), ReportVerdict::Used);
  for (KernelReport &k : r.kernels)
    k.requested[1].second = Verdict::Missing;
  EXPECT_EQ(r.verdict(), ReportVerdict::Partial);
  r.requested.clear();
  EXPECT_EQ(r.verdict(), ReportVerdict::NoneRequested);
  for (ReportVerdict v :
       {ReportVerdict::Used, ReportVerdict::Serialized, ReportVerdict::Partial,
        ReportVerdict::Missing, ReportVerdict::NoneRequested})
    EXPECT_EQ(parseReportVerdict(verdictName(v)), v);
  EXPECT_EQ(parseReportVerdict("Used"), std::nullopt);
}

TEST(ReportTest, ReadsWhatOlderReportsLeaveOut) {
  // A hand-made report of the older form: no features, resources, notes.
  llvm::Expected<AnalysisReport> r = parseAnalysisReport(
      R"({"file": "s.cu", "arch": "sm_90a", "requested": ["tma"],
          "verdict": "used", "kernels": [{"name": "k",
          "requested": {"tma": "used"}, "fallbacks": []}]})");
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_FALSE(r->assembled);
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_TRUE(r->kernels[0].features.empty());
  EXPECT_FALSE(r->kernels[0].resources);
  EXPECT_EQ(r->verdict(), ReportVerdict::Used);
}

TEST(ReportTest, ClaimedVerdictIsCheckedNotKept) {
  // The stored verdict claims more than the kernels show: the kernels win.
  llvm::Expected<AnalysisReport> r = parseAnalysisReport(
      R"({"requested": ["tma"], "verdict": "used",
          "kernels": [{"name": "k", "requested": {"tma": "missing"}}]})");
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->verdict(), ReportVerdict::Missing);
  EXPECT_EQ(errorOf(R"({"verdict": "great", "kernels": []})"),
            "expected used, serialized, partial, missing or none-requested "
            "at analysis.verdict");
}

TEST(ReportTest, ErrorsNameTheirPath) {
  EXPECT_EQ(errorOf(R"({"file": "x"})"),
            "missing: not an analysis report at analysis.kernels");
  EXPECT_EQ(errorOf(R"([])"), "expected an object when parsing analysis");
  EXPECT_EQ(errorOf(R"({"kernels": {}})"),
            "expected an array at analysis.kernels");
  EXPECT_EQ(errorOf(R"({"kernels": [{"name": 3}]})"),
            "expected string at analysis.kernels[0].name");
  EXPECT_EQ(errorOf(R"({"kernels": [{}, {"requested": {"wgmma": "great"}}]})"),
            "expected used, serialized, unreachable or missing at "
            "analysis.kernels[1].requested.wgmma");
  EXPECT_EQ(errorOf(R"({"kernels": [{"requested": {"wgmma": 1}}]})"),
            "expected used, serialized, unreachable or missing at "
            "analysis.kernels[0].requested.wgmma");
  EXPECT_EQ(
      errorOf(R"({"kernels": [{"fallbacks": [{"level": "fatal"}]}]})"),
      "expected note, warning or error at analysis.kernels[0].fallbacks[0].level");
  EXPECT_EQ(errorOf(R"({"kernels": [], "module_findings": [{"ptx": {"line": -1}}]})"),
            "out of range at analysis.module_findings[0].ptx.line");
  EXPECT_EQ(errorOf(R"({"kernels": [], "module_findings": [{"ptx": {"line": 1.5}}]})"),
            "expected an integer at analysis.module_findings[0].ptx.line");
  EXPECT_EQ(
      errorOf(R"({"kernels": [{"features": {"tma": {"count": 4294967296}}}]})"),
      "out of range at analysis.kernels[0].features.tma.count");
  EXPECT_EQ(errorOf(R"({"kernels": [{"features": {"tma": {"count": 1,
                        "reachable_count": 2}}}]})"),
            "more reachable than in the code at "
            "analysis.kernels[0].features.tma.reachable_count");
  EXPECT_EQ(errorOf(R"({"kernels": [{"resources": {"registers": "many"}}]})"),
            "expected an integer at analysis.kernels[0].resources.registers");
  EXPECT_EQ(errorOf(R"({"kernels": [], "requested": [1]})"),
            "expected string at analysis.requested[0]");
  EXPECT_EQ(errorOf(R"({"kernels": [], "assembled": "yes"})"),
            "expected boolean at analysis.assembled");
  // A syntax error has its line and column.
  EXPECT_EQ(errorOf("{\"kernels\": [\n}"), "2:1: Invalid JSON value");
}

TEST(ReportTest, VerdictWordsInTheMessageAreTheEnums) {
  // The reader's message is a literal (llvm::json::Path keeps only those):
  // it must list every word verdictName writes, in order.
  std::string expected = "expected ";
  for (Verdict v : {Verdict::Used, Verdict::Serialized, Verdict::Unreachable,
                    Verdict::Missing}) {
    EXPECT_EQ(parseStaticVerdict(verdictName(v)), v);
    expected += verdictName(v).str() +
                (v == Verdict::Unreachable ? " or "
                 : v == Verdict::Missing   ? ""
                                           : ", ");
  }
  EXPECT_EQ(errorOf(R"({"kernels": [{"requested": {"x": "y"}}]})"),
            expected + " at analysis.kernels[0].requested.x");
}

TEST(ReportTest, HostileSizesAreRefused) {
  // More kernels than the limit, each costing three bytes of text.
  std::string many = R"({"kernels": [)";
  for (int i = 0; i < 5000; ++i)
    many += i ? ",{}" : "{}";
  many += "]}";
  EXPECT_EQ(errorOf(many),
            "too many entries for an analysis report at analysis.kernels");
  // Findings are counted over the whole report, not per list.
  ReportLimits limits;
  limits.maxFindings = 3;
  std::string spread =
      R"({"kernels": [{"fallbacks": [{}, {}]}, {"ptxas_warnings": [{}, {}]}]})";
  llvm::Expected<AnalysisReport> r = parseAnalysisReport(spread, limits);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(llvm::toString(r.takeError()),
            "too many entries for an analysis report at "
            "analysis.kernels[1].ptxas_warnings");
  limits.maxFindings = 4;
  EXPECT_TRUE(bool(parseAnalysisReport(spread, limits)));
  // Families per kernel.
  std::string families = R"({"kernels": [{"requested": {)";
  for (int i = 0; i < 300; ++i)
    families += (i ? ",\"f" : "\"f") + std::to_string(i) + "\": \"used\"";
  families += "}}]}";
  EXPECT_EQ(errorOf(families), "too many families for an analysis report at "
                               "analysis.kernels[0].requested");
  // Nesting past the depth limit is refused before anything recurses.
  std::string deep = R"({"kernels": [], "x": )" + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  std::string deepError = errorOf(deep);
  EXPECT_NE(deepError.find("nested deeper than 16 levels"), std::string::npos)
      << deepError;
  // A text past the size limit.
  limits = ReportLimits();
  limits.maxBytes = 64;
  r = parseAnalysisReport(R"({"kernels": [], "file": ")" +
                              std::string(100, 'x') + "\"}",
                          limits);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("over the limit"),
            std::string::npos);
}

} // namespace
