//===- LaunchPlanTest.cpp - Tests of the `// @ptxbench` launch plan -------===//

#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Task/Task.h"

#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

const char *taskJson = R"json({
  "name": "gemm_bf16",
  "params": ["M", "N", "K"],
  "tensors": [
    {"name": "A", "dtype": "bf16", "shape": ["M", "K"], "role": "input"},
    {"name": "B", "dtype": "bf16", "shape": ["K", "N"], "role": "input"},
    {"name": "C", "dtype": "bf16", "shape": ["M", "N"], "role": "output"}
  ],
  "workloads": {"dev": [{"M": 256, "N": 512, "K": 128}],
                "heldout": [{"M": 1000, "N": 1000, "K": 1000}]},
  "check": {"tolerance": {"bf16": {"atol": 0.01, "rtol": 0.01}}},
  "flops": "2*M*N*K", "bytes": "2*(M*K+K*N+M*N)",
  "reference": "gemm", "operands": {"a": "A", "b": "B", "c": "C"}
})json";

const Task &task() {
  static Task t = [] {
    auto t = parseTask(taskJson, "task.json");
    EXPECT_TRUE(!!t) << (t ? "" : llvm::toString(t.takeError()));
    return std::move(*t);
  }();
  return t;
}

std::string planError(llvm::StringRef source) {
  auto plan = parseLaunchPlan(source, "sol.cu");
  if (plan)
    return "parsed";
  return llvm::toString(plan.takeError());
}

std::string resolveError(llvm::StringRef source) {
  auto plan = parseLaunchPlan(source, "sol.cu");
  if (!plan)
    return "parse: " + llvm::toString(plan.takeError());
  auto r = resolveLaunchPlan(*plan, task(), task().dev[0].params);
  if (r)
    return "resolved";
  return llvm::toString(r.takeError());
}

TEST(LaunchPlanTest, FullPlan) {
  const char *src =
      "#include <cuda_bf16.h>\n"
      "// @ptxbench kernel gemm grid=(ceildiv(N, 128), ceildiv(M,128)) "
      "block=384 cluster=(2,1) smem=4*(128*64*2)\n"
      "//   @ptxbench args tmA, tmB, C, M, N:u32, K*2:i64\n"
      "// @ptxbench tensormap tmA tensor=A box=(128,64) swizzle=128B "
      "l2=256B oob=nan\n"
      "// @ptxbench tensormap tmB tensor=B box=(64, 64) swizzle=128b\n"
      "// @ptxbench workspace flags bytes=4*ceildiv(M,128) zero\n"
      "// @ptxbench workspace sems bytes=4*132 zero=once\n"
      "// @ptxbench workspace scratch bytes=64\n"
      "// @ptxbench kernel fixup grid=1 block=(32,4)\n"
      "// @ptxbench args flags\n"
      "// @ptxbenchmark is not ours\n"
      "extern \"C\" __global__ void gemm() {}\n";
  auto plan = parseLaunchPlan(src, "sol.cu");
  ASSERT_TRUE(!!plan) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->kernels.size(), 2u);
  EXPECT_EQ(plan->kernels[0].name, "gemm");
  EXPECT_EQ(plan->kernels[0].loc.line, 2u);
  EXPECT_EQ(plan->kernels[0].args.size(), 6u);
  EXPECT_EQ(plan->tensorMaps.size(), 2u);
  EXPECT_EQ(plan->tensorMaps[0].swizzle, Swizzle::B128);
  EXPECT_EQ(plan->tensorMaps[0].l2, L2Promotion::B256);
  EXPECT_EQ(plan->tensorMaps[0].oob, OobFill::NaN);
  ASSERT_EQ(plan->workspaces.size(), 3u);
  EXPECT_EQ(plan->workspaces[0].zero, ZeroFill::EveryLaunch);
  EXPECT_EQ(plan->workspaces[1].zero, ZeroFill::Once);
  EXPECT_EQ(plan->workspaces[2].zero, ZeroFill::None);

  auto r = resolveLaunchPlan(*plan, task(), task().dev[0].params);
  ASSERT_TRUE(!!r) << llvm::toString(r.takeError());
  const ResolvedKernel &k = r->kernels[0];
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{4, 2, 1}));
  EXPECT_EQ(k.block, (std::array<uint32_t, 3>{384, 1, 1}));
  EXPECT_EQ(k.cluster, (std::array<uint32_t, 3>{2, 1, 1}));
  EXPECT_TRUE(k.hasCluster);
  EXPECT_EQ(k.smem, 65536u);
  ASSERT_EQ(k.args.size(), 6u);
  EXPECT_EQ(k.args[0].kind, ResolvedArg::Kind::TensorMap);
  EXPECT_EQ(k.args[1].index, 1u);
  EXPECT_EQ(k.args[2].kind, ResolvedArg::Kind::Tensor);
  EXPECT_EQ(k.args[2].index, 2u);
  EXPECT_EQ(k.args[3].kind, ResolvedArg::Kind::Scalar);
  EXPECT_EQ(k.args[3].type, ScalarType::I32);
  EXPECT_EQ(k.args[3].value, 256);
  EXPECT_EQ(k.args[4].type, ScalarType::U32);
  EXPECT_EQ(k.args[5].type, ScalarType::I64);
  EXPECT_EQ(k.args[5].value, 256);
  EXPECT_EQ(r->kernels[1].args[0].kind, ResolvedArg::Kind::Workspace);
  EXPECT_EQ(r->workspaces[0].bytes, 8u);
  EXPECT_EQ(r->workspaces[1].bytes, 528u);
  EXPECT_EQ(r->workspaces[1].zero, ZeroFill::Once);
  EXPECT_EQ(r->tensorMaps[0].box, (std::vector<uint32_t>{128, 64}));
}

