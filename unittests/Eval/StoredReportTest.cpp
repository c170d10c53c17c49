//===- StoredReportTest.cpp - Eval's readers of a stored analysis report --===//
//
// The store's static_json as the report's writer makes it (report::toJSON),
// read by eval's consumers through parseStoredReport: the requested
// families and which are used, the fallback kinds, the findings at their
// lines. A row that is not a readable report (a wrong type, an unknown
// verdict word, past the limits) counts as no report at all, never as a
// partial one.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/SampleView.h"
#include "ptxbench/Eval/Summary.h"
#include "ptxbench/Report/AnalysisReport.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

using namespace ptxbench;
using report::Finding;
using report::Verdict;

namespace {

report::AnalysisReport twoKernels() {
  report::AnalysisReport r;
  r.file = "solution.cu.ptx";
  r.arch = "sm_90a";
  r.requested = {"wgmma", "tma"};
  r.assembled = true;
  report::KernelReport main, helper;
  main.name = "gemm";
  main.requested = {{"wgmma", Verdict::Serialized}, {"tma", Verdict::Used}};
  Finding f;
  f.kind = "wgmma-serialized";
  f.message = "every commit waits";
  f.alternative = "wait with N>0";
  f.ptx = report::SourceLocation{"solution.cu.ptx", 90, 3};
  f.source = report::SourceLocation{"solution.cu", 12, 0};
  main.fallbacks = {f};
  helper.name = "scale";
  helper.requested = {{"wgmma", Verdict::Missing}, {"tma", Verdict::Missing}};
  Finding g;
  g.kind = "ptxas-spills";
  g.message = "spills 8 bytes";
  helper.ptxasWarnings = {g};
  r.kernels = {main, helper};
  return r;
}

eval::SampleRecord stored(std::string staticJson) {
  eval::SampleRecord r;
  r.status = eval::status::Analyzed;
  r.language = "cu";
  r.staticJson = std::move(staticJson);
  return r;
}

TEST(StoredReportTest, ConsumersReadTheWritersReport) {
  eval::SampleRecord r =
      stored(llvm::formatv("{0}", report::toJSON(twoKernels())).str());
  std::map<std::string, bool> used = eval::familiesUsed(r);
  EXPECT_EQ(used, (std::map<std::string, bool>{{"tma", true},
                                               {"wgmma", false}}));
  EXPECT_EQ(eval::fallbackKinds(r),
            std::vector<std::string>{"wgmma-serialized"});
  std::vector<eval::LineDiagnostic> d = eval::sampleDiagnostics(r);
  ASSERT_EQ(d.size(), 2u);
  // A .cu sample's findings sit at their CUDA line.
  EXPECT_EQ(d[0].line, 12u);
  EXPECT_EQ(d[0].level, "warning");
  EXPECT_EQ(d[0].kind, "wgmma-serialized");
  EXPECT_EQ(d[0].message, "every commit waits; wait with N>0");
  EXPECT_EQ(d[1].line, 0u);
  EXPECT_EQ(d[1].kind, "ptxas-spills");
  r.language = "ptx";
  EXPECT_EQ(eval::sampleDiagnostics(r)[0].line, 90u);
}

TEST(StoredReportTest, AnUnreadableRowIsNoReport) {
  std::string good = llvm::formatv("{0}", report::toJSON(twoKernels())).str();
  // One verdict word changed: the whole report is refused, so no family
  // counts as used from the rest of it.
  std::string badWord = good;
  size_t at = badWord.find("\"used\"");
  ASSERT_NE(at, std::string::npos);
  badWord.replace(at, 6, "\"USED\"");
  EXPECT_TRUE(eval::familiesUsed(stored(badWord)).empty());
  EXPECT_TRUE(eval::fallbackKinds(stored(badWord)).empty());
  EXPECT_TRUE(eval::sampleDiagnostics(stored(badWord)).empty());
  for (const char *hostile :
       {"", "null", "[]", "{\"kernels\": 7}",
        "{\"kernels\": [{\"fallbacks\": [{\"kind\": 1}]}]}",
        "{\"kernels\": [], \"requested\": [\"tma\"], \"verdict\": \"yes\"}"}) {
    EXPECT_TRUE(eval::familiesUsed(stored(hostile)).empty()) << hostile;
    EXPECT_TRUE(eval::sampleDiagnostics(stored(hostile)).empty()) << hostile;
  }
  std::string many = "{\"kernels\": [";
  for (int i = 0; i < 5000; ++i)
    many += i ? ",{\"fallbacks\": [{\"kind\": \"x\"}]}"
              : "{\"fallbacks\": [{\"kind\": \"x\"}]}";
  many += "]}";
  EXPECT_TRUE(eval::fallbackKinds(stored(many)).empty());
}

} // namespace
