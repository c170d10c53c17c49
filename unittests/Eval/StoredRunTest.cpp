//===- StoredRunTest.cpp - Eval's readers of a stored run result ----------===//
//
// The store's run_json as the runtime's writer makes it (runtime::toJSON of
// a RunResult built here), put in a results store and read back, then read
// by each consumer as a RunResult: the report's aggregation, fixit's
// speedup, the sample view, the GPU stage's status. Their numbers follow
// from the timings, FLOPs and peaks, whatever derived keys the row carries.
// A row whose run JSON is no run result (not an object, workloads not an
// array, a status word that is no status, a negative time) is refused or
// reported, never counted; so is one whose run status is not its result's
// own.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/Fixit.h"
#include "ptxbench/Eval/GpuRun.h"
#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/SampleView.h"
#include "ptxbench/Eval/Summary.h"
#include "ptxbench/Report/AnalysisReport.h"
#include "ptxbench/Runtime/Result.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>

using namespace ptxbench;
using runtime::WorkloadResult;

namespace {

runtime::TimingStats timing(double ms) {
  runtime::TimingStats t;
  t.samples = 30;
  t.medianMs = t.q1Ms = t.q3Ms = t.minMs = t.meanMs = ms;
  return t;
}

runtime::FeatureCount wgmma(int64_t executed, double share) {
  runtime::FeatureCount c;
  c.family = "wgmma";
  c.inCode = 4;
  c.executed = executed;
  c.share = share;
  c.threshold = 0.9;
  return c;
}

/// A GEMM run on a card of 1000 TFLOP/s and 4000 GB/s: dev-1 does 2 TFLOP
/// in 4 ms against the library's 6 ms (1.5x, half the speed of light),
/// held-1 2 TFLOP in 5 ms against 4 ms (0.8x, 0.4). wgmma did the work on
/// dev-1 and a token share of it on held-1.
runtime::RunResult gemmRun() {
  runtime::RunResult run;
  run.task = "gemm_bf16";
  run.device = "NVIDIA H200";
  run.arch = "sm_90a";
  run.baseline = "cublaslt_gemm";
  run.peakTflops = 1000;
  run.peakGBps = 4000;
  for (auto [name, split, ms, libraryMs, executed, share] :
       {std::tuple{"dev-1", "dev", 4.0, 6.0, 1000, 1.0},
        std::tuple{"held-1", "heldout", 5.0, 4.0, 2000, 0.05}}) {
    WorkloadResult w;
    w.workload = name;
    w.split = split;
    w.status = runtime::Status::Passed;
    w.flops = 2e12;
    w.bytes = 1e9;
    w.time = timing(ms);
    w.baselineTime = timing(libraryMs);
    w.features = {wgmma(executed, share)};
    run.workloads.push_back(w);
  }
  return run;
}

std::string text(const llvm::json::Value &v) {
  return llvm::formatv("{0}", v).str();
}

/// A sample that requested wgmma, used it statically, and ran `runJson`.
eval::SampleRecord sample(std::string runJson, llvm::StringRef id = "s0",
                          llvm::StringRef runStatus = "PASSED") {
  report::AnalysisReport analysis;
  analysis.arch = "sm_90a";
  analysis.requested = {"wgmma"};
  report::KernelReport kernel;
  kernel.name = "gemm";
  kernel.requested = {{"wgmma", report::Verdict::Used}};
  analysis.kernels = {kernel};
  eval::SampleRecord r;
  r.key = {"model-a", "none", "gemm_bf16", id.str(), 1};
  r.status = eval::status::Analyzed;
  r.language = "cu";
  r.arch = "sm_90a";
  r.code = "// the kernel\n";
  r.staticJson = text(report::toJSON(analysis));
  r.runStatus = runStatus.str();
  r.runJson = std::move(runJson);
  return r;
}

class StoredRunTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptxbench-run", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  std::string file(llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
  /// `records` put in a store and read back, as eval writes and report
  /// reads them.
  std::vector<eval::SampleRecord>
  throughStore(const std::vector<eval::SampleRecord> &records) {
    auto store = eval::ResultsStore::open(file("r.sqlite"),
                                          eval::ResultsStore::Mode::Create,
                                          nullptr);
    EXPECT_TRUE(bool(store)) << llvm::toString(store.takeError());
    if (!store)
      return {};
    for (const eval::SampleRecord &r : records)
      EXPECT_FALSE(bool((*store)->put(r)));
    auto all = (*store)->all();
    EXPECT_TRUE(bool(all)) << llvm::toString(all.takeError());
    return all ? std::move(*all) : std::vector<eval::SampleRecord>{};
  }
  std::string view(const eval::SampleRecord &r) {
    std::string out;
    llvm::raw_string_ostream os(out);
    eval::printSample(r, os);
    return out;
  }
  llvm::SmallString<128> dir;
};

