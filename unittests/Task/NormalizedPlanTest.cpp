//===- NormalizedPlanTest.cpp - A launch plan's canonical text ------------===//

#include "ptxbench/Task/LaunchPlan.h"

#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

std::string normalized(llvm::StringRef source) {
  auto plan = parseLaunchPlan(source, "k.cu");
  if (!plan)
    return "error: " + llvm::toString(plan.takeError());
  return normalizedPlan(*plan);
}

constexpr const char *plain =
    "// @ptxbench kernel k grid=ceildiv(T, 8) block=256\n"
    "// @ptxbench   args x, w, y, T\n";

TEST(NormalizedPlanTest, WhereAndHowItIsWrittenDoesNotMatter) {
  std::string base = normalized(plain);
  EXPECT_EQ(base, "kernel k grid=((ceildiv T 8),1,1) block=(256,1,1) smem=0 "
                  "args=[x,w,y,T]\n");
  EXPECT_EQ(base, normalized("// a comment first\n\n"
                             "  //   @ptxbench kernel k grid=(ceildiv((T),8)) "
                             "block=(256)\nint x;\n"
                             "// @ptxbench args x,w,y,(T)\n"));
}

TEST(NormalizedPlanTest, WhatItDoesMatters) {
  std::string base = normalized(plain);
  for (const char *other :
       {"// @ptxbench kernel k grid=ceildiv(T, 16) block=256\n"
        "// @ptxbench args x, w, y, T\n",
        "// @ptxbench kernel k grid=ceildiv(T, 8) block=128\n"
        "// @ptxbench args x, w, y, T\n",
        "// @ptxbench kernel k grid=ceildiv(T, 8) block=256 smem=1024\n"
        "// @ptxbench args x, w, y, T\n",
        "// @ptxbench kernel k grid=ceildiv(T, 8) block=256 cluster=1\n"
        "// @ptxbench args x, w, y, T\n",
        "// @ptxbench kernel k grid=ceildiv(T, 8) block=256\n"
        "// @ptxbench args x, w, y, T:i64\n",
        "// @ptxbench kernel k grid=ceildiv(T, 8) block=256\n"
        "// @ptxbench args w, x, y, T\n",
        "// @ptxbench kernel k2 grid=ceildiv(T, 8) block=256\n"
        "// @ptxbench args x, w, y, T\n",
        "// @ptxbench kernel k grid=ceildiv(T, 8) block=256\n"
        "// @ptxbench args x, w, y, T\n"
        "// @ptxbench workspace s bytes=4*T zero\n"})
    EXPECT_NE(normalized(other), base) << other;
  std::string zeroOnce =
      normalized("// @ptxbench kernel k grid=1 block=32\n// @ptxbench args s\n"
                 "// @ptxbench workspace s bytes=64 zero=once\n");
  EXPECT_NE(zeroOnce, normalized("// @ptxbench kernel k grid=1 block=32\n"
                                 "// @ptxbench args s\n"
                                 "// @ptxbench workspace s bytes=64 zero\n"));
  std::string map = "// @ptxbench kernel k grid=1 block=32\n"
                    "// @ptxbench args m\n"
                    "// @ptxbench tensormap m tensor=A box=(64,64) ";
  EXPECT_NE(normalized(map + "swizzle=128B\n"),
            normalized(map + "swizzle=64B\n"));
  EXPECT_NE(normalized(map + "oob=nan\n"), normalized(map + "oob=zero\n"));
}

} // namespace
