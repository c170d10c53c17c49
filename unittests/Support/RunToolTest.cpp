//===- RunToolTest.cpp - A tool run to its end, its output captured ------===//
//
// runTool keeps what the tool printed (both streams, or stdout alone), says
// how it ended, stops it at its deadline, and is an error only when the
// program cannot be started. The tools here are /bin/sh scripts.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/RunTool.h"

#include "gtest/gtest.h"

using namespace ptxbench::support;

namespace {

std::vector<std::string> shell(const std::string &script) {
  return {"/bin/sh", "-c", script};
}

TEST(RunToolTest, KeepsBothStreamsAndTheExitStatus) {
  auto out = runTool(shell("echo to-stdout; echo to-stderr >&2; exit 3"), 30);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_FALSE(out->succeeded());
  EXPECT_EQ(out->exit.exitCode(), 3);
  EXPECT_NE(out->text.find("to-stdout"), std::string::npos);
  EXPECT_NE(out->text.find("to-stderr"), std::string::npos);
}

TEST(RunToolTest, StdoutOnlyDropsStderr) {
  auto out = runTool(shell("echo to-stdout; echo to-stderr >&2"), 30,
                     ToolStreams::StdoutOnly);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_TRUE(out->succeeded());
  EXPECT_EQ(out->text, "to-stdout\n");
}

TEST(RunToolTest, KeepsALargeOutputWhole) {
  // More than a pipe holds: the output goes to a file, nothing blocks.
  auto out = runTool(shell("yes x | head -c 1000000"), 30);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_TRUE(out->succeeded());
  EXPECT_EQ(out->text.size(), 1000000u);
}

TEST(RunToolTest, StopsAToolAtItsDeadline) {
  auto out = runTool(shell("echo started; exec sleep 30"), 0.5);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_TRUE(out->exit.timedOut);
  EXPECT_FALSE(out->succeeded());
  EXPECT_EQ(out->text, "started\n");
}

TEST(RunToolTest, AProgramThatCannotStartIsAnError) {
  auto out = runTool({"/nonexistent/ptxas", "--version"}, 30);
  ASSERT_FALSE(bool(out));
  EXPECT_NE(llvm::toString(out.takeError()).find("/nonexistent/ptxas"),
            std::string::npos);
}

} // namespace
