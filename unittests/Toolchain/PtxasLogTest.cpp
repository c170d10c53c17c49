//===- PtxasLogTest.cpp - Parsing ptxas and nvJitLink logs ----------------===//

#include "ptxbench/Toolchain/PtxasLog.h"

#include "gtest/gtest.h"

using namespace ptxbench::toolchain;

namespace {

// ptxas -v style, with a coded note that is not on its own line (nvJitLink
// runs records together) and nvJitLink's own summary at the end.
const char *kLog =
    "ptxas info    : (C7504) Potential Performance Loss: 'setmaxnreg' ignored "
    "to maintain compatibility across compilation units.\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'gemm' for 'sm_90a'\n"
    "ptxas info    : Function properties for gemm\n"
    "ptxas         .     0 bytes stack frame, 8 bytes spill stores, 12 bytes "
    "spill loads\n"
    "ptxas info    : Used 168 registers, used 1 barriers, 12 bytes smem\n"
    "ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async "
    "instructions are serialized due to insufficient register resources for "
    "the wgmma pipeline in the function 'gemm'"
    "ptxas warning : Registers are spilled to local memory in function "
    "'gemm', 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Compile time = 6.291 ms\n"
    "info    : Function properties for 'gemm':\n"
    "info    : used 168 registers, used 1 barriers, 0 stack, 1036 bytes smem, "
    "536 bytes cmem[0], 16 bytes lmem\n";

TEST(PtxasLog, ResourcesPerKernel) {
  PtxasLog log = parsePtxasLog(kLog);
  ASSERT_EQ(log.kernels.size(), 1u);
  const KernelResources *gemm = log.kernel("gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_TRUE(gemm->entry);
  EXPECT_EQ(gemm->registers, 168u);
  EXPECT_EQ(gemm->barriers, 1u);
  EXPECT_EQ(gemm->spillStoreBytes, 8u);
  EXPECT_EQ(gemm->spillLoadBytes, 12u);
  EXPECT_EQ(gemm->sharedBytes, 12u) << "ptxas's own figure, not nvJitLink's";
  EXPECT_EQ(gemm->localBytes, 16u);
  EXPECT_EQ(log.kernel("other"), nullptr);
}

TEST(PtxasLog, MessagesWithCodesAndKernels) {
  PtxasLog log = parsePtxasLog(kLog);
  ASSERT_EQ(log.messages.size(), 3u);
  EXPECT_EQ(log.messages[0].code, "C7504");
  EXPECT_EQ(classifyPtxasMessage(log.messages[0]), "setmaxnreg-ignored");
  EXPECT_EQ(log.messages[0].kernel, "");
  EXPECT_EQ(log.messages[1].code, "C7511");
  EXPECT_EQ(log.messages[1].kernel, "gemm");
  EXPECT_EQ(classifyPtxasMessage(log.messages[1]), "wgmma-serialized");
  EXPECT_EQ(log.messages[2].severity, PtxasMessage::Severity::Warning);
  EXPECT_EQ(log.messages[2].kernel, "gemm");
  EXPECT_EQ(classifyPtxasMessage(log.messages[2]), "spills");
}

// Standalone `ptxas -v` writes the stack line without a marker.
TEST(PtxasLog, StandalonePtxasFormat) {
  PtxasLog log = parsePtxasLog(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'expert_gemm' for 'sm_90a'\n"
      "ptxas info    : Function properties for expert_gemm\n"
      "    16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 1024 bytes smem\n"
      "ptxas info    : Compile time = 37.241 ms\n");
  ASSERT_EQ(log.kernels.size(), 1u);
  const KernelResources &k = log.kernels.front();
  EXPECT_EQ(k.name, "expert_gemm");
  EXPECT_TRUE(k.entry);
  EXPECT_EQ(k.registers, 168u);
  EXPECT_EQ(k.sharedBytes, 1024u);
  EXPECT_EQ(k.stackBytes, 16u);
  EXPECT_EQ(k.spillStoreBytes, 4u);
  EXPECT_EQ(k.spillLoadBytes, 8u);
  EXPECT_TRUE(log.messages.empty());
}

TEST(PtxasLog, Errors) {
  PtxasLog log = parsePtxasLog(
      "ptxas application ptx input, line 12; error   : Unknown symbol 'x'\n"
      "ptxas fatal   : Ptx assembly aborted due to errors\n");
  ASSERT_EQ(log.messages.size(), 2u);
  EXPECT_EQ(log.messages[0].severity, PtxasMessage::Severity::Error);
  EXPECT_EQ(log.messages[0].text, "Unknown symbol 'x'");
  EXPECT_EQ(log.messages[0].ptxLine, 12u);
  EXPECT_EQ(log.messages[1].text, "Ptx assembly aborted due to errors");
  EXPECT_EQ(log.messages[1].ptxLine, 0u);
  EXPECT_TRUE(parsePtxasLog("").messages.empty());
}

} // namespace