TEST_F(StoredRunTest, TheSummaryComputesFromTheTimings) {
  std::vector<eval::SampleRecord> rows =
      throughStore({sample(text(runtime::toJSON(gemmRun())))});
  ASSERT_EQ(rows.size(), 1u);
  std::vector<eval::GroupStats> groups = eval::summarize(rows);
  ASSERT_EQ(groups.size(), 1u);
  const eval::GroupStats &g = groups[0];
  EXPECT_EQ(g.runAttempted, 1u);
  EXPECT_EQ(g.ranOk, 1u);
  EXPECT_EQ(g.correct, 1u);
  EXPECT_EQ(g.unreadableRuns, 0u);
  ASSERT_EQ(g.splits.count("dev"), 1u);
  ASSERT_EQ(g.splits.at("dev").speedups.size(), 1u);
  EXPECT_DOUBLE_EQ(g.splits.at("dev").speedups[0], 1.5);
  EXPECT_DOUBLE_EQ(g.splits.at("dev").solFractions[0], 0.5);
  EXPECT_EQ(g.splits.at("dev").fast[2], 1u); // faster than the library
  EXPECT_DOUBLE_EQ(g.splits.at("heldout").speedups[0], 0.8);
  EXPECT_DOUBLE_EQ(g.splits.at("heldout").solFractions[0], 0.4);
  EXPECT_EQ(g.splits.at("heldout").fast[2], 0u);
  EXPECT_DOUBLE_EQ(g.workloads.at("held-1").speedups[0], 0.8);
  // The family over both workloads, as the run's writer sums it: a token
  // on held-1 is the sample's verdict.
  ASSERT_EQ(g.executed.count("wgmma"), 1u);
  const eval::ExecutedStats &e = g.executed.at("wgmma");
  EXPECT_EQ(e.measured, 1u);
  EXPECT_EQ(e.inCode, 1u);
  EXPECT_EQ(e.executed, 1u);
  EXPECT_EQ(e.used, 0u);
  EXPECT_EQ(e.token, 1u);
  std::optional<double> least = eval::minDevSpeedup(rows[0]);
  ASSERT_TRUE(least.has_value());
  EXPECT_DOUBLE_EQ(*least, 1.5);
  EXPECT_FALSE(eval::runResultError(rows[0]));
}

