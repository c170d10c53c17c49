//===- ReuseKeyTest.cpp - What decides that two samples share a run -------===//

#include "ptxbench/Eval/Sweep.h"

#include "gtest/gtest.h"

using namespace ptxbench::eval;

namespace {

TEST(ReuseKeyTest, EveryInputOfTheRunChangesTheKey) {
  SweepOptions options;
  std::string base = reuseKey("kernels", "plan\n", "task", options);
  EXPECT_EQ(base, reuseKey("kernels", "plan\n", "task", options));
  EXPECT_EQ(base.size(), 64u);
  EXPECT_NE(base, reuseKey("other kernels", "plan\n", "task", options));
  EXPECT_NE(base, reuseKey("kernels", "other plan\n", "task", options));
  EXPECT_NE(base, reuseKey("kernels", "plan\n", "edited task", options));
  // The fields cannot run into each other.
  EXPECT_NE(reuseKey("a", "b\n", "c", options),
            reuseKey("a\nplan\nb", "\n", "c", options));
  auto changed = [&](auto change) {
    SweepOptions o = options;
    change(o);
    return reuseKey("kernels", "plan\n", "task", o) != base;
  };
  EXPECT_TRUE(changed([](SweepOptions &o) { o.arch = "sm_100a"; }));
  EXPECT_TRUE(changed([](SweepOptions &o) { o.shapes = "heldout"; }));
  EXPECT_TRUE(changed([](SweepOptions &o) { o.runTimeoutSeconds = 5; }));
  EXPECT_TRUE(changed([](SweepOptions &o) { o.compileTimeoutSeconds = 5; }));
  // What does not change a run does not change the key.
  EXPECT_FALSE(changed([](SweepOptions &o) { o.jobs = 7; }));
  EXPECT_FALSE(changed([](SweepOptions &o) { o.gpus = {"0", "1"}; }));
}

} // namespace
