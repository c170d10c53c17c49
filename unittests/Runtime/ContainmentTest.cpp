//===- ContainmentTest.cpp - Output capture, guard layout, input sets -----===//
//
// The host arithmetic that keeps a submission contained: the bounded
// capture of what a worker prints, where a tensor sits between its guard
// pages, how many input sets the timed runs rotate through, the verdict
// on the device-side check's sums, and the device-runtime calls refused in
// a compiled module (on cubins ptxas makes at test time).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Containment.h"
#include "ptxbench/Runtime/Result.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstring>

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

namespace {

/// `ptx` assembled by the toolkit's ptxas for sm_90a, or "" without ptxas.
std::string assemble(llvm::StringRef ptx) {
  llvm::ErrorOr<std::string> ptxas = llvm::sys::findProgramByName(
      "ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas)
    ptxas = llvm::sys::findProgramByName("ptxas");
  if (!ptxas)
    return "";
  llvm::SmallString<64> in, out;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("refused", "ptx", fd, in))
    return "";
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("refused", "cubin", out);
  int rc = llvm::sys::ExecuteAndWait(
      *ptxas, {*ptxas, "-arch=sm_90a", in.str(), "-o", out.str()});
  auto buf = llvm::MemoryBuffer::getFile(out);
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  return rc == 0 && buf ? (*buf)->getBuffer().str() : "";
}

constexpr const char *callsPtx = R"(.version 8.7
.target sm_90a
.address_size 64
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 a, .param .b64 b);
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<3>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [out];
	{
	.param .b64 param0;
	st.param.b64 [param0], 64;
	.param .b64 retval0;
	call.uni (retval0), malloc, (param0);
	ld.param.b64 %rd2, [retval0];
	}
	st.global.u64 [%rd1], %rd2;
	{
	.param .b64 a;
	st.param.b64 [a], 0;
	.param .b64 b;
	st.param.b64 [b], 0;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (a, b);
	ld.param.b32 %r1, [retval0];
	}
	ret;
}
)";

} // namespace

TEST(RefusedDeviceCallsTest, MallocIsRefusedPrintfIsNot) {
  std::string cubin = assemble(callsPtx);
  if (cubin.empty())
    GTEST_SKIP() << "ptxas (CUDA toolkit) not found: cannot make a cubin";
  auto refused = refusedDeviceCalls(cubin);
  ASSERT_TRUE(bool(refused)) << llvm::toString(refused.takeError());
  EXPECT_EQ(*refused, std::vector<std::string>{"malloc"});
  EXPECT_NE(refusedDeviceCallsMessage(*refused).find("'malloc'"),
            std::string::npos);
}

TEST(RefusedDeviceCallsTest, APlainKernelCallsNothing) {
  std::string cubin = assemble(R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
	ret;
}
)");
  if (cubin.empty())
    GTEST_SKIP() << "ptxas (CUDA toolkit) not found: cannot make a cubin";
  auto refused = refusedDeviceCalls(cubin);
  ASSERT_TRUE(bool(refused)) << llvm::toString(refused.takeError());
  EXPECT_TRUE(refused->empty());
}

TEST(RefusedDeviceCallsTest, DamagedImagesAreErrorsNotCrashes) {
  EXPECT_FALSE(bool(refusedDeviceCalls("")));
  llvm::consumeError(refusedDeviceCalls("").takeError());
  std::string notElf(4096, 'x');
  auto r = refusedDeviceCalls(notElf);
  EXPECT_FALSE(bool(r));
  llvm::consumeError(r.takeError());
  // A valid header whose section table points past the end.
  llvm::ELF::Elf64_Ehdr header = {};
  std::memcpy(header.e_ident, llvm::ELF::ElfMagic, 4);
  header.e_ident[llvm::ELF::EI_CLASS] = llvm::ELF::ELFCLASS64;
  header.e_ident[llvm::ELF::EI_DATA] = llvm::ELF::ELFDATA2LSB;
  header.e_shentsize = sizeof(llvm::ELF::Elf64_Shdr);
  header.e_shnum = 1000;
  header.e_shoff = 1u << 30;
  std::string image(reinterpret_cast<const char *>(&header), sizeof(header));
  r = refusedDeviceCalls(image);
  EXPECT_FALSE(bool(r));
  llvm::consumeError(r.takeError());
  // The same with every truncation of a real cubin.
  std::string cubin = assemble(callsPtx);
  for (size_t n = 0; n < cubin.size(); n += 61) {
    auto t = refusedDeviceCalls(llvm::StringRef(cubin).take_front(n));
    if (!t)
      llvm::consumeError(t.takeError());
  }
}