TEST_F(StoredRunTest, DerivedKeysInTheRowAreNotRead) {
  // The writer's speedup, sol_fraction and feature_counts changed (or gone)
  // in the row: every number is still the timings'.
  llvm::json::Value v = runtime::toJSON(gemmRun());
  llvm::json::Object &o = *v.getAsObject();
  o.erase("feature_counts");
  o["status"] = "INCORRECT";
  for (llvm::json::Value &w : *o.getArray("workloads")) {
    (*w.getAsObject())["speedup"] = 99.0;
    (*w.getAsObject())["sol_fraction"] = 7.0;
  }
  std::vector<eval::SampleRecord> rows = throughStore({sample(text(v))});
  ASSERT_EQ(rows.size(), 1u);
  const eval::GroupStats g = eval::summarize(rows)[0];
  EXPECT_DOUBLE_EQ(g.splits.at("dev").speedups[0], 1.5);
  EXPECT_DOUBLE_EQ(g.splits.at("dev").solFractions[0], 0.5);
  EXPECT_EQ(g.executed.at("wgmma").token, 1u);
  EXPECT_DOUBLE_EQ(*eval::minDevSpeedup(rows[0]), 1.5);
  std::string shown = view(rows[0]);
  EXPECT_NE(shown.find("status: PASSED\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("dev-1 [dev]: PASSED  speedup 1.50x"),
            std::string::npos)
      << shown;
}

TEST_F(StoredRunTest, FixitAndTheViewShowTheTimingsNumbers) {
  std::vector<eval::SampleRecord> rows =
      throughStore({sample(text(runtime::toJSON(gemmRun())))});
  ASSERT_EQ(rows.size(), 1u);
  // The geometric mean of 1.5 and 0.8.
  std::string kernel = eval::describeKernel(rows[0]);
  EXPECT_NE(kernel.find(llvm::formatv("- Speed against the library: "
                                      "{0:f2}x.",
                                      std::sqrt(1.5 * 0.8))
                            .str()),
            std::string::npos)
      << kernel;
  EXPECT_NE(kernel.find("token at run time, 5% of the work"),
            std::string::npos)
      << kernel;
  std::string shown = view(rows[0]);
  for (const char *line :
       {"--- run ---\ndevice: NVIDIA H200  status: PASSED\n",
        "requested at run time: wgmma=token (5.00% of the work)\n",
        "  dev-1 [dev]: PASSED  speedup 1.50x\n",
        "  held-1 [heldout]: PASSED  speedup 0.80x\n", "--- feedback ---"})
    EXPECT_NE(shown.find(line), std::string::npos) << line << "\n" << shown;
}

/// Run JSON no run writes, each with the place its refusal names.
const std::vector<std::pair<std::string, std::string>> hostileRows = {
    {"[1, 2]", "expected an object (a run result) when parsing run"},
    {"{\"device\": \"x\", \"workloads\": {\"dev-1\": 1}}",
     "expected an array of workloads at run.workloads"},
    {"{\"workloads\": [{\"workload\": \"dev-1\", \"status\": \"FAST\"}]}",
     "expected a status word (PASSED, INCORRECT, RUNTIME_ERROR, ...) at "
     "run.workloads[0].status"},
    {"{\"workloads\": [{\"workload\": \"dev-1\", \"status\": \"PASSED\", "
     "\"time\": {\"median_ms\": -0.5}, \"baseline_time\": {\"median_ms\": "
     "1.0}, \"speedup\": 9}]}",
     "expected a non-negative finite number at "
     "run.workloads[0].time.median_ms"},
    {"{\"workloads\": [{\"workload\": \"dev-1\", \"status\": \"PASSED\", "
     "\"time\": {\"median_ms\": \"NaN\"}}]}",
     "expected a non-negative finite number at "
     "run.workloads[0].time.median_ms"},
};

TEST_F(StoredRunTest, AHostileRowIsNotCounted) {
  std::vector<eval::SampleRecord> records;
  for (auto [i, row] : llvm::enumerate(hostileRows))
    records.push_back(sample(row.first, "h" + std::to_string(i)));
  std::vector<eval::SampleRecord> rows = throughStore(records);
  ASSERT_EQ(rows.size(), hostileRows.size());
  std::vector<eval::GroupStats> groups = eval::summarize(rows);
  ASSERT_EQ(groups.size(), 1u);
  const eval::GroupStats &g = groups[0];
  // They ran (their status says so) but nothing they claim counts.
  EXPECT_EQ(g.runAttempted, hostileRows.size());
  EXPECT_EQ(g.unreadableRuns, hostileRows.size());
  EXPECT_EQ(g.ranOk, 0u);
  EXPECT_EQ(g.correct, 0u);
  EXPECT_TRUE(g.splits.empty());
  EXPECT_TRUE(g.workloads.empty());
  EXPECT_TRUE(g.executed.empty());
  for (const eval::SampleRecord &r : rows) {
    size_t i = std::stoul(r.key.sampleId.substr(1));
    const std::string &why = hostileRows[i].second;
    EXPECT_EQ(eval::runResultError(r), why) << r.runJson;
    EXPECT_FALSE(eval::minDevSpeedup(r)) << r.runJson;
    EXPECT_FALSE(eval::creditedCorrect(r)) << r.runJson;
    EXPECT_TRUE(eval::runVerdicts(r).empty()) << r.runJson;
    std::string kernel = eval::describeKernel(r);
    EXPECT_EQ(kernel.find("Speed against"), std::string::npos) << kernel;
    // The view says why, and renders no feedback from it.
    std::string shown = view(r);
    EXPECT_NE(shown.find("--- run ---\nthe stored run result cannot be "
                         "read: " +
                         why + "\n"),
              std::string::npos)
        << shown;
    EXPECT_EQ(shown.find("--- feedback ---"), std::string::npos) << shown;
  }
}

TEST_F(StoredRunTest, AStatusThatIsNotItsResultsOwnIsNotCounted) {
  // A PASSED column over a result whose worst workload is INCORRECT (a row
  // made of two runs, or edited), and an INCORRECT column over a passing
  // result: neither is counted as correct, nor anything of it.
  runtime::RunResult failing = gemmRun();
  failing.workloads[1].status = runtime::Status::Incorrect;
  std::vector<eval::SampleRecord> rows = throughStore(
      {sample(text(runtime::toJSON(failing)), "s0", "PASSED"),
       sample(text(runtime::toJSON(gemmRun())), "s1", "INCORRECT")});
  ASSERT_EQ(rows.size(), 2u);
  std::vector<eval::GroupStats> groups = eval::summarize(rows);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].runAttempted, 2u);
  EXPECT_EQ(groups[0].unreadableRuns, 2u);
  EXPECT_EQ(groups[0].ranOk, 0u);
  EXPECT_EQ(groups[0].correct, 0u);
  EXPECT_TRUE(groups[0].splits.empty());
  for (const eval::SampleRecord &r : rows) {
    EXPECT_FALSE(eval::ranCorrect(r)) << r.key.sampleId;
    EXPECT_FALSE(eval::creditedCorrect(r)) << r.key.sampleId;
    EXPECT_FALSE(eval::minDevSpeedup(r)) << r.key.sampleId;
  }
  EXPECT_EQ(eval::runResultError(rows[0]),
            std::string("its run status PASSED is not its result's own "
                        "(INCORRECT)"));
  EXPECT_EQ(eval::runResultError(rows[1]),
            std::string("its run status INCORRECT is not its result's own "
                        "(PASSED)"));
  // The same results under their own statuses count.
  rows = throughStore(
      {sample(text(runtime::toJSON(failing)), "s0", "INCORRECT"),
       sample(text(runtime::toJSON(gemmRun())), "s1", "PASSED")});
  groups = eval::summarize(rows);
  EXPECT_EQ(groups[0].unreadableRuns, 0u);
  EXPECT_EQ(groups[0].ranOk, 2u);
  EXPECT_EQ(groups[0].correct, 1u);
}

