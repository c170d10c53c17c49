//===- ResultTest.cpp - Tests of output checks, timing stats, reports -----===//

#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace ptxbench::runtime;

namespace {

float unwritten() {
  float f;
  std::memcpy(&f, &unwrittenF32Bits, 4);
  return f;
}

const Tolerance tol{0.01, 0.01};

TEST(ResultTest, BF16Conversion) {
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(floatToBF16(1.00390625f), 0x3F80); // tie to even
  EXPECT_EQ(floatToBF16(1.01171875f), 0x3F82); // tie to even (up)
  EXPECT_TRUE(isUnwritten(bf16ToFloat(unwrittenBF16Bits)));
  EXPECT_FALSE(isUnwritten(NAN));
}

TEST(ResultTest, Passes) {
  std::vector<float> ref = {1, -2, 100, 0};
  std::vector<float> out = {1.005f, -2.01f, 100.5f, 0.009f};
  CompareStats s = compareOutputs(out, ref, tol, 0.01);
  EXPECT_TRUE(s.passed) << s.failedCheck;
  EXPECT_EQ(s.outOfTolerance, 0u);
  EXPECT_NEAR(s.maxAbsErr, 0.5, 1e-6);
  EXPECT_LT(s.relL2, 0.01);
}

TEST(ResultTest, UnwrittenFailsFirst) {
  std::vector<float> ref = {1, 2, 3, 4};
  std::vector<float> out = {1, 50, unwritten(), unwritten()};
  CompareStats s = compareOutputs(out, ref, tol, std::nullopt);
  EXPECT_FALSE(s.passed);
  EXPECT_EQ(s.failedCheck, "unwritten");
  EXPECT_EQ(s.unwritten, 2u);
  EXPECT_EQ(s.worstIndex, 2);
  EXPECT_EQ(s.worstRef, 3);
  EXPECT_TRUE(isUnwritten(float(s.worstValue)));
}

TEST(ResultTest, NaNAndInfFail) {
  std::vector<float> ref = {1, 2, 3};
  CompareStats s = compareOutputs({1.0f, NAN, 3.0f}, ref, tol, std::nullopt);
  EXPECT_EQ(s.failedCheck, "non-finite");
  EXPECT_EQ(s.worstIndex, 1);
  s = compareOutputs({1.0f, 2.0f, INFINITY}, ref, std::nullopt, 1.0);
  EXPECT_EQ(s.failedCheck, "non-finite");
  EXPECT_EQ(s.nonFinite, 1u);
  EXPECT_EQ(s.worstIndex, 2);
}

TEST(ResultTest, WorstElementOutsideTolerance) {
  std::vector<float> ref = {100, 1, 0};
  // Index 0 has the largest absolute error, index 2 is furthest outside
  // its tolerance (0.01 + 0.01*0).
  std::vector<float> out = {101.5f, 1.0f, 0.5f};
  CompareStats s = compareOutputs(out, ref, tol, std::nullopt);
  EXPECT_EQ(s.failedCheck, "tolerance");
  EXPECT_EQ(s.outOfTolerance, 2u);
  EXPECT_EQ(s.worstIndex, 2);
  EXPECT_EQ(s.worstValue, 0.5);
  EXPECT_EQ(s.worstRef, 0);
  EXPECT_NEAR(s.maxAbsErr, 1.5, 1e-6);
}

TEST(ResultTest, RelL2Only) {
  std::vector<float> ref = {3, 4};
  std::vector<float> out = {3, 4.5f}; // ||err|| = 0.5, ||ref|| = 5
  EXPECT_NEAR(compareOutputs(out, ref, std::nullopt, 0.2).relL2, 0.1, 1e-9);
  EXPECT_TRUE(compareOutputs(out, ref, std::nullopt, 0.2).passed);
  EXPECT_EQ(compareOutputs(out, ref, std::nullopt, 0.05).failedCheck, "rel_l2");
}

TEST(ResultTest, TimingStats) {
  TimingStats t = summarizeTimes({4, 1, 3, 2, 5});
  EXPECT_EQ(t.samples, 5u);
  EXPECT_EQ(t.medianMs, 3);
  EXPECT_EQ(t.q1Ms, 2);
  EXPECT_EQ(t.q3Ms, 4);
  EXPECT_EQ(t.minMs, 1);
  EXPECT_NEAR(t.rse, std::sqrt(2.5 / 5) / 3, 1e-12);
  EXPECT_EQ(summarizeTimes({}).samples, 0u);
}

TEST(ResultTest, StoppingRule) {
  Task::Timing timing;
  timing.minSamples = 3;
  timing.maxSamples = 6;
  timing.maxSeconds = 1;
  timing.targetRse = 0.005;
  EXPECT_FALSE(enoughSamples({1, 1}, 0, timing));            // below minimum
  EXPECT_TRUE(enoughSamples({1, 1, 1}, 0, timing));          // rse 0
  EXPECT_FALSE(enoughSamples({1, 2, 3}, 0.1, timing));       // noisy
  EXPECT_TRUE(enoughSamples({1, 2, 3}, 1.5, timing));        // time cap
  EXPECT_TRUE(enoughSamples({1, 2, 3, 1, 2, 3}, 0, timing)); // sample cap
}

WorkloadResult failedResult() {
  WorkloadResult r;
  r.workload = "dev M=2 N=2 K=2";
  r.params["M"] = 2;
  r.status = Status::Incorrect;
  r.message = "output C is wrong";
  r.checkedTensor = "C";
  r.check = compareOutputs({1, unwritten()}, {1, 2}, tol, std::nullopt);
  r.flops = 16;
  r.bytes = 24;
  return r;
}

TEST(ResultTest, JSONRoundTrip) {
  WorkloadResult r = failedResult();
  r.time = summarizeTimes({1, 2, 3});
  r.baselineTime = summarizeTimes({2, 4, 6});
  r.jitLog = "ptxas info";
  llvm::json::Value v = toJSON(r);
  const llvm::json::Object *o = v.getAsObject();
  EXPECT_EQ(o->getString("status"), "INCORRECT");
  EXPECT_EQ(*o->getNumber("speedup"), 2.0);
  EXPECT_EQ(o->getObject("check")->getString("worst_value"), "unwritten");
  EXPECT_EQ(o->getObject("check")->getString("failed_check"), "unwritten");

  WorkloadResult back;
  ASSERT_TRUE(fromJSON(v, back));
  EXPECT_EQ(back.status, Status::Incorrect);
  EXPECT_EQ(back.params.lookup("M"), 2);
  EXPECT_EQ(back.check->worstIndex, 1);
  EXPECT_TRUE(isUnwritten(float(back.check->worstValue)));
  EXPECT_EQ(back.time->medianMs, 2);
  EXPECT_EQ(back.baselineTime->medianMs, 4);
  EXPECT_EQ(back.jitLog, "ptxas info");
}

TEST(ResultTest, OutputAndBaselineChecks) {
  // Several outputs (attention: O and LSE) and the baseline's outputs
  // against the same reference survive the worker-to-parent JSON, and the
  // summary names the library and its check.
  WorkloadResult r;
  r.workload = "dev";
  r.status = Status::Passed;
  r.flops = 1e9;
  r.time = summarizeTimes({1, 1, 1});
  r.baselineTime = summarizeTimes({2, 2, 2});
  r.baselineVersion = "cuDNN 9.19.0 eng9";
  CompareStats good;
  good.passed = true;
  good.relL2 = 0.002;
  CompareStats bad = good;
  bad.passed = false;
  bad.failedCheck = "tolerance";
  r.outputChecks = {{"O", good}, {"LSE", good}};
  r.baselineChecks = {{"O", good}, {"LSE", bad}};
  WorkloadResult back;
  ASSERT_TRUE(fromJSON(toJSON(r), back));
  ASSERT_EQ(back.outputChecks.size(), 2u);
  EXPECT_EQ(back.outputChecks[1].tensor, "LSE");
  ASSERT_EQ(back.baselineChecks.size(), 2u);
  EXPECT_FALSE(back.baselineChecks[1].stats.passed);
  EXPECT_EQ(back.baselineChecks[1].stats.failedCheck, "tolerance");
  EXPECT_EQ(back.baselineVersion, "cuDNN 9.19.0 eng9");

  RunResult run;
  run.baseline = "cudnn_sdpa_fwd";
  run.workloads = {back};
  std::string text;
  llvm::raw_string_ostream os(text);
  printSummary(run, os);
  EXPECT_NE(text.find("baseline: cuDNN 9.19.0 eng9; against the reference: O "
                      "ok (rel_l2 0.002) LSE FAILED tolerance (rel_l2 0.002)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("outputs: O rel_l2 0.002"), std::string::npos) << text;
}

TEST(ResultTest, Summary) {
  RunResult run;
  run.task = "gemm_bf16";
  run.solution = "bad.cu";
  run.device = "NVIDIA H200";
  run.peakTflops = 1e-9; // 1 kFLOP/s: 16 FLOP in 1 ms is impossible
  run.peakHow = "1 SM";
  WorkloadResult ok;
  ok.workload = "fast";
  ok.status = Status::Passed;
  ok.flops = 16;
  ok.time = summarizeTimes({1, 1, 1});
  run.workloads = {ok, failedResult()};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Suspicious);
  std::string text;
  llvm::raw_string_ostream os(text);
  printSummary(run, os);
  EXPECT_NE(text.find("task gemm_bf16, solution bad.cu, device NVIDIA H200"),
            std::string::npos);
  EXPECT_NE(text.find("SUSPICIOUS"), std::string::npos) << text;
  EXPECT_NE(text.find("faster than the hardware allows: 0.0 TFLOP/s is "
                      "1600% of the hardware's bf16 tensor-core peak"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("check 'unwritten' failed on C: worst element [1] = "
                      "unwritten, reference 2; 1 unwritten, 0 non-finite, 0 "
                      "out of tolerance of 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("status: SUSPICIOUS"), std::string::npos);
  EXPECT_EQ(worstStatus(run), Status::Suspicious);
  llvm::json::Value v = toJSON(run);
  EXPECT_EQ(v.getAsObject()->getString("status"), "SUSPICIOUS");
  EXPECT_GT(*(*v.getAsObject()->getArray("workloads"))[0]
                 .getAsObject()
                 ->getNumber("sol_fraction"),
            1);
}

TEST(ResultTest, SpeedOfLightJudgement) {
  RunResult run;
  run.peakTflops = 1000;     // tensor cores
  run.peakFp32Tflops = 60;   // CUDA cores
  run.peakGBps = 5000;       // DRAM
  WorkloadResult r;
  r.status = Status::Passed;
  r.flops = 1e12;
  r.bytes = 1e9;
  r.time = summarizeTimes({10, 10, 10}); // 100 TFLOP/s, 100 GB/s
  // Below every limit, the tensor cores' work reached the outputs: PASSED.
  r.work.measured = true;
  r.work.wgmmaFlops = 1e12;
  r.work.knockouts = {{"wgmma", true, true, ""}};
  run.workloads = {r};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Passed);
  // No tensor-core instruction executed, yet above the FP32 peak.
  r.work.wgmmaFlops = 0;
  r.work.knockouts.clear();
  run.workloads = {r};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Suspicious);
  EXPECT_NE(run.workloads[0].message.find("100.00% of the task's FLOPs were "
                                          "not done by a tensor-core"),
            std::string::npos)
      << run.workloads[0].message;
  // A token instruction does not switch the check off: 1% of the work on
  // the tensor cores leaves 99 TFLOP/s for the CUDA cores.
  r.work.wgmmaFlops = 1e10;
  r.work.knockouts = {{"wgmma", true, true, ""}};
  run.workloads = {r};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Suspicious);
  // Nor does a full-size wgmma whose results reach nothing.
  r.work.wgmmaFlops = 1e12;
  r.work.knockouts = {{"wgmma", true, false, ""}};
  run.workloads = {r};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Suspicious);
  // Nor does instrumentation that did not run: the work is judged as the
  // CUDA cores' (fail closed), unless the user switched the counts off.
  r.work = {};
  run.workloads = {r};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Suspicious);
  EXPECT_NE(run.workloads[0].message.find("the work was not measured"),
            std::string::npos);
  run.countsDisabled = true;
  run.workloads = {r};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Passed);
  run.countsDisabled = false;
  // Below the FP32 peak without tensor cores: PASSED.
  r.time = summarizeTimes({100, 100, 100}); // 10 TFLOP/s
  run.workloads = {r};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Passed);
  // Above the DRAM bandwidth.
  r.time = summarizeTimes({10, 10, 10});
  r.work.measured = true;
  r.work.wgmmaFlops = 1e12;
  r.work.knockouts = {{"wgmma", true, true, ""}};
  r.bytes = 1e11; // 10 TB/s
  run.workloads = {r};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Suspicious);
  EXPECT_NE(run.workloads[0].message.find("DRAM bandwidth"),
            std::string::npos);
  // Only PASSED results are judged.
  r.status = Status::Incorrect;
  run.workloads = {r};
  judgeSpeedOfLight(run);
  EXPECT_EQ(run.workloads[0].status, Status::Incorrect);
}

