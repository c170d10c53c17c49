//===- ContainmentTest.cpp - Output capture, guard layout, input sets -----===//
//
// The host arithmetic that keeps a submission contained: the bounded
// capture of what a worker prints, where a tensor sits between its guard
// pages, how many input sets the timed runs rotate through, and the
// verdict on the device-side check's sums.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Containment.h"
#include "ptxbench/Runtime/Result.h"

#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

TEST(OutputCaptureTest, SmallOutputIsKeptWhole) {
  OutputCapture c(8, 8);
  c.append("hello");
  EXPECT_EQ(c.total(), 5u);
  EXPECT_EQ(c.head(), "hello");
  EXPECT_EQ(c.tail(), "");
  EXPECT_EQ(c.omitted(), 0u);
}

TEST(OutputCaptureTest, KeepsHeadAndTailOfAFlood) {
  OutputCapture c(4, 6);
  // 0123 | 456789abcdefghij: the head takes 4, the tail the last 6.
  c.append("0123456789");
  c.append("abcdefghij");
  EXPECT_EQ(c.total(), 20u);
  EXPECT_EQ(c.head(), "0123");
  EXPECT_EQ(c.tail(), "efghij");
  EXPECT_EQ(c.omitted(), 10u);
}

TEST(OutputCaptureTest, ByteByByteEqualsOneChunk) {
  OutputCapture a(3, 5), b(3, 5);
  std::string text = "the quick brown fox jumps over the lazy dog";
  a.append(text);
  for (char ch : text)
    b.append(llvm::StringRef(&ch, 1));
  EXPECT_EQ(a.head(), b.head());
  EXPECT_EQ(a.tail(), b.tail());
  EXPECT_EQ(a.tail(), "y dog");
  EXPECT_EQ(b.total(), text.size());
}

TEST(OutputCaptureTest, BoundedForGigabytes) {
  OutputCapture c(4096, 4096);
  std::string chunk(1 << 20, 'p');
  for (int i = 0; i < 256; ++i)
    c.append(chunk);
  EXPECT_EQ(c.total(), uint64_t(256) << 20);
  EXPECT_EQ(c.head().size(), 4096u);
  EXPECT_EQ(c.tail().size(), 4096u);
  c.clear();
  EXPECT_EQ(c.total(), 0u);
  EXPECT_EQ(c.tail(), "");
}

constexpr uint64_t MiB = 1 << 20;

TEST(GuardedLayoutTest, PageMultipleEndsAtTheMappingsEnd) {
  GuardedLayout l = guardedLayout(32 * MiB, 2 * MiB, 2 * MiB, 256);
  EXPECT_EQ(l.mappedBytes, 32 * MiB);
  EXPECT_EQ(l.offset, 0u);
  EXPECT_EQ(l.slack, 0u);
  EXPECT_EQ(l.guardBytes, 2 * MiB);
  EXPECT_EQ(l.reservedBytes, 36 * MiB);
}

TEST(GuardedLayoutTest, RaggedSizeIsPushedToTheEnd) {
  // 3000 x 4096 bf16 = 24,576,000 bytes: a multiple of 256, so it ends
  // exactly where the 24 MiB mapping ends.
  uint64_t bytes = 3000ull * 4096 * 2;
  GuardedLayout l = guardedLayout(bytes, 2 * MiB, 2 * MiB, 256);
  EXPECT_EQ(l.mappedBytes, 24 * MiB);
  EXPECT_EQ(l.offset + bytes, l.mappedBytes);
  EXPECT_EQ(l.offset % 256, 0u);
  EXPECT_EQ(l.slack, 0u);
}

TEST(GuardedLayoutTest, AlignmentLeavesSlackAfterTheEnd) {
  // 1000 bytes: the start is aligned down to 256 (offset 2 MiB - 1024),
  // leaving 24 bytes between the end and the guard.
  GuardedLayout l = guardedLayout(1000, 2 * MiB, 0, 256);
  EXPECT_EQ(l.mappedBytes, 2 * MiB);
  EXPECT_EQ(l.offset, 2 * MiB - 1024);
  EXPECT_EQ(l.slack, 24u);
  EXPECT_EQ(l.offset + 1000 + l.slack, l.mappedBytes);
  EXPECT_EQ(l.guardBytes, 2 * MiB); // at least one page
}

TEST(GuardedLayoutTest, EmptyBufferStillGetsAPage) {
  GuardedLayout l = guardedLayout(0, 64 * 1024, 64 * 1024, 256);
  EXPECT_EQ(l.mappedBytes, 64u * 1024);
  EXPECT_EQ(l.reservedBytes, 3u * 64 * 1024);
}

TEST(InputSetCountTest, ByBudget) {
  EXPECT_EQ(inputSetCount(100, 1000, 4), 4u); // ten fit, four at most
  EXPECT_EQ(inputSetCount(300, 1000, 4), 3u);
  EXPECT_EQ(inputSetCount(2000, 1000, 4), 2u); // always two
  EXPECT_EQ(inputSetCount(0, 1000, 4), 4u);
  EXPECT_EQ(inputSetCount(10, 1000, 1), 2u);
}

TEST(JudgeSumsTest, SameOrderAsTheHostCheck) {
  Tolerance tol{0.02, 0.01};
  CheckSums ok;
  ok.count = 100;
  ok.errSq = 1e-6;
  ok.refSq = 1.0;
  EXPECT_TRUE(judgeSums(ok, tol, 0.005).passed);
  CheckSums unwritten = ok;
  unwritten.unwritten = 3;
  unwritten.nonFinite = 1;
  CompareStats s = judgeSums(unwritten, tol, 0.005);
  EXPECT_FALSE(s.passed);
  EXPECT_EQ(s.failedCheck, "unwritten");
  CheckSums far = ok;
  far.outOfTolerance = 2;
  EXPECT_EQ(judgeSums(far, tol, 0.005).failedCheck, "tolerance");
  EXPECT_TRUE(judgeSums(far, std::nullopt, 0.005).passed);
  CheckSums l2 = ok;
  l2.errSq = 1e-4; // rel_l2 0.01
  EXPECT_EQ(judgeSums(l2, tol, 0.005).failedCheck, "rel_l2");
  EXPECT_NEAR(judgeSums(l2, tol, 0.005).relL2, 0.01, 1e-12);
}

} // namespace

TEST(ModuleGlobalsTest, DefinedGlobalsOnly) {
  const char *ptx = R"(.version 8.7
.target sm_90a
.address_size 64
.extern .global .u32 declared;            // not ours to restore
.global .align 4 .b8 cache[33554432];
.visible .global .u64 launches;
.global .align 8 .u64 table[2] = {1, 2};  /* an initializer's braces */
.const .align 4 .b32 constant[4];
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<2>;
	.shared .align 4 .b8 tile[64];       // shared memory does not persist
	ret;
}
.weak .global .align 16 .b8 after_a_body[16];
)";
  EXPECT_EQ(
      moduleGlobals(ptx),
      (std::vector<std::string>{"cache", "launches", "table", "after_a_body"}));
}