TEST(LaunchPlanTest, PtxCommentsAndNoArgs) {
  auto plan = parseLaunchPlan(".version 8.0\n"
                              "// @ptxbench kernel k grid=M block=128\n"
                              "// @ptxbench args\n",
                              "k.ptx");
  ASSERT_TRUE(!!plan) << llvm::toString(plan.takeError());
  EXPECT_TRUE(plan->kernels[0].args.empty());
}

TEST(LaunchPlanTest, SyntaxErrors) {
  EXPECT_EQ(planError("int x;\n"),
            "sol.cu: error: no launch plan: expected at least one "
            "'// @ptxbench kernel NAME grid=... block=...' line (see "
            "docs/launch-plan.md)");
  EXPECT_EQ(planError("// @ptxbench\n"),
            "sol.cu:1:13: error: empty @ptxbench line; expected kernel, args, "
            "tensormap or workspace");
  EXPECT_EQ(planError("// @ptxbench launch k\n"),
            "sol.cu:1:14: error: unknown statement 'launch'; expected kernel, "
            "args, tensormap or workspace");
  EXPECT_EQ(planError("// @ptxbench args A\n"),
            "sol.cu:1:14: error: 'args' before any 'kernel' line");
  EXPECT_EQ(planError("// @ptxbench kernel\n"),
            "sol.cu:1:14: error: expected 'kernel NAME grid=... block=...'");
  EXPECT_EQ(planError("// @ptxbench kernel 9k grid=1 block=1\n"),
            "sol.cu:1:21: error: expected a kernel name, got '9k'");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=1\n// @ptxbench args\n"),
            "sol.cu:1:21: error: kernel 'k' needs block=...");
  EXPECT_EQ(planError("// @ptxbench kernel k block=1\n"),
            "sol.cu:1:21: error: kernel 'k' needs grid=...");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=1 block=1\n"),
            "sol.cu:1:21: error: kernel 'k' has no 'args' line (write 'args' "
            "alone for a kernel without parameters)");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=1 grid=2 block=1\n"),
            "sol.cu:1:30: error: 'grid' given twice");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=1 block=1 threads=4\n"),
            "sol.cu:1:38: error: unknown kernel key 'threads'; expected grid, "
            "block, cluster or smem");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=M / 2 block=1\n"),
            "sol.cu:1:30: error: expected key=value, got '/' (spaces are "
            "allowed only inside parentheses)");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=(1,2,3,4) block=1\n"),
            "sol.cu:1:28: error: grid takes 1 to 3 dimensions (x, y, z), "
            "got 4");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=(1,,2) block=1\n"),
            "sol.cu:1:31: error: empty element in list");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=(M+ block=1\n"),
            "sol.cu:1:39: error: missing ')'");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=M) block=1\n"),
            "sol.cu:1:29: error: unbalanced ')'");
  EXPECT_EQ(planError("// @ptxbench kernel k grid= block=1\n"),
            "sol.cu:1:28: error: expected a value after '='");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=(M+*2) block=1\n"),
            "sol.cu:1:31: error: unexpected '*'; expected a number, a name "
            "or '('");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=1 block=1\n"
                      "// @ptxbench args A,,B\n"),
            "sol.cu:2:21: error: empty argument");
  EXPECT_EQ(planError("// @ptxbench kernel k grid=1 block=1\n"
                      "// @ptxbench args M:f32\n"),
            "sol.cu:2:21: error: unknown scalar type 'f32'; expected i32, "
            "u32, i64 or u64");
  EXPECT_EQ(planError("// @ptxbench tensormap t box=(1)\n"),
            "sol.cu:1:24: error: tensormap 't' needs tensor=NAME");
  EXPECT_EQ(planError("// @ptxbench tensormap t tensor=A\n"),
            "sol.cu:1:24: error: tensormap 't' needs box=(...)");
  EXPECT_EQ(planError("// @ptxbench tensormap t tensor=A box=8 swizzle=256B\n"),
            "sol.cu:1:49: error: unknown swizzle '256B'; expected none, 32B, "
            "64B, 128B");
  EXPECT_EQ(
      planError("// @ptxbench tensormap t tensor=A box=8 interleave=8B\n"),
      "sol.cu:1:52: error: unknown interleave '8B'; expected none, 16B, "
      "32B");
  EXPECT_EQ(planError("// @ptxbench tensormap t tensor=A box=8 l2=512B\n"),
            "sol.cu:1:44: error: unknown l2 promotion '512B'; expected none, "
            "64B, 128B, 256B");
  EXPECT_EQ(planError("// @ptxbench tensormap t tensor=A box=8 oob=inf\n"),
            "sol.cu:1:45: error: unknown oob fill 'inf'; expected zero, nan");
  EXPECT_EQ(planError("// @ptxbench tensormap t tensor=A box=8 mode=im2col\n"),
            "sol.cu:1:41: error: unknown tensormap key 'mode'; expected "
            "tensor, box, swizzle, interleave, l2 or oob");
  EXPECT_EQ(planError("// @ptxbench workspace w\n"),
            "sol.cu:1:24: error: workspace 'w' needs bytes=EXPR");
  EXPECT_EQ(planError("// @ptxbench workspace w bytes=4 zeroed\n"),
            "sol.cu:1:34: error: expected key=value, got 'zeroed' (spaces are "
            "allowed only inside parentheses)");
  EXPECT_EQ(planError("// @ptxbench workspace w size=4\n"),
            "sol.cu:1:26: error: unknown workspace key 'size'; expected "
            "bytes=EXPR, zero or zero=once");
  EXPECT_EQ(planError("// @ptxbench workspace w bytes=4 zero=twice\n"),
            "sol.cu:1:39: error: unknown zero fill 'twice'; expected zero "
            "(before every launch) or zero=once (at allocation)");
  EXPECT_EQ(planError("// @ptxbench workspace w bytes=4\n"
                      "// @ptxbench workspace w bytes=8\n"),
            "sol.cu:2:24: error: 'w' is declared twice");
}

