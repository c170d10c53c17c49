//===- analysis-report-fuzzer.cpp - libFuzzer target: stored reports ------===//
//
// parseAnalysisReport, which every reader of a stored or handed-over
// analysis report goes through (feedback, eval, fixit, generate), on
// arbitrary bytes. Checked besides crashes: every refusal has a message,
// and a report it accepts is a fixed point of the writer: its JSON reads
// back to a report that writes the same JSON, SARIF and text.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Report/AnalysisReport.h"

#include <cstdio>
#include <cstdlib>

using namespace ptxbench::report;

static std::string text(const llvm::json::Value &value) {
  std::string s;
  llvm::raw_string_ostream(s) << value;
  return s;
}

static std::string rendered(const AnalysisReport &report) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printText(report, os, /*color=*/false);
  return text(toJSON(report)) + "\n" + text(toSARIF(report)) + "\n" + s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  llvm::Expected<AnalysisReport> report = parseAnalysisReport(input);
  if (!report) {
    if (llvm::toString(report.takeError()).empty()) {
      fprintf(stderr, "analysis-report-fuzzer: a refusal without a message\n");
      abort();
    }
    return 0;
  }
  std::string first = text(toJSON(*report));
  llvm::Expected<AnalysisReport> again = parseAnalysisReport(first);
  if (!again) {
    fprintf(stderr,
            "analysis-report-fuzzer: the writer's JSON does not read back: "
            "%s\n",
            llvm::toString(again.takeError()).c_str());
    abort();
  }
  if (rendered(*again) != rendered(*report)) {
    fprintf(stderr, "analysis-report-fuzzer: a report read back renders "
                    "differently\n");
    abort();
  }
  return 0;
}