TEST(ResultTest, CreditFollowsTheWork) {
  Task task; // credit: 0.9 of the FLOPs, 0.5 of the bytes
  RunResult run;
  WorkloadResult r;
  r.status = Status::Passed;
  r.flops = 1e12;
  r.features = {{"wgmma", 8, 256}, {"tma", 2, 1}, {"mbarrier_tx", 1, 1},
                {"setmaxnreg", 2, 256}};
  r.work.measured = true;
  r.work.wgmmaFlops = 1e8; // 0.01%
  r.work.scalarFlops = 1e12;
  r.work.asyncBytes = 8192;
  r.work.globalLoadBytes = 1e9;
  r.work.inputBytes = 1e8;
  r.work.knockouts = {{"wgmma", true, true, ""}};
  run.workloads = {r};
  creditWork(run, task);
  const WorkloadResult &w = run.workloads[0];
  EXPECT_EQ(featureVerdict(w.features[0]), "token");
  EXPECT_NEAR(w.features[0].share, 1e-4, 1e-12);
  EXPECT_EQ(featureVerdict(w.features[1]), "token");
  EXPECT_EQ(featureVerdict(w.features[2]), "token");
  EXPECT_EQ(featureVerdict(w.features[3]), "executed");
  ASSERT_EQ(w.workFindings.size(), 3u);
  EXPECT_EQ(w.workFindings[0].kind, "token-wgmma");
  EXPECT_NE(w.workFindings[0].message.find(
                "the rest: CUDA-core arithmetic (FFMA or other scalar math, "
                "no tensor-core instruction) 99.99"),
            std::string::npos)
      << w.workFindings[0].message;
  EXPECT_NE(w.workFindings[1].message.find("ld.global"), std::string::npos)
      << w.workFindings[1].message;
  // mma.sync did the rest: it is named with its share.
  r.work.scalarFlops = 0;
  r.work.mmaSyncFlops = 1e12 - 1e8;
  run.workloads = {r};
  creditWork(run, task);
  EXPECT_NE(run.workloads[0].workFindings[0].message.find("mma.sync 99.99%"),
            std::string::npos)
      << run.workloads[0].workFindings[0].message;
  // The work done by the requested instructions, reaching the outputs:
  // used, no finding.
  r.work = {};
  r.work.measured = true;
  r.work.wgmmaFlops = 1.02e12; // padded tiles: more than the task's FLOPs
  r.work.scalarFlops = 2e9;    // the epilogue
  r.work.asyncBytes = 3e9;     // tiles read many times
  r.work.asyncInputBytes = 1e8; // all of the inputs, in bounds
  r.work.globalLoadBytes = 1e6;
  r.work.inputBytes = 1e8;
  r.work.knockouts = {{"wgmma", true, true, "the outputs failed"}};
  run.workloads = {r};
  creditWork(run, task);
  EXPECT_EQ(featureVerdict(run.workloads[0].features[0]), "used");
  EXPECT_EQ(featureVerdict(run.workloads[0].features[1]), "used");
  EXPECT_NEAR(run.workloads[0].features[1].share, 3e9 / (3e9 + 1e6), 1e-9);
  EXPECT_TRUE(run.workloads[0].workFindings.empty());
  // The JSON keeps shares, work, knockouts and findings.
  run.workloads[0].workFindings.push_back({"token-tma", "m"});
  WorkloadResult back;
  ASSERT_TRUE(fromJSON(toJSON(run.workloads[0]), back));
  EXPECT_EQ(featureVerdict(back.features[0]), "used");
  EXPECT_TRUE(back.work.measured);
  EXPECT_EQ(back.work.asyncBytes, 3e9);
  EXPECT_EQ(back.work.scalarFlops, 2e9);
  EXPECT_EQ(back.work.inputBytes, 1e8);
  ASSERT_EQ(back.work.knockouts.size(), 1u);
  EXPECT_TRUE(back.work.knockouts[0].reached);
  ASSERT_EQ(back.workFindings.size(), 1u);
  EXPECT_EQ(back.workFindings[0].kind, "token-tma");
}

