//===- run-result-fuzzer.cpp - libFuzzer target: stored run results -------===//
//
// readRunResult, which every reader of a stored or handed-over run result
// goes through (eval's report, fixit and sample view, the GPU stage,
// feedback, generate), on arbitrary bytes. Checked besides crashes: every
// refusal has a message; what the timings give (speedup, TFLOP/s, GB/s,
// the speed-of-light fractions) is a positive finite number or nothing; an
// accepted result is a fixed point of the writer: its JSON reads back to a
// result that writes the same JSON.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Result.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace ptxbench::runtime;

static std::string text(const llvm::json::Value &value) {
  std::string s;
  llvm::raw_string_ostream(s) << value;
  return s;
}

/// `json` read by llvm::json and written again.
static std::string normalized(const std::string &json) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value)
    return "unreadable: " + llvm::toString(value.takeError());
  return text(*value);
}

static void fail(const char *what) {
  fprintf(stderr, "run-result-fuzzer: %s\n", what);
  abort();
}

static void checkNumbers(const RunResult &run) {
  for (const WorkloadResult &w : run.workloads) {
    for (std::optional<double> v : {speedup(w), tflops(w), gbps(w)})
      if (v && !(*v > 0 && std::isfinite(*v)))
        fail("a derived number that is not a positive finite one");
    for (double f : {solFraction(run, w), libraryFraction(run, w)})
      if (!(f >= 0 && std::isfinite(f)))
        fail("a speed-of-light fraction that is negative or not finite");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  llvm::Expected<RunResult> run = readRunResult(input);
  if (!run) {
    if (llvm::toString(run.takeError()).empty())
      fail("a refusal without a message");
    return 0;
  }
  checkNumbers(*run);
  std::string first = text(toJSON(*run));
  llvm::Expected<RunResult> again = readRunResult(first);
  if (!again) {
    fprintf(stderr,
            "run-result-fuzzer: the writer's JSON does not read back: %s\n",
            llvm::toString(again.takeError()).c_str());
    abort();
  }
  // Compared as JSON values read back: llvm::json writes a double -0 as
  // `-0`, which it reads as the integer 0.
  if (normalized(text(toJSON(*again))) != normalized(first))
    fail("a result read back writes different JSON");
  return 0;
}
