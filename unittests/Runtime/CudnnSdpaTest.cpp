//===- CudnnSdpaTest.cpp - Tests of the cuDNN attention baseline ----------===//
//
// The shape helpers are pure and tested everywhere. Building a graph needs
// libcudnn, the CUDA runtime and a GPU: without them the factories must
// return an error that says what is missing (no crash, no exception), and
// the test prints that reason as its skip message. On a GPU host with cuDNN
// on LD_LIBRARY_PATH it builds forward and backward plans for real.
//
//===----------------------------------------------------------------------===//

#include "CudnnSdpa.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <regex>

using namespace ptxbench::runtime;

namespace {

SdpaShape shape(int64_t b, int64_t h, int64_t s, int64_t d,
                bool causal = false) {
  return {b, h, s, d, causal, sdpaDefaultScale(d)};
}

/// The message of a failed validation, "" when it passed.
std::string validationError(const SdpaShape &s) {
  if (llvm::Error e = validateSdpaShape(s))
    return llvm::toString(std::move(e));
  return "";
}

TEST(CudnnSdpaTest, DefaultScaleIsOneOverSqrtD) {
  EXPECT_FLOAT_EQ(sdpaDefaultScale(64), 0.125f);
  EXPECT_FLOAT_EQ(sdpaDefaultScale(128), float(1 / std::sqrt(128.0)));
  EXPECT_EQ(sdpaDefaultScale(0), 0.0f);
}

TEST(CudnnSdpaTest, StridesAreRowMajorBHSD) {
  SdpaShape s = shape(2, 3, 5, 64);
  EXPECT_EQ(sdpaTensorStrides(s), (std::array<int64_t, 4>{960, 320, 64, 1}));
  EXPECT_EQ(sdpaStatsStrides(s), (std::array<int64_t, 4>{15, 5, 1, 1}));
  EXPECT_EQ(sdpaTensorBytes(s), size_t(2 * 3 * 5 * 64 * 2));
  EXPECT_EQ(sdpaStatsBytes(s), size_t(2 * 3 * 5 * 4));
}

TEST(CudnnSdpaTest, DescribesShapes) {
  EXPECT_EQ(describeSdpaShape(shape(4, 48, 4096, 128, true)),
            "B=4 H=48 S=4096 D=128 causal");
  EXPECT_EQ(describeSdpaShape(shape(1, 2, 3000, 64)), "B=1 H=2 S=3000 D=64");
}

TEST(CudnnSdpaTest, AcceptsTheTasksShapes) {
  for (int64_t d : {64, 128, 256})
    for (int64_t s : {512, 3000, 8192})
      EXPECT_EQ(validationError(shape(32, 48, s, d, s == 3000)), "")
          << "D=" << d << " S=" << s;
}

TEST(CudnnSdpaTest, RejectsUnsupportedHeadDims) {
  for (int64_t d : {0, 4, 100, 264, 512}) {
    std::string msg = validationError(shape(1, 1, 128, d));
    EXPECT_NE(msg.find("head dimension"), std::string::npos) << msg;
    EXPECT_NE(msg.find("D=" + std::to_string(d)), std::string::npos) << msg;
  }
}

TEST(CudnnSdpaTest, RejectsEmptyDimensions) {
  for (SdpaShape s : {shape(1, 1, 0, 64), shape(1, 1, -1, 64),
                      shape(0, 1, 128, 64), shape(1, 0, 128, 64)}) {
    std::string msg = validationError(s);
    EXPECT_NE(msg.find("at least 1"), std::string::npos) << msg;
  }
}

TEST(CudnnSdpaTest, RejectsBadScalesAndOverflow) {
  SdpaShape s = shape(1, 1, 128, 64);
  for (float scale : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(),
                      std::numeric_limits<float>::infinity()}) {
    s.scale = scale;
    EXPECT_NE(validationError(s).find("scale"), std::string::npos) << scale;
  }
  SdpaShape huge = shape(int64_t(1) << 30, int64_t(1) << 20, 1 << 20, 64);
  EXPECT_NE(validationError(huge).find("too large"), std::string::npos);
}

/// A bad shape is refused before any library is loaded, in every build.
TEST(CudnnSdpaTest, FactoriesRejectBadShapes) {
  auto fwd = CudnnSdpa::forward(shape(1, 1, 128, 100), nullptr);
  ASSERT_FALSE(fwd);
  EXPECT_NE(llvm::toString(fwd.takeError()).find("head dimension"),
            std::string::npos);
  auto bwd = CudnnSdpa::backward(shape(1, 1, 0, 64), nullptr);
  ASSERT_FALSE(bwd);
  EXPECT_NE(llvm::toString(bwd.takeError()).find("at least 1"),
            std::string::npos);
}

TEST(CudnnSdpaTest, VersionMatchesLoad) {
  if (llvm::Error e = CudnnSdpa::load()) {
    std::string msg = llvm::toString(std::move(e));
    EXPECT_FALSE(msg.empty());
    GTEST_SKIP() << "cuDNN not loaded: " << msg;
  }
  std::string v = CudnnSdpa::version();
  EXPECT_TRUE(std::regex_match(v, std::regex(R"(9\.\d+\.\d+)"))) << v;
  std::cout << "cuDNN " << v << " loaded\n";
}

/// Builds the graph of `shape` in one direction; without a GPU, cuDNN or
/// the frontend the error must say so, and the test skips with it.
void buildOrSkip(const SdpaShape &s, bool backward) {
  auto made = backward ? CudnnSdpa::backward(s, nullptr)
                       : CudnnSdpa::forward(s, nullptr);
  if (!made) {
    std::string msg = llvm::toString(made.takeError());
    EXPECT_NE(msg.find("cuDNN SDPA"), std::string::npos) << msg;
    GTEST_SKIP() << msg;
  }
  const CudnnSdpa &sdpa = **made;
  EXPECT_EQ(describeSdpaShape(sdpa.shape()), describeSdpaShape(s));
  EXPECT_FALSE(sdpa.planName().empty());
  std::cout << (backward ? "backward " : "forward ") << describeSdpaShape(s)
            << ": plan " << sdpa.planName() << ", workspace "
            << sdpa.workspaceBytes() << " bytes\n";
  // Each graph accepts only its own direction's run.
  llvm::Error wrong = backward
                          ? (*made)->runForward(0, 0, 0, 0, 0, 0)
                          : (*made)->runBackward(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  EXPECT_TRUE(bool(wrong));
  llvm::consumeError(std::move(wrong));
}

TEST(CudnnSdpaTest, BuildsForwardOrSaysWhy) {
  buildOrSkip(shape(2, 4, 3000, 128, /*causal=*/true), /*backward=*/false);
}

TEST(CudnnSdpaTest, BuildsBackwardOrSaysWhy) {
  buildOrSkip(shape(2, 4, 1000, 64), /*backward=*/true);
}

} // namespace
