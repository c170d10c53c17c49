//===- VerdictTest.cpp - Tests of the status and verdict words ------------===//

#include "ptxbench/Task/Verdict.h"

#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

TEST(VerdictTest, StatusNamesReadBack) {
  for (Status s :
       {Status::Passed, Status::Incorrect, Status::Suspicious,
        Status::CompileError, Status::CompileTimeout, Status::PlanError,
        Status::LaunchError, Status::RuntimeError, Status::Timeout,
        Status::HarnessError, Status::NoGpu, Status::Skipped})
    EXPECT_EQ(parseStatus(statusName(s)), s);
  EXPECT_EQ(parseStatus("passed"), std::nullopt);
}

TEST(VerdictTest, FamilyVerdictsHaveOneRankingAndTwoWaysToCombine) {
  // Every verdict's name reads back as itself.
  for (FamilyVerdict v :
       {FamilyVerdict::NotMeasured, FamilyVerdict::NotExecuted,
        FamilyVerdict::NotInCode, FamilyVerdict::NotTriggered,
        FamilyVerdict::Token, FamilyVerdict::Executed, FamilyVerdict::Used})
    EXPECT_EQ(parseFamilyVerdict(verdictName(v)), v);
  EXPECT_EQ(parseFamilyVerdict("USED"), std::nullopt);
  // Over workloads the least credit; an unmeasured workload is no verdict.
  EXPECT_EQ(acrossWorkloads(FamilyVerdict::Used, FamilyVerdict::NotTriggered),
            FamilyVerdict::NotTriggered);
  EXPECT_EQ(acrossWorkloads(FamilyVerdict::Executed, FamilyVerdict::Token),
            FamilyVerdict::Token);
  EXPECT_EQ(acrossWorkloads(FamilyVerdict::NotMeasured, FamilyVerdict::Used),
            FamilyVerdict::Used);
  // Over alternatives the most.
  EXPECT_EQ(acrossAlternatives(FamilyVerdict::NotInCode, FamilyVerdict::Used),
            FamilyVerdict::Used);
  EXPECT_TRUE(credited(FamilyVerdict::Executed));
  EXPECT_FALSE(credited(FamilyVerdict::Token));
}

} // namespace