TEST(ResultTest, CreditOnlyForWorkThatReachesTheOutputs) {
  Task task;
  RunResult run;
  WorkloadResult r;
  r.status = Status::Passed;
  r.flops = 1e12;
  r.features = {{"wgmma", 8, 256}};
  r.work.measured = true;
  r.work.wgmmaFlops = 1e12;
  r.work.inputBytes = 1e8;
  auto creditedAs = [&](WorkloadResult w) {
    run.workloads = {w};
    creditWork(run, task);
    return std::pair{featureVerdict(run.workloads[0].features[0]).str(),
                     run.workloads[0].features[0].withheld};
  };
  // wgmma on a zeroed buffer beside an FFMA GEMM: the outputs pass with
  // every wgmma switched off.
  WorkloadResult decoy = r;
  decoy.work.scalarFlops = 1e12;
  decoy.work.knockouts = {{"wgmma", true, false, "still passed"}};
  EXPECT_EQ(creditedAs(decoy), (std::pair<std::string, std::string>{
                                   "token", "no-effect-wgmma"}));
  bool named = false;
  for (const auto &f : run.workloads[0].workFindings)
    named |= f.kind == "no-effect-wgmma" &&
             f.message.find("still passed") != std::string::npos;
  EXPECT_TRUE(named);
  // Both paths feed the outputs (a canary that spoils them when wgmma is
  // off): the task's FLOPs were done twice.
  WorkloadResult twice = decoy;
  twice.work.knockouts = {{"wgmma", true, true, ""}};
  EXPECT_EQ(creditedAs(twice), (std::pair<std::string, std::string>{
                                   "token", "duplicated-work"}));
  WorkloadResult twoMatrix = r;
  twoMatrix.work.mmaSyncFlops = 1e12;
  twoMatrix.work.knockouts = {{"wgmma", true, true, ""},
                              {"mma_sync", true, true, ""}};
  EXPECT_EQ(creditedAs(twoMatrix).second, "duplicated-work");
  // 200% of the task's FLOPs is a finding of its own.
  bool aboveOne = false;
  for (const auto &f : run.workloads[0].workFindings)
    aboveOne |= f.kind == "work-share-above-one";
  EXPECT_TRUE(aboveOne);
  // The real work split over three paths, a third each, beside a decoy
  // whose NaN-filled accumulators spoil the outputs when it is switched
  // off: no single path did half, but together they did it all.
  WorkloadResult split = r;
  split.work.scalarFlops = 0.34e12;
  split.work.wmmaFlops = 0.33e12;
  split.work.mmaSyncFlops = 0.33e12;
  split.work.knockouts = {{"wgmma", true, true, ""}};
  EXPECT_EQ(creditedAs(split).second, "duplicated-work");
  // Other paths leaving less than the threshold withhold it too: a decoy
  // beside a real wgmma that did only 55%.
  WorkloadResult partial = r;
  partial.work.wgmmaFlops = 1.55e12;
  partial.work.scalarFlops = 0.45e12;
  partial.work.knockouts = {{"wgmma", true, true, ""}};
  EXPECT_EQ(creditedAs(partial).second, "duplicated-work");
  // An honest kernel's epilogue and softmax (a few percent) leave room.
  WorkloadResult softmax = r;
  softmax.work.scalarFlops = 0.03e12;
  softmax.work.knockouts = {{"wgmma", true, true, ""}};
  EXPECT_EQ(creditedAs(softmax).first, "used");
  // No knockout, no credit.
  WorkloadResult unchecked = r;
  EXPECT_EQ(creditedAs(unchecked).second, "knockout-not-run");
  // The honest kernel.
  WorkloadResult honest = r;
  honest.work.knockouts = {{"wgmma", true, true, ""}};
  EXPECT_EQ(creditedAs(honest), (std::pair<std::string, std::string>{"used",
                                                                     ""}));
}

