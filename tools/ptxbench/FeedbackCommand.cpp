//===- FeedbackCommand.cpp - ptxbench feedback ----------------------------===//
//
// `ptxbench feedback RESULT.json [--analysis ANALYSIS.json] [-o FILE]`
// writes the next turn's user message for a run result (from `ptxbench run
// --json`) and optionally the analysis report (`ptxbench analyze --format
// json`); see Feedback.h.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Prompt/Feedback.h"
#include "ptxbench/Report/AnalysisReport.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Support/JSON.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand feedbackCmd("feedback",
                           "Turn a run result into the next turn's message");
cl::opt<std::string> feedbackResult(cl::Positional, cl::Required,
                                    cl::desc("<result.json>"),
                                    cl::sub(feedbackCmd));
cl::opt<std::string> feedbackAnalysis(
    "analysis", cl::desc("The analysis report (ptxbench analyze --format json)"),
    cl::value_desc("file"), cl::sub(feedbackCmd));
cl::opt<std::string> feedbackOutput("o", cl::desc("Output file"),
                                    cl::init("-"), cl::value_desc("file"),
                                    cl::sub(feedbackCmd));

int fail(const Twine &message) { return cli::fail("feedback", message); }

/// Reads and parses a JSON file; errors name the file.
Expected<json::Value> readJSON(StringRef path) {
  std::string errorMessage;
  std::unique_ptr<MemoryBuffer> input =
      mlir::openInputFile(path, &errorMessage);
  if (!input)
    return createStringError(errorMessage);
  auto value = ptxbench::parseJSON(input->getBuffer());
  if (!value)
    return createStringError(path + ": " + toString(value.takeError()));
  return value;
}

int runFeedback() {
  auto result = readJSON(feedbackResult);
  if (!result)
    return fail(toString(result.takeError()));
  runtime::RunResult run;
  json::Path::Root root("run");
  if (!runtime::fromJSON(*result, run, root))
    return fail(feedbackResult +
                ": not a run result (expected the JSON of `ptxbench run "
                "--json`): " +
                toString(root.getError()));
  std::optional<report::AnalysisReport> analysis;
  if (!feedbackAnalysis.empty()) {
    auto a = readJSON(feedbackAnalysis);
    if (!a)
      return fail(toString(a.takeError()));
    const json::Object *ao = a->getAsObject();
    if (!ao || !ao->getArray("kernels"))
      return fail(feedbackAnalysis +
                  ": not an analysis report (expected the JSON of `ptxbench "
                  "analyze --format json`, with \"kernels\")");
    auto read = report::readAnalysisReport(*a);
    if (!read)
      return fail(feedbackAnalysis + ": " + toString(read.takeError()));
    analysis = std::move(*read);
  }
  std::string errorMessage;
  std::unique_ptr<ToolOutputFile> out =
      mlir::openOutputFile(feedbackOutput, &errorMessage);
  if (!out)
    return fail(errorMessage);
  out->os() << prompt::renderFeedback(run, analysis ? &*analysis : nullptr);
  out->keep();
  return 0;
}

} // namespace

cli::Command cli::feedbackCommand() { return {feedbackCmd, runFeedback}; }
