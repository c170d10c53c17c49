//===- SolvedTest.cpp - When a turn is finished, on the writers' output ---===//
//
// The records here are made the way a sweep makes them: the run result by
// the runtime's own writer (runtime::toJSON of a RunResult) and the analysis
// by the report's (report::toJSON of an AnalysisReport), so what is tested
// is the shape the tools write.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/Summary.h"
#include "ptxbench/Report/AnalysisReport.h"
#include "ptxbench/Runtime/Result.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

using namespace ptxbench;
using runtime::FeatureCount;

namespace {

/// rmsnorm's requirements on sm_90a: a bulk copy or TMA, and a
/// transaction-count mbarrier.
const std::vector<std::string> requirements = {"bulk_copy|tma", "mbarrier_tx"};

/// A workload's kernel and library medians in milliseconds.
struct Times {
  std::optional<double> kernel, library;
};

/// A sample with two workloads whose counts are `first` and `second`.
eval::SampleRecord record(std::vector<FeatureCount> first,
                          std::vector<FeatureCount> second,
                          runtime::Status status = runtime::Status::Passed,
                          std::vector<std::string> fallbacks = {},
                          std::vector<Times> times = {}) {
  runtime::RunResult run;
  run.task = "rmsnorm_h4096";
  run.arch = "sm_90a";
  for (const char *name : {"dev-1", "dev-2"}) {
    runtime::WorkloadResult w;
    w.workload = name;
    w.status = status;
    w.features = run.workloads.empty() ? first : second;
    run.workloads.push_back(w);
  }
  for (size_t i = 0; i < times.size() && i < run.workloads.size(); ++i) {
    auto timing = [](double ms) {
      runtime::TimingStats t;
      t.samples = 10;
      t.medianMs = t.minMs = t.meanMs = t.q1Ms = t.q3Ms = ms;
      return t;
    };
    if (times[i].kernel)
      run.workloads[i].time = timing(*times[i].kernel);
    if (times[i].library)
      run.workloads[i].baselineTime = timing(*times[i].library);
  }
  report::AnalysisReport analysis;
  analysis.arch = "sm_90a";
  analysis.requested = requirements;
  report::KernelReport kernel;
  kernel.name = "rmsnorm";
  for (const std::string &r : requirements)
    kernel.requested.push_back({r, report::Verdict::Used});
  for (const std::string &kind : fallbacks) {
    report::Finding f;
    f.kind = kind;
    f.message = "a fallback";
    kernel.fallbacks.push_back(f);
  }
  analysis.kernels.push_back(kernel);

  eval::SampleRecord r;
  r.status = eval::status::Analyzed;
  r.runStatus = runtime::statusName(runtime::worstStatus(run)).str();
  r.runJson = llvm::formatv("{0}", runtime::toJSON(run)).str();
  r.staticJson = llvm::formatv("{0}", report::toJSON(analysis)).str();
  return r;
}

/// A sample whose two workloads count the same.
eval::SampleRecord record(std::vector<FeatureCount> features,
                          runtime::Status status = runtime::Status::Passed,
                          std::vector<std::string> fallbacks = {},
                          std::vector<Times> times = {}) {
  return record(features, features, status, std::move(fallbacks),
                std::move(times));
}

FeatureCount count(const char *family, int64_t inCode, int64_t executed,
                   double share = -1, double threshold = -1) {
  FeatureCount c;
  c.family = family;
  c.inCode = inCode;
  c.executed = executed;
  c.share = share;
  c.threshold = threshold;
  return c;
}

TEST(SolvedTest, OneAlternativeOfARequirementDoingTheWorkIsEnough) {
  // The runtime counts bulk_copy and tma each on its own: a kernel that
  // moves every byte with bulk copies has no TMA at all.
  eval::SampleRecord r = record({count("bulk_copy", 1, 4096, 1.0, 0.9),
                                 count("tma", 0, 0, 0.0, 0.9),
                                 count("mbarrier_tx", 2, 8192, 1.0, 0.9)});
  auto verdicts = eval::runVerdicts(r);
  ASSERT_EQ(verdicts.count("bulk_copy|tma"), 1u) << r.runJson;
  EXPECT_EQ(verdicts["bulk_copy|tma"].verdict, runtime::FamilyVerdict::Used);
  EXPECT_EQ(verdicts["bulk_copy|tma"].name(), "used");
  EXPECT_TRUE(eval::solved(r)) << r.runJson;
  // The other alternative alone does as well.
  EXPECT_TRUE(eval::solved(record({count("bulk_copy", 0, 0, 0.0, 0.9),
                                   count("tma", 1, 4096, 1.0, 0.9),
                                   count("mbarrier_tx", 2, 8192, 1.0, 0.9)})));
}

TEST(SolvedTest, ATokenUnmeasuredOrFailingRunIsNotFinished) {
  // Both alternatives only as a token.
  EXPECT_FALSE(eval::solved(record({count("bulk_copy", 1, 64, 0.01, 0.9),
                                    count("tma", 1, 64, 0.01, 0.9),
                                    count("mbarrier_tx", 2, 8192, 1.0, 0.9)})));
  // The other requirement not triggered.
  EXPECT_FALSE(eval::solved(record({count("bulk_copy", 1, 4096, 1.0, 0.9),
                                    count("mbarrier_tx", 2, 0, 0.0, 0.9)})));
  // A requirement the run did not measure at all.
  EXPECT_FALSE(eval::solved(record({count("bulk_copy", 1, 4096, 1.0, 0.9)})));
  // Nothing measured.
  EXPECT_FALSE(eval::solved(record({})));
  // Credited, but incorrect or with a fallback finding.
  std::vector<FeatureCount> good = {count("bulk_copy", 1, 4096, 1.0, 0.9),
                                    count("mbarrier_tx", 2, 8192, 1.0, 0.9)};
  EXPECT_TRUE(eval::solved(record(good)));
  EXPECT_FALSE(eval::solved(record(good, runtime::Status::Incorrect)));
  EXPECT_FALSE(eval::solved(record(good, runtime::Status::Passed,
                                   {"ld-global-instead-of-bulk-copy"})));
}

TEST(SolvedTest, TheTurnsSpeedupIsItsLeastDevWorkloadsOfACorrectRun) {
  std::vector<FeatureCount> good = {count("bulk_copy", 1, 4096, 1.0, 0.9),
                                    count("mbarrier_tx", 2, 8192, 1.0, 0.9)};
  // 1.5x and 1.1x: the turn's speedup is 1.1x.
  std::optional<double> s = eval::minDevSpeedup(
      record(good, runtime::Status::Passed, {}, {{2.0, 3.0}, {2.0, 2.2}}));
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(*s, 1.1, 1e-9);
  // A dev workload without a library time: not known.
  EXPECT_FALSE(eval::minDevSpeedup(record(good, runtime::Status::Passed, {},
                                          {{2.0, 3.0}, {2.0, std::nullopt}})));
  // Not timed at all, or not correct however fast.
  EXPECT_FALSE(eval::minDevSpeedup(record(good)));
  EXPECT_FALSE(eval::minDevSpeedup(record(good, runtime::Status::Incorrect, {},
                                          {{1.0, 9.0}, {1.0, 9.0}})));
}

TEST(SolvedTest, UncreditedNamesEachRequirementWithItsVerdict) {
  eval::SampleRecord r = record({count("bulk_copy", 1, 64, 0.01, 0.9),
                                 count("tma", 0, 0, 0.0, 0.9)});
  auto missing = eval::uncredited(r);
  ASSERT_EQ(missing.size(), 2u) << r.runJson;
  EXPECT_EQ(missing[0], (std::pair<std::string, std::string>{"bulk_copy|tma",
                                                             "token"}));
  EXPECT_EQ(missing[1], (std::pair<std::string, std::string>{"mbarrier_tx",
                                                             "not measured"}));
  EXPECT_FALSE(eval::creditedCorrect(r));
  // Credited and correct, with a fallback: credited, not solved.
  eval::SampleRecord f = record({count("bulk_copy", 1, 4096, 1.0, 0.9),
                                 count("mbarrier_tx", 2, 8192, 1.0, 0.9)},
                                runtime::Status::Passed,
                                {"ld-global-instead-of-bulk-copy"});
  EXPECT_TRUE(eval::uncredited(f).empty());
  EXPECT_TRUE(eval::creditedCorrect(f));
  EXPECT_FALSE(eval::solved(f));
}

TEST(SolvedTest, AFamilyThatFallsBackOnOneWorkloadIsNotUsed) {
  // Bulk copies on the first workload; on the second (say a ragged shape)
  // the kernel takes a path without them: not triggered there, so the
  // sample does not use the family, whichever workload comes first.
  std::vector<FeatureCount> used = {count("bulk_copy", 1, 4096, 1.0, 0.9),
                                    count("mbarrier_tx", 2, 8192, 1.0, 0.9)};
  std::vector<FeatureCount> fellBack = {count("bulk_copy", 1, 0, 0.0, 0.9),
                                        count("mbarrier_tx", 2, 0, 0.0, 0.9)};
  for (bool usedFirst : {true, false}) {
    eval::SampleRecord r = usedFirst ? record(used, fellBack)
                                     : record(fellBack, used);
    auto verdicts = eval::runVerdicts(r);
    EXPECT_EQ(verdicts["bulk_copy|tma"].verdict,
              runtime::FamilyVerdict::NotTriggered)
        << r.runJson;
    EXPECT_FALSE(eval::solved(r)) << r.runJson;
  }
  // A token on one workload is the sample's verdict too.
  std::vector<FeatureCount> token = {count("bulk_copy", 1, 64, 0.01, 0.9),
                                     count("mbarrier_tx", 2, 8192, 1.0, 0.9)};
  EXPECT_EQ(eval::runVerdicts(record(used, token))["bulk_copy|tma"].verdict,
            runtime::FamilyVerdict::Token);
  // A workload without counts says nothing either way.
  EXPECT_TRUE(eval::solved(record(used, std::vector<FeatureCount>{})));
}

} // namespace