TEST(ResultTest, BytesCountInBoundsOncePerTensor) {
  Task task;
  RunResult run;
  WorkloadResult r;
  r.status = Status::Passed;
  r.features = {{"bulk_copy", 2, 4096}};
  r.work.measured = true;
  // async: bytes the copies delivered; inBounds: what the copy log traced
  // to the inputs (in bounds, each tensor at most once); global: ld.global.
  auto share = [&](double async, double inBounds, double global,
                   double input) {
    r.work.asyncBytes = async;
    r.work.asyncInputBytes = inBounds;
    r.work.globalLoadBytes = global;
    r.work.inputBytes = input;
    run.workloads = {r};
    creditWork(run, task);
    return run.workloads[0].features[0].share;
  };
  double x = 64.0 * 1024 * 1024, weight = 8192;
  // rmsnorm gamed: x (64 MiB) through ld.global, the 8 KiB weight
  // re-fetched by bulk copy for every row: half of the executed load
  // bytes, but only the weight's 8 KiB of the task's.
  EXPECT_NEAR(share(x, weight, x, x + weight), weight / (x + weight), 1e-12);
  EXPECT_EQ(featureVerdict(run.workloads[0].features[0]), "token");
  EXPECT_NE(run.workloads[0].workFindings[0].message.find("in bounds"),
            std::string::npos);
  // The honest rmsnorm: x through bulk copies, the weight re-read through
  // ld.global for every row: all of the task's bytes, half of the loads.
  EXPECT_NEAR(share(x, x, x, x + weight), x / (2 * x), 1e-12);
  EXPECT_EQ(featureVerdict(run.workloads[0].features[0]), "used");
  // Boxes fully out of bounds deliver zeros: many bytes, none in bounds.
  EXPECT_NEAR(share(10 * x, 0, x, x), 0, 1e-12);
  // The honest TMA GEMM: every tile read twice, all in bounds.
  EXPECT_NEAR(share(2 * x, x, 0, x), 1, 1e-12);
  // Loading everything again through ld.global earns at most half.
  EXPECT_NEAR(share(x, x, 2 * x, x), 1.0 / 3, 1e-12);
  // The harness passes the copy log's bytes already less what other loads
  // read of the same tensors (asyncInputBytes): tiles copied that nothing
  // reads while ld.global brings the data count nothing.
  EXPECT_NEAR(share(2 * x, 0, x, x), 0, 1e-12);
  EXPECT_EQ(featureVerdict(run.workloads[0].features[0]), "token");
}

