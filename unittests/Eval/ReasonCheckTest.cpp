//===- ReasonCheckTest.cpp - Written reasons held against the facts -------===//
//
// Records made the way a sweep makes them (report::toJSON of an analysis,
// runtime::toJSON of a run), and reasons that tell the truth, lie about a
// family, a speedup or a status, or only look like they do (a tile of
// 128x64, a family named to say it is absent).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ReasonCheck.h"
#include "ptxbench/Report/AnalysisReport.h"
#include "ptxbench/Runtime/Result.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

using namespace ptxbench;

namespace {

/// A kernel with `families` in its code, run with `status` and the
/// kernel's and library's medians per workload (no times: not timed; no
/// status: not run).
eval::SampleRecord kernel(std::vector<std::string> families,
                          std::optional<runtime::Status> status,
                          std::vector<std::pair<double, double>> times = {}) {
  report::AnalysisReport analysis;
  analysis.arch = "sm_90a";
  analysis.requested = {"bulk_copy|tma", "mbarrier_tx"};
  report::KernelReport k;
  k.name = "rmsnorm";
  for (const std::string &f : families)
    k.features.push_back({f, 2, 2, std::nullopt});
  analysis.kernels.push_back(k);
  eval::SampleRecord r;
  r.status = eval::status::Analyzed;
  r.staticJson = llvm::formatv("{0}", report::toJSON(analysis)).str();
  if (status) {
    runtime::RunResult run;
    run.task = "rmsnorm_h4096";
    for (size_t i = 0; i < std::max<size_t>(times.size(), 1); ++i) {
      runtime::WorkloadResult w;
      w.workload = "dev-" + std::to_string(i + 1);
      w.split = "dev";
      w.status = *status;
      if (i < times.size()) {
        runtime::TimingStats t, b;
        t.samples = b.samples = 10;
        t.medianMs = times[i].first;
        b.medianMs = times[i].second;
        w.time = t;
        w.baselineTime = b;
      }
      run.workloads.push_back(w);
    }
    r.runStatus = runtime::statusName(*status).str();
    r.runJson = llvm::formatv("{0}", runtime::toJSON(run)).str();
  }
  return r;
}

/// The failed kernel: plain loads, an incorrect run. The fix: bulk copies
/// on a transaction mbarrier, passed at 1.25x and 1.5x.
struct Pair {
  eval::SampleRecord failed =
      kernel({}, runtime::Status::Incorrect);
  eval::SampleRecord fixed =
      kernel({"bulk_copy", "mbarrier", "mbarrier_tx"},
             runtime::Status::Passed, {{0.1, 0.125}, {0.1, 0.15}});
  std::vector<eval::Contradiction> check(llvm::StringRef reason) const {
    return eval::checkReason(reason, &failed, fixed);
  }
};

TEST(ReasonCheckTest, TheTruthPasses) {
  Pair p;
  EXPECT_TRUE(p.check("I notice the original kernel reads each row with "
                      "per-thread loads: no bulk copy is issued and "
                      "mbarrier_tx is missing. Its output was incorrect. "
                      "I move each row into shared memory with one "
                      "cp.async.bulk per block, completing on an mbarrier "
                      "armed with expect_tx. The new kernel passes every "
                      "workload at about 1.37x the library, 1.5x on dev-2, "
                      "and uses a 128x64 tile.")
                  .empty());
}

TEST(ReasonCheckTest, AFamilyNeitherKernelHas) {
  Pair p;
  auto c = p.check("The fix issues wgmma.mma_async for the sum of squares.");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, eval::ClaimKind::Family);
  EXPECT_NE(c[0].why.find("names wgmma"), std::string::npos) << c[0].why;
  // Said of the failed kernel, which has no TMA.
  c = p.check("The original kernel already loaded rows through the tensor "
              "memory accelerator.");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(c[0].why.find("names tma"), std::string::npos) << c[0].why;
  // Named only to say it is not there: no claim.
  EXPECT_TRUE(p.check("The fixed kernel does not need TMA or wgmma.").empty());
  EXPECT_TRUE(p.check("Without cp.async.bulk the old kernel was slow.").empty());
}

TEST(ReasonCheckTest, ASpeedupThatDidNotHappen) {
  Pair p;
  auto c = p.check("The fixed kernel is 3.5x faster than the library.");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, eval::ClaimKind::Speedup);
  c = p.check("This gives a speedup of 2.2 on the dev workloads.");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, eval::ClaimKind::Speedup);
  // Nothing was timed: every figure is invented, and so is beating the
  // library.
  eval::SampleRecord untimed = kernel({"bulk_copy", "mbarrier_tx"}, std::nullopt);
  c = eval::checkReason("It now runs 1.2x faster.", &p.failed, untimed);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(c[0].why.find("no run of either kernel was timed"),
            std::string::npos);
  c = eval::checkReason("The new kernel is faster than cuBLAS.", &p.failed,
                        untimed);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, eval::ClaimKind::Speedup);
}

TEST(ReasonCheckTest, AStatusThatDidNotHappen) {
  Pair p;
  auto c = p.check("The original kernel passed every workload, only slowly.");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, eval::ClaimKind::Status);
  EXPECT_NE(c[0].why.find("INCORRECT"), std::string::npos) << c[0].why;
  c = p.check("The previous attempt timed out on dev-1.");
  ASSERT_EQ(c.size(), 1u);
  c = p.check("The old kernel did not compile.");
  ASSERT_EQ(c.size(), 1u);
  // Negated, or true.
  EXPECT_TRUE(p.check("The old kernel never passed.").empty());
  EXPECT_TRUE(p.check("The old kernel gave incorrect results.").empty());
  // A kernel that never ran neither passed nor failed on the GPU.
  eval::SampleRecord untimed = kernel({"bulk_copy", "mbarrier_tx"}, std::nullopt);
  c = eval::checkReason("The fixed kernel passes.", &p.failed, untimed);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(c[0].why.find("never ran on a GPU"), std::string::npos);
}

TEST(ReasonCheckTest, KernelGenExplanationsAreAboutTheOneKernel) {
  Pair p;
  EXPECT_TRUE(eval::checkReason("The kernel copies rows with cp.async.bulk "
                                "and waits on an expect_tx mbarrier; it "
                                "passed at 1.25x.",
                                nullptr, p.fixed)
                  .empty());
  auto c = eval::checkReason("It keeps the accumulators in tensor memory "
                             "with tcgen05.mma.",
                             nullptr, p.fixed);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, eval::ClaimKind::Family);
}

TEST(ReasonCheckTest, FamiliesOfCodeThatDidNotCompile) {
  // Without an analysis the code's text says which families it names.
  Pair p;
  p.failed = eval::SampleRecord();
  p.failed.status = eval::status::CompileError;
  p.failed.code = "asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster"
                  ".global.tile.mbarrier::complete_tx::bytes ...\");";
  EXPECT_TRUE(p.check("The failed kernel used cp.async.bulk.tensor but did "
                      "not compile.")
                  .empty());
  auto c = p.check("The failed kernel used wgmma but did not compile.");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, eval::ClaimKind::Family);
}

} // namespace
