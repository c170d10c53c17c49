//===- CudnnSdpaFp8Test.cpp - cuDNN's fp8 attention forward graph ---------===//
//
// The fp8 attention tasks' baseline graph: a bad shape is refused before any
// library is loaded; a good one builds where a Hopper GPU, cuDNN and the
// frontend are there, and says which is missing otherwise (the test then
// skips with that message).
//
//===----------------------------------------------------------------------===//

#include "CudnnSdpaFp8.h"

#include "gtest/gtest.h"

#include <iostream>

using namespace ptxbench::runtime;

namespace {

SdpaShape shape(int64_t b, int64_t h, int64_t s, int64_t d,
                bool causal = false) {
  SdpaShape x;
  x.batch = b;
  x.heads = h;
  x.seq = s;
  x.headDim = d;
  x.causal = causal;
  x.scale = sdpaDefaultScale(d);
  return x;
}

TEST(CudnnSdpaFp8Test, RejectsBadShapesFirst) {
  auto made = CudnnSdpaFp8::forward(shape(1, 1, 128, 100), nullptr);
  ASSERT_FALSE(made);
  EXPECT_NE(llvm::toString(made.takeError()).find("head dimension"),
            std::string::npos);
  auto empty = CudnnSdpaFp8::forward(shape(1, 0, 128, 128), nullptr);
  ASSERT_FALSE(empty);
  EXPECT_NE(llvm::toString(empty.takeError()).find("at least 1"),
            std::string::npos);
}

TEST(CudnnSdpaFp8Test, BuildsForwardOrSaysWhy) {
  SdpaShape s = shape(1, 4, 3000, 128, /*causal=*/true);
  auto made = CudnnSdpaFp8::forward(s, nullptr);
  if (!made) {
    std::string msg = llvm::toString(made.takeError());
    EXPECT_NE(msg.find("cuDNN"), std::string::npos) << msg;
    GTEST_SKIP() << msg;
  }
  EXPECT_EQ(describeSdpaShape((*made)->shape()), describeSdpaShape(s));
  EXPECT_FALSE((*made)->planName().empty());
  std::cout << "fp8 forward " << describeSdpaShape(s) << ": plan "
            << (*made)->planName() << ", workspace "
            << (*made)->workspaceBytes() << " bytes\n";
}

} // namespace