TEST_F(StoredRunTest, ARowNeverRunIsNotUnreadable) {
  eval::SampleRecord r = sample("", "s0", "");
  EXPECT_FALSE(eval::runResultError(r));
  std::string shown = view(r);
  EXPECT_EQ(shown.find("--- run ---"), std::string::npos) << shown;
  EXPECT_EQ(eval::summarize({r})[0].unreadableRuns, 0u);
}

/// A stand-in for `ptxbench run` that writes $PTXBENCH_TEST_RESULT to its
/// --json file and exits 1.
std::string fakeTool(llvm::StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  os << "#!/bin/sh\nfor a; do case \"$a\" in --json=*) printf '%s' "
        "\"$PTXBENCH_TEST_RESULT\" > \"${a#--json=}\";; esac; done\nexit 1\n";
  os.close();
  llvm::sys::fs::setPermissions(path, llvm::sys::fs::all_read |
                                          llvm::sys::fs::all_exe |
                                          llvm::sys::fs::owner_write);
  return path.str();
}

TEST_F(StoredRunTest, TheGpuStageTakesTheStatusOfTheRunItReads) {
  eval::GpuRunOptions options;
  options.tool = fakeTool(file("ptxbench"));
  options.taskDir = dir.str().str();
  options.shapes = "dev";
  // The run's own status: its worst workload's.
  runtime::RunResult run = gemmRun();
  run.workloads[1].status = runtime::Status::Incorrect;
  std::string written = text(runtime::toJSON(run));
  ::setenv("PTXBENCH_TEST_RESULT", written.c_str(), 1);
  eval::SampleRecord r = sample("", "s0", "");
  eval::runOnGpu(r, options);
  EXPECT_EQ(r.runStatus, "INCORRECT") << r.error;
  EXPECT_FALSE(eval::runResultError(r));
  // What is not a run result is the harness's error, with the place.
  for (const auto &[json, why] : hostileRows) {
    ::setenv("PTXBENCH_TEST_RESULT", json.c_str(), 1);
    eval::SampleRecord h = sample("", "s0", "");
    eval::runOnGpu(h, options);
    EXPECT_EQ(h.runStatus, "HARNESS_ERROR") << json;
    EXPECT_EQ(h.error,
              "ptxbench run wrote a result that is not a run result: " + why)
        << json;
  }
  ::unsetenv("PTXBENCH_TEST_RESULT");
}

} // namespace