// A paged cache holds whole pages; the last page of a sequence is partly
// empty and no kernel reads its empty slots. The input bytes the copies
// are credited against are the task's byte count less its outputs.
TEST(ResultTest, PagedCacheCreditsTheLiveRows) {
  auto expr = [](llvm::StringRef text) {
    auto e = Expr::parse(text, SourceLoc{"task.json", 1, 1});
    EXPECT_TRUE(bool(e)) << llvm::toString(e.takeError());
    return e ? *e : Expr();
  };
  Task task;
  // cache bf16 [B * ceildiv(L, 64), 64, 128], O bf16 [B, 128].
  task.tensors = {{"cache", DType::BF16,
                   {expr("B*ceildiv(L, 64)"), expr("64"), expr("128")},
                   Role::Input, {}},
                  {"O", DType::BF16, {expr("B"), expr("128")}, Role::Output,
                   {}}};
  RunResult run;
  WorkloadResult r;
  r.status = Status::Passed;
  r.params = {{"B", 8}, {"L", 65}};
  double pageBytes = 64 * 128 * 2, outBytes = 8 * 128 * 2;
  double allocated = 8 * 2 * pageBytes, live = 8 * 65 * 128 * 2.0;
  r.bytes = live + outBytes; // what the task's formula counts
  r.features = {{"bulk_copy", 2, 4096}};
  r.work.measured = true;
  r.work.asyncBytes = r.work.asyncInputBytes = live;
  r.work.inputBytes = allocated;
  run.workloads = {r};
  creditWork(run, task);
  EXPECT_NEAR(run.workloads[0].features[0].share, 1, 1e-12);
  EXPECT_EQ(featureVerdict(run.workloads[0].features[0]), "used");
  // A formula that counts more than the inputs hold changes nothing.
  r.bytes = 10 * allocated;
  r.work.asyncInputBytes = allocated / 2;
  run.workloads = {r};
  creditWork(run, task);
  EXPECT_NEAR(run.workloads[0].features[0].share, 0.5, 1e-12);
  // Nor does one that counts nothing but the outputs.
  r.bytes = outBytes;
  run.workloads = {r};
  creditWork(run, task);
  EXPECT_NEAR(run.workloads[0].features[0].share, 0.5, 1e-12);
}

