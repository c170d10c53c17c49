//===- TritonPlanTest.cpp - A Triton plan to a signature and back ---------===//

#include "ptxbench/Runtime/TritonPlan.h"
#include "ptxbench/Task/Task.h"

#include "gtest/gtest.h"

using namespace ptxbench;
using namespace ptxbench::runtime;

namespace {

const char *taskJson = R"json({
  "name": "gemm_nt",
  "params": ["M", "N", "K"],
  "tensors": [
    {"name": "A", "dtype": "bf16", "shape": ["M", "K"], "role": "input"},
    {"name": "B", "dtype": "bf16", "shape": ["N", "K"], "role": "input"},
    {"name": "C", "dtype": "f32", "shape": ["M", "N"], "role": "output"}
  ],
  "workloads": {"dev": [{"M": 256, "N": 512, "K": 128}],
                "heldout": [{"M": 1000, "N": 512, "K": 128}]},
  "check": {"tolerance": {"f32": {"atol": 0.01, "rtol": 0.01}}},
  "flops": "2*M*N*K", "bytes": "2*(M*K+N*K)+4*M*N",
  "reference": "gemm", "operands": {"a": "A", "b": "B", "c": "C", "b_layout": "nk"}
})json";

const Task &task() {
  static Task t = [] {
    auto t = parseTask(taskJson, "task.json");
    EXPECT_TRUE(!!t) << (t ? "" : llvm::toString(t.takeError()));
    return std::move(*t);
  }();
  return t;
}

const char *planText =
    "# @ptxbench kernel mm grid=(ceildiv(M, 64), ceildiv(N, 64)) "
    "num_warps=4 num_stages=3\n"
    "# @ptxbench   args a, C, M, N, K, N*2:i64\n"
    "# @ptxbench   constexpr BLOCK=64 SCALE=0.5 EVEN=True\n"
    "# @ptxbench tensormap a tensor=A box=(64, 128)\n"
    "import triton\n";

LaunchPlan plan() {
  auto p = parseLaunchPlan(planText, "sol.py");
  EXPECT_TRUE(!!p) << (p ? "" : llvm::toString(p.takeError()));
  return p ? std::move(*p) : LaunchPlan();
}

TEST(TritonPlanTest, SignatureFromTheTask) {
  LaunchPlan p = plan();
  ASSERT_TRUE(p.triton);
  ASSERT_EQ(p.kernels.size(), 1u);
  ASSERT_TRUE(p.kernels[0].triton);
  EXPECT_EQ(p.kernels[0].triton->numWarps, 4u);
  auto spec = tritonKernelSpec(p, task());
  ASSERT_TRUE(!!spec) << llvm::toString(spec.takeError());
  EXPECT_EQ(spec->args,
            (std::vector<std::string>{"tensordesc<bf16[64,128]>", "*fp32",
                                      "i32", "i32", "i32", "i64"}));
  // The pointer, and the integers that are multiples of 16 in every
  // workload: N and K, N*2 (not M: 1000 in the held-out workload).
  EXPECT_EQ(spec->aligned, (std::vector<unsigned>{1, 3, 4, 5}));
  ASSERT_EQ(spec->constexprs.size(), 3u);
  EXPECT_EQ(spec->constexprs[0].value, llvm::json::Value(64));
  EXPECT_EQ(spec->constexprs[1].value, llvm::json::Value(0.5));
  EXPECT_EQ(spec->constexprs[2].value, llvm::json::Value(true));
  EXPECT_EQ(spec->constexprs[2].column, 44u);
}

toolchain::TritonKernelBuild build() {
  toolchain::TritonKernelBuild b;
  b.entry = "mm";
  b.numWarps = 4;
  b.shared = 70000;
  b.globalScratchSize = 128;
  b.globalScratchAlign = 64;
  toolchain::TritonTensorDesc d;
  d.swizzle = 3;
  d.elemSize = 2;
  d.blockSize = {64, 64}; // Triton's box: the inner 128 split in two
  b.tensorDescs.push_back(d);
  return b;
}

TEST(TritonPlanTest, LoweredAsTritonsLauncherWould) {
  auto lowered = lowerTritonPlan(plan(), task(), build());
  ASSERT_TRUE(!!lowered) << llvm::toString(lowered.takeError());
  EXPECT_EQ(normalizedPlan(*lowered),
            "kernel mm grid=((ceildiv M 64),(ceildiv N 64),1) block=(128,1,1) "
            "smem=70000 num_warps=4 num_stages=3 "
            "constexprs=[BLOCK=64,SCALE=0.5,EVEN=true] "
            "args=[a,M:i32,K:i32,(* 1 K):i64,1:i64,C,M,N,K,(* N 2):i64,"
            "__triton_global_scratch,0:u64]\n"
            "tensormap a tensor=A box=(64,64) swizzle=3 interleave=0 l2=2 "
            "oob=0\n"
            "workspace __triton_global_scratch bytes=(* (* (* 128 (ceildiv M "
            "64)) (ceildiv N 64)) 1) zero=0\n");
  // The lowered plan resolves like any other: the scratch is one 128-byte
  // slot per program.
  auto resolved = resolveLaunchPlan(*lowered, task(), task().dev[0].params);
  ASSERT_TRUE(!!resolved) << llvm::toString(resolved.takeError());
  EXPECT_EQ(resolved->workspaces[0].bytes, 128u * 4 * 8);
  EXPECT_EQ(resolved->kernels[0].block[0], 128u);
  EXPECT_EQ(resolved->kernels[0].args.size(), 12u);
}

TEST(TritonPlanTest, WhatTheHarnessCannotLaunch) {
  toolchain::TritonKernelBuild clusters = build();
  clusters.numCtas = 2;
  auto e = lowerTritonPlan(plan(), task(), clusters);
  ASSERT_FALSE(!!e);
  EXPECT_NE(llvm::toString(e.takeError()).find("CTA clusters"),
            std::string::npos);

  toolchain::TritonKernelBuild decomposed = build();
  decomposed.tensorDescs.clear();
  e = lowerTritonPlan(plan(), task(), decomposed);
  ASSERT_FALSE(!!e);
  EXPECT_NE(llvm::toString(e.takeError())
                .find("sol.py:2:20: error: Triton did not lower descriptor "
                      "'a' to a TMA tensor map"),
            std::string::npos);

  toolchain::TritonKernelBuild wrongType = build();
  wrongType.tensorDescs[0].elemSize = 4;
  e = lowerTritonPlan(plan(), task(), wrongType);
  ASSERT_FALSE(!!e);
  EXPECT_NE(llvm::toString(e.takeError()).find("does not fit tensor 'A'"),
            std::string::npos);
}

TEST(TritonPlanTest, BuildRoundTripsThroughJSON) {
  toolchain::TritonKernelBuild b = build();
  b.params = {{"a_desc", false}, {"BLOCK", true}};
  toolchain::TritonKernelBuild back;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(toJSON(b), back, root));
  EXPECT_EQ(toJSON(back), toJSON(b));
  // Sizes out of range are refused, not wrapped.
  llvm::json::Value bad = toJSON(b);
  (*bad.getAsObject())["num_warps"] = int64_t(1) << 40;
  EXPECT_FALSE(fromJSON(bad, back, root));
}

} // namespace