TEST(LaunchPlanTest, ResolveErrors) {
  const char *k = "// @ptxbench kernel k grid=1 block=128\n";
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args A, Q\n"),
            "sol.cu:2:22: error: unknown name 'Q' (known: K, M, N); buffers: "
            "A, B, C");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args A:i64\n"),
            "sol.cu:2:19: error: 'A' is not a scalar; drop the ':i64'");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args M*M*M*M:i32\n"),
            "sol.cu:2:19: error: value 4294967296 of 'M*M*M*M' does not fit "
            "i32");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args M-300:u32\n"),
            "sol.cu:2:19: error: value -44 of 'M-300' does not fit u32");
  EXPECT_EQ(resolveError("// @ptxbench kernel k grid=(N/1024) block=1\n"
                         "// @ptxbench args\n"),
            "sol.cu:1:29: error: grid dimension 'N/1024' is 0 here; it must be "
            "in [1, 2147483647]");
  EXPECT_EQ(resolveError("// @ptxbench kernel k grid=1 block=(32,32,2)\n"
                         "// @ptxbench args\n"),
            "sol.cu:1:37: error: block has 2048 threads; at most 1024");
  EXPECT_EQ(resolveError("// @ptxbench kernel k grid=3 block=1 cluster=2\n"
                         "// @ptxbench args\n"),
            "sol.cu:1:46: error: grid dimension 3 is not a multiple of the "
            "cluster dimension 2");
  EXPECT_EQ(resolveError("// @ptxbench kernel k grid=1 block=1 smem=M*1024\n"
                         "// @ptxbench args\n"),
            "sol.cu:1:43: error: dynamic shared memory 'M*1024' is 262144 "
            "bytes here; at most 232448");
  EXPECT_EQ(resolveError("// @ptxbench kernel k grid=1 block=1 smem=K/0\n"
                         "// @ptxbench args\n"),
            "sol.cu:1:43: error: division by zero in 'K/0'");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args t\n" +
                         "// @ptxbench tensormap t tensor=D box=(8,8)\n"),
            "sol.cu:3:33: error: unknown tensor 'D' (task tensors: A, B, C)");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args t\n" +
                         "// @ptxbench tensormap t tensor=A box=(8,8,8)\n"),
            "sol.cu:3:24: error: box has 3 sizes but tensor 'A' has rank 2");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args t\n" +
                         "// @ptxbench tensormap t tensor=A box=(8,300)\n"),
            "sol.cu:3:42: error: box size '300' is 300 here; it must be in "
            "[1, 256]");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args t\n" +
                         "// @ptxbench tensormap t tensor=A box=(8,4)\n"),
            "sol.cu:3:42: error: the innermost box size times the element "
            "size (8 bytes) must be a multiple of 16");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args t\n" +
                         "// @ptxbench tensormap t tensor=A box=(8,128) "
                         "swizzle=128B\n"),
            "sol.cu:3:42: error: the innermost box is 256 bytes, more than "
            "the 128-byte swizzle span");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args A\n" +
                         "// @ptxbench tensormap C tensor=A box=(8,8)\n"),
            "sol.cu:3:24: error: tensor map 'C' hides a task tensor or "
            "parameter");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args A\n" +
                         "// @ptxbench workspace M bytes=4\n"),
            "sol.cu:3:24: error: workspace 'M' hides a task tensor or "
            "parameter");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args A\n" +
                         "// @ptxbench workspace w bytes=-4\n"),
            "sol.cu:3:32: error: workspace size '-4' is -4 bytes here");
  // A wrong kernel must not shift the blame to the harness by asking for
  // more scratch than any honest kernel needs: the plan's error, not a
  // failed allocation on the GPU.
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args A\n" +
                         "// @ptxbench workspace small bytes=1024\n" +
                         "// @ptxbench workspace huge bytes=1099511627776\n"),
            "sol.cu:4:35: error: workspace 'huge' brings the plan's "
            "workspaces to 1099511628800 bytes here, above the limit of "
            "1073741824 bytes (4 times the task's tensors, at least 1 GiB)");
  EXPECT_EQ(resolveError(std::string(k) + "// @ptxbench args A\n" +
                         "// @ptxbench workspace a bytes=1073741824\n"),
            "resolved");
}

} // namespace