// CUDA-core FLOPs include what the task's formula leaves out: an online
// softmax decode does about twice the formula's FLOPs on CUDA cores alone
// and is no duplicated work; wgmma on zeros beside FFMA doing the work is.
TEST(ResultTest, CudaCoreFlopsAloneMayExceedTheFormula) {
  Task task;
  auto aboveOne = [&](double tensor, double scalar) {
    RunResult run;
    WorkloadResult r;
    r.status = Status::Passed;
    r.flops = 1e9;
    r.work.measured = true;
    r.work.wgmmaFlops = tensor * 1e9;
    r.work.scalarFlops = scalar * 1e9;
    run.workloads = {r};
    creditWork(run, task);
    bool found = false;
    for (const auto &f : run.workloads[0].workFindings)
      found |= f.kind == "work-share-above-one";
    return found;
  };
  EXPECT_FALSE(aboveOne(0, 1.875)); // GQA decode's online softmax
  EXPECT_TRUE(aboveOne(0, 3.5));
  EXPECT_TRUE(aboveOne(1, 1));      // a decoy path beside the real one
  EXPECT_TRUE(aboveOne(2, 0));      // the products done twice
  EXPECT_FALSE(aboveOne(1, 0.3));   // attention: products and softmax
  EXPECT_FALSE(aboveOne(0.4, 1.5)); // mostly CUDA cores, a little wgmma
}

