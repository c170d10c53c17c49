//===- ResultReadTest.cpp - What a run's timings give, and its reader -----===//
//
// The numbers readers take from a run result are computed from its timings,
// FLOPs and peaks by one set of functions (speedup, tflops, gbps,
// solFraction), which the JSON writer uses too: a median that is zero,
// negative or not a number gives none. The reader refuses, at its JSON
// path, a result no run writes: not an object, workloads not an array, a
// status word that is no status, a timing that is not a non-negative
// finite number, a number past a double's range anywhere.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Result.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace ptxbench::runtime;

namespace {

TimingStats timing(double ms) {
  TimingStats t;
  t.samples = 20;
  t.medianMs = t.q1Ms = t.q3Ms = t.minMs = t.meanMs = ms;
  return t;
}

/// 2 TFLOP and 1 GB in 4 ms; the library took 6 ms.
WorkloadResult timed() {
  WorkloadResult w;
  w.workload = "dev-1";
  w.status = Status::Passed;
  w.flops = 2e12;
  w.bytes = 1e9;
  w.time = timing(4);
  w.baselineTime = timing(6);
  return w;
}

std::string written(const RunResult &run) {
  return llvm::formatv("{0}", toJSON(run)).str();
}

TEST(ResultReadTest, DerivedNumbersComeFromTheTimings) {
  WorkloadResult w = timed();
  ASSERT_TRUE(speedup(w).has_value());
  EXPECT_DOUBLE_EQ(*speedup(w), 1.5);
  EXPECT_DOUBLE_EQ(*tflops(w), 500);
  EXPECT_DOUBLE_EQ(*gbps(w), 250);
  RunResult run;
  run.peakTflops = 1000;
  run.peakGBps = 4000;
  run.libraryTflops = 800;
  // max(2 TFLOP / 1000 TFLOP/s, 1 GB / 4000 GB/s) / 4 ms.
  EXPECT_DOUBLE_EQ(solFraction(run, w), 0.5);
  EXPECT_DOUBLE_EQ(libraryFraction(run, w), 0.625);

  // The writer's keys are these same numbers.
  run.workloads = {w};
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(written(run));
  ASSERT_TRUE(bool(v)) << llvm::toString(v.takeError());
  const llvm::json::Object *o =
      (*v->getAsObject()->getArray("workloads"))[0].getAsObject();
  EXPECT_EQ(o->getNumber("speedup"), speedup(w));
  EXPECT_EQ(o->getNumber("tflops"), tflops(w));
  EXPECT_EQ(o->getNumber("gbps"), gbps(w));
  EXPECT_EQ(o->getNumber("sol_fraction"), solFraction(run, w));
}

TEST(ResultReadTest, NoTimeNoNumber) {
  WorkloadResult w = timed();
  w.baselineTime.reset();
  EXPECT_FALSE(speedup(w));
  EXPECT_TRUE(tflops(w));
  w = timed();
  w.time.reset();
  EXPECT_FALSE(speedup(w));
  EXPECT_FALSE(tflops(w));
  EXPECT_FALSE(gbps(w));
  RunResult run;
  run.peakTflops = 1000;
  EXPECT_EQ(solFraction(run, w), 0);
  // No FLOP count: no rate, whatever the time.
  w = timed();
  w.flops = 0;
  EXPECT_FALSE(tflops(w));
  EXPECT_TRUE(gbps(w));
}

TEST(ResultReadTest, AMedianThatIsNoTimeGivesNothing) {
  RunResult run;
  run.peakTflops = 1000;
  run.peakGBps = 4000;
  for (double bad : {0.0, -1.0, std::nan(""),
                     std::numeric_limits<double>::infinity()}) {
    WorkloadResult ours = timed(), library = timed();
    ours.time->medianMs = bad;
    library.baselineTime->medianMs = bad;
    EXPECT_FALSE(speedup(ours)) << bad;
    EXPECT_FALSE(speedup(library)) << bad;
    EXPECT_TRUE(tflops(library)) << bad;
    EXPECT_FALSE(tflops(ours)) << bad;
    EXPECT_FALSE(gbps(ours)) << bad;
    EXPECT_EQ(solFraction(run, ours), 0) << bad;
    EXPECT_EQ(libraryFraction(run, ours), 0) << bad;
    // The writer leaves out what there is not.
    run.workloads = {ours};
    std::string text = written(run);
    EXPECT_EQ(text.find("\"speedup\""), std::string::npos) << text;
    EXPECT_EQ(text.find("\"sol_fraction\""), std::string::npos) << text;
  }
}

TEST(ResultReadTest, TheWritersResultReadsBack) {
  RunResult run;
  run.task = "gemm";
  run.device = "NVIDIA H200";
  run.peakTflops = 1000;
  run.workloads = {timed()};
  llvm::Expected<RunResult> read = readRunResult(written(run));
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  ASSERT_EQ(read->workloads.size(), 1u);
  EXPECT_DOUBLE_EQ(*speedup(read->workloads[0]), 1.5);
  EXPECT_DOUBLE_EQ(solFraction(*read, read->workloads[0]), 0.5);
}

/// readRunResult's error for `text`, empty when it reads.
std::string refusal(llvm::StringRef text) {
  llvm::Expected<RunResult> read = readRunResult(text);
  if (read)
    return "";
  return llvm::toString(read.takeError());
}

TEST(ResultReadTest, WhatNoRunWritesIsRefusedAtItsPlace) {
  EXPECT_EQ(refusal("[1, 2]"), "expected an object (a run result) when "
                               "parsing run");
  EXPECT_EQ(refusal("{\"workloads\": 3}"),
            "expected an array of workloads at run.workloads");
  EXPECT_EQ(refusal("{\"task\": \"t\"}"),
            "expected an array of workloads at run.workloads");
  EXPECT_EQ(refusal("{\"workloads\": [7]}"),
            "expected an object (a workload's result) at run.workloads[0]");
  EXPECT_EQ(
      refusal("{\"workloads\": [{\"status\": \"PASSED\"}, "
              "{\"status\": \"GREAT\"}]}"),
      "expected a status word (PASSED, INCORRECT, RUNTIME_ERROR, ...) at "
      "run.workloads[1].status");
  EXPECT_EQ(refusal("{\"workloads\": [{\"status\": \"PASSED\", \"time\": "
                    "{\"median_ms\": -1}}]}"),
            "expected a non-negative finite number at "
            "run.workloads[0].time.median_ms");
  EXPECT_EQ(refusal("{\"workloads\": [{\"status\": \"PASSED\", "
                    "\"baseline_time\": {\"median_ms\": \"nan\"}}]}"),
            "expected a non-negative finite number at "
            "run.workloads[0].baseline_time.median_ms");
  // A number past a double's range, which llvm::json reads as infinite
  // and would write back as no JSON, anywhere in the result.
  EXPECT_EQ(refusal("{\"workloads\": [{\"status\": \"PASSED\", \"time\": "
                    "{\"median_ms\": 1e999}}]}"),
            "expected a finite number at run.workloads[0].time.median_ms");
  EXPECT_EQ(refusal("{\"workloads\": [{\"status\": \"PASSED\", \"check\": "
                    "{\"max_abs_err\": -1e999}}]}"),
            "expected a finite number at run.workloads[0].check.max_abs_err");
  EXPECT_EQ(refusal("{\"peak_tflops\": 1e400, \"workloads\": []}"),
            "expected a finite number at run.peak_tflops");
  EXPECT_EQ(refusal("{\"workloads\": [{\"status\": \"PASSED\", \"time\": 2}]}"),
            "expected an object (a timing) at run.workloads[0].time");
  EXPECT_EQ(refusal("{\"workloads\": [{\"status\": \"PASSED\", \"time\": "
                    "{\"samples\": -3}}]}"),
            "expected a non-negative integer at "
            "run.workloads[0].time.samples");
  EXPECT_EQ(refusal("{\"workloads\": [{\"status\": \"PASSED\", \"flops\": "
                    "-5}]}"),
            "expected a non-negative finite number at "
            "run.workloads[0].flops");
  // A NaN the writer was given is no JSON number: the text does not parse.
  RunResult run;
  run.workloads = {timed()};
  run.workloads[0].time->medianMs = std::nan("");
  EXPECT_NE(refusal(written(run)), "");
  // Text past the JSON limits is refused before it is parsed.
  EXPECT_NE(refusal(std::string(200, '[') + std::string(200, ']')), "");
  EXPECT_FALSE(parseRunResult(""));
  EXPECT_FALSE(parseRunResult("{\"workloads\": 3}"));
}

// A family's counts are what the writer gives them: a stored row cannot be
// credited by a threshold above 1 or none, nor by a share that is negative
// or stands without its threshold (thresholds are a task's credit, [0, 1]).
TEST(ResultReadTest, AFamilysShareAndThresholdAreWhatARunWrites) {
  RunResult run;
  run.workloads = {timed()};
  run.workloads[0].features = {{"wgmma", 12, 4096, 0.97, 0.9, ""},
                               {"tma", 0, -1, -1, -1, ""}};
  llvm::Expected<RunResult> read = readRunResult(written(run));
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  ASSERT_EQ(read->workloads[0].features.size(), 2u);
  EXPECT_DOUBLE_EQ(read->workloads[0].features[0].share, 0.97);
  EXPECT_DOUBLE_EQ(read->workloads[0].features[0].threshold, 0.9);
  EXPECT_EQ(featureVerdict(read->workloads[0].features[0]), "used");
  EXPECT_EQ(read->workloads[0].features[1].executed, -1);
  auto feature = [](llvm::StringRef body) {
    return refusal(("{\"workloads\": [{\"status\": \"PASSED\", "
                    "\"features\": [" + body + "]}]}").str());
  };
  EXPECT_EQ(feature("{\"family\": \"wgmma\", \"executed\": 9, \"share\": "
                    "0.95, \"threshold\": 2}"),
            "expected a number in [0, 1] at "
            "run.workloads[0].features[0].threshold");
  EXPECT_EQ(feature("{\"family\": \"wgmma\", \"share\": -0.5, "
                    "\"threshold\": 0.9}"),
            "expected a non-negative finite number at "
            "run.workloads[0].features[0].share");
  EXPECT_EQ(feature("{\"family\": \"wgmma\", \"share\": 0.95}"),
            "expected a share and its threshold together at "
            "run.workloads[0].features[0]");
  EXPECT_EQ(feature("{\"family\": \"tma\"}, {\"in_code\": 3}"),
            "expected an object with its family's name at "
            "run.workloads[0].features[1]");
  EXPECT_EQ(feature("{\"family\": \"tma\", \"executed\": -7}"),
            "expected a count (-1 when not counted) at "
            "run.workloads[0].features[0].executed");
  EXPECT_EQ(refusal("{\"workloads\": [{\"status\": \"PASSED\", "
                    "\"features\": {\"wgmma\": 1}}]}"),
            "expected an array (one per family) at "
            "run.workloads[0].features");
}

} // namespace
