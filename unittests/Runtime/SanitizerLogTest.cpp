//===- SanitizerLogTest.cpp - readSanitizerLog -----------------------------===//
//
// Each tool's error count, and the worker's JSON event lines (keys sorted,
// "event" not first) kept out of the report.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/SanitizerLog.h"

#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

constexpr const char *kEvent =
    "{\"arch\":\"sm_90a\",\"device\":\"H200\",\"event\":\"device\"}\n";

TEST(SanitizerLogTest, MemcheckCountsErrorsAndDropsWorkerEvents) {
  std::string text = std::string("========= COMPUTE-SANITIZER\n") + kEvent +
                     "========= Invalid __global__ write of size 4 bytes\n"
                     "========= ERROR SUMMARY: 3 errors\n";
  SanitizerReport r = readSanitizerLog("memcheck", text);
  EXPECT_EQ(r.tool, "memcheck");
  EXPECT_EQ(r.errors, 3);
  EXPECT_EQ(r.head.find("\"event\""), std::string::npos);
  EXPECT_NE(r.head.find("Invalid __global__ write"), std::string::npos);
}

TEST(SanitizerLogTest, RacecheckCountsItsSummarysErrors) {
  std::string text = std::string("========= COMPUTE-SANITIZER\n") + kEvent +
                     "========= RACECHECK SUMMARY: 5 hazards displayed "
                     "(2 errors, 3 warnings)\n";
  EXPECT_EQ(readSanitizerLog("racecheck", text).errors, 2);
  EXPECT_EQ(readSanitizerLog("racecheck",
                             "========= RACECHECK SUMMARY: 0 hazards "
                             "displayed (0 errors, 0 warnings)\n")
                .errors,
            0);
}

TEST(SanitizerLogTest, NoSummaryIsMinusOne) {
  SanitizerReport r =
      readSanitizerLog("synccheck", "========= COMPUTE-SANITIZER\n");
  EXPECT_EQ(r.errors, -1);
  EXPECT_EQ(readSanitizerLog("synccheck", "ERROR SUMMARY: x").errors, -1);
}

} // namespace