TEST(ResultTest, ThrottleDecision) {
  ClockReading fast{true, 1980, 0}, idle{true, 1980, 0x1},
      capped{true, 1755, 0x4}, slowCap{true, 1500, 0x4},
      thermal{true, 1980, 0x40}, brake{true, 1980, 0x80}, none;
  // Clean, idle and application-clock reasons are not throttling.
  EXPECT_FALSE(isThrottled(fast, fast, 1980));
  EXPECT_FALSE(isThrottled(idle, fast, 1980));
  EXPECT_FALSE(isThrottled(fast, ClockReading{true, 1980, 0x2}, 1980));
  // The software power cap alone is not, unless the clock drops below the
  // floor (0.85 x 1980 = 1683 MHz).
  EXPECT_FALSE(isThrottled(capped, capped, 1980));
  EXPECT_TRUE(isThrottled(fast, slowCap, 1980));
  EXPECT_TRUE(isThrottled(slowCap, fast, 1980));
  // Thermal and power-brake reasons always are, on either side.
  EXPECT_TRUE(isThrottled(thermal, fast, 1980));
  EXPECT_TRUE(isThrottled(fast, brake, 1980));
  EXPECT_TRUE(isThrottled(fast, ClockReading{true, 1980, 0x8}, 1980));
  // No max clock: only the reasons count; a custom floor.
  EXPECT_FALSE(isThrottled(slowCap, slowCap, 0));
  EXPECT_TRUE(isThrottled(fast, ClockReading{true, 1900, 0}, 1980, 0.97));
  // Missing readings never discard a sample.
  EXPECT_FALSE(isThrottled(none, none, 1980));
  EXPECT_FALSE(isThrottled(none, fast, 1980));
}

TEST(ResultTest, KeptSamples) {
  bool kept = true;
  std::vector<double> samples = {1, 9, 2, 3};
  llvm::SmallVector<bool> hot = {false, true, false, false};
  EXPECT_EQ(keptSamples(samples, hot, 3, kept), (std::vector<double>{1, 2, 3}));
  EXPECT_FALSE(kept);
  // Too few clean samples: all are kept and that is said.
  EXPECT_EQ(keptSamples(samples, hot, 4, kept), samples);
  EXPECT_TRUE(kept);
  // Nothing throttled: nothing to flag even below minSamples.
  EXPECT_EQ(keptSamples({1, 2}, {false, false}, 10, kept),
            (std::vector<double>{1, 2}));
  EXPECT_FALSE(kept);
}

TEST(ResultTest, ClockAndFeatureReport) {
  RunResult run;
  run.task = "gemm_bf16";
  run.solution = "k.ptx";
  run.arch = "sm_90a";
  run.peakTflops = 800;
  run.peakGBps = 4000;
  run.peakSource = "measured";
  WorkloadResult r;
  r.workload = "dev";
  r.status = Status::Passed;
  r.flops = 2e12;
  r.time = summarizeTimes({10, 10, 10});
  r.time->clockSampled = true;
  r.time->throttled = 2;
  r.time->minClockMHz = 1755;
  r.time->maxClockMHz = 1980;
  r.features = {{"wgmma", 4, 1024}, {"tma", 2, 0}, {"mbarrier_tx", 0, 0}};
  run.workloads = {r};
  std::string text;
  llvm::raw_string_ostream os(text);
  printSummary(run, os);
  EXPECT_NE(text.find("speed of light (hardware): 800 TFLOP/s bf16 tensor "
                      "cores, 0.0 TFLOP/s FP32 CUDA cores, 4000 GB/s DRAM"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SM clock 1755-1980 MHz, 2 throttled samples discarded"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("features (sm_90a, thread-instructions executed): "
                      "wgmma 1024; tma not triggered (2 in code); "
                      "mbarrier_tx not in code"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("SUSPICIOUS"), std::string::npos) << text;
  // 25%: 2e12 FLOP at 800 TFLOP/s is 2.5 ms of 10 ms.
  EXPECT_NE(text.find(" 25%"), std::string::npos) << text;

  llvm::json::Value v = toJSON(run.workloads[0]);
  WorkloadResult back;
  ASSERT_TRUE(fromJSON(v, back));
  ASSERT_EQ(back.features.size(), 3u);
  EXPECT_EQ(featureVerdict(back.features[0]), "executed");
  EXPECT_EQ(featureVerdict(back.features[1]), "not triggered");
  EXPECT_EQ(featureVerdict(back.features[2]), "not in code");
  EXPECT_EQ(featureVerdict(FeatureCount{"tma", 2, -1}), "not measured");
  EXPECT_EQ(back.time->throttled, 2u);
  EXPECT_TRUE(back.time->clockSampled);
  EXPECT_EQ(back.time->minClockMHz, 1755u);

  WorkloadResult noClock = r;
  noClock.time->clockSampled = false;
  run.workloads = {noClock};
  text.clear();
  printSummary(run, os);
  EXPECT_NE(text.find("clock not sampled"), std::string::npos) << text;
}

} // namespace

namespace {

TEST(ResultTest, PhasesRoundTripAndPrint) {
  RunResult run;
  run.phases = {{"compile (NVRTC)", 812.5}, {"worker set-up", 950}};
  WorkloadResult r;
  r.workload = "dev-m4096";
  r.status = Status::Passed;
  r.phases = {{"references", 1500},
              {"timing loop", 400},
              {"timed launches (kernel time)", 12.5}};
  run.workloads = {r};
  WorkloadResult back;
  ASSERT_TRUE(fromJSON(toJSON(run.workloads[0]), back));
  ASSERT_EQ(back.phases.size(), 3u);
  EXPECT_EQ(back.phases[0].name, "references");
  EXPECT_EQ(back.phases[2].ms, 12.5);
  llvm::json::Value json = toJSON(run);
  const llvm::json::Object *o = json.getAsObject();
  ASSERT_TRUE(o && o->getArray("phases_ms"));
  EXPECT_EQ(o->getArray("phases_ms")->size(), 2u);
  std::string text;
  llvm::raw_string_ostream os(text);
  printPhases(run, os);
  // The kernel's own time is part of the timing loop: not added twice.
  EXPECT_NE(text.find("where the time went in dev-m4096 (1900 ms)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("before the workloads (1762 ms)"), std::string::npos)
      << text;
}

TEST(ResultTest, ARunResultReadsBackAsItWasWritten) {
  RunResult run;
  run.task = "rmsnorm_h4096";
  run.solution = "s/solution.cu";
  run.device = "NVIDIA H200";
  run.baseline = "cudnn";
  run.peakTflops = 989.5;
  run.peakGBps = 4800;
  run.peakFp32Tflops = 67;
  run.peakHow = "132 SMs";
  run.libraryTflops = 700;
  run.copyGBps = 4000;
  run.peakSource = "measured";
  run.peakMatrixType = "fp8 e4m3";
  run.arch = "sm_90a";
  run.driver = "580.1";
  run.cudaDriverVersion = 13000;
  run.cublasLtVersion = 130100;
  run.phases = {{"compile (NVRTC)", 12.5}};
  run.sanitizedWorkload = "dev-1";
  run.sanitizerNote = "a note";
  SanitizerReport tool;
  tool.tool = "memcheck";
  tool.errors = 2;
  tool.head = "head";
  tool.bytes = 9;
  run.sanitizer.push_back(tool);
  for (const char *name : {"dev-1", "heldout-1"}) {
    WorkloadResult w;
    w.workload = name;
    w.params["M"] = 4096;
    w.status = Status::Passed;
    w.message = "fine";
    w.flops = 1e12;
    w.bytes = 1e9;
    TimingStats t;
    t.samples = 5;
    t.medianMs = t.minMs = t.meanMs = t.q1Ms = t.q3Ms = 0.5;
    w.time = t;
    w.baselineTime = t;
    w.features.push_back({"wgmma", 3, 100, 0.9, 0.5, ""});
    w.work.measured = true;
    w.work.wgmmaFlops = 1e12;
    w.work.knockouts.push_back({"wgmma", true, true, "outputs failed"});
    w.workFindings.push_back({"a-kind", "a message"});
    w.phases = {{"timing loop", 3}};
    w.inputSets = 3;
    w.timedLaunchesChecked = 9;
    run.workloads.push_back(w);
  }
  Task task;
  Workload heldout;
  heldout.name = "heldout-1";
  task.heldout.push_back(heldout);
  markSplits(task, run);
  EXPECT_EQ(run.workloads[0].split, "dev");
  EXPECT_EQ(run.workloads[1].split, "heldout");

  std::string written = llvm::formatv("{0}", toJSON(run)).str();
  std::optional<RunResult> read = parseRunResult(written);
  ASSERT_TRUE(read.has_value()) << written;
  EXPECT_EQ(llvm::formatv("{0}", toJSON(*read)).str(), written);
  // The summary over workloads is written with it.
  EXPECT_NE(written.find("\"feature_counts\":{\"wgmma\":{\"executed\":200"),
            std::string::npos)
      << written;
  // Not a run result.
  EXPECT_FALSE(parseRunResult(""));
  EXPECT_FALSE(parseRunResult("{\"workloads\": [{\"status\": \"MAYBE\"}]}"));
  EXPECT_FALSE(parseRunResult("[1, 2]"));
}

} // namespace
