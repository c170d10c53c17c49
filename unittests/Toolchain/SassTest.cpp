//===- SassTest.cpp - nvdisasm listings and family confirmation -----------===//

#include "ptxbench/Toolchain/Sass.h"
#include "ptxbench/Toolchain/Assembler.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace ptxbench;
using namespace ptxbench::toolchain;

namespace {

const char *kListing =
    "\t.section\t.text.gemm,\"ax\",@progbits\n"
    ".text.gemm:\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
    "        /*0010*/                   UTMALDG.2D [UR8], [UR4] ;\n"
    "        /*0020*/              @!P0 HGMMA.64x128x16.F32.BF16 R24, "
    "gdesc[UR4], R24 ;\n"
    "        /*0030*/                   HGMMA.64x128x16.F32.BF16 R24, "
    "gdesc[UR4], R24, gsb0 ;\n"
    "        /*0040*/                   EXIT ;\n"
    ".text.copy:\n"
    "        /*0000*/                   LDGSTS.E.BYPASS.128 [R2], "
    "desc[UR4][R4.64] ;\n"
    "        /*0010*/                   HMMA.16816.F32.BF16 R8, R12, R16, R8 "
    ";\n";

TEST(Sass, ParsesFunctionsAndOpcodes) {
  SassListing listing = parseNvdisasm(kListing);
  ASSERT_EQ(listing.functions.size(), 2u);
  const SassFunction *gemm = listing.function("gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->opcodes.lookup("HGMMA"), 2u);
  EXPECT_EQ(gemm->opcodes.lookup("UTMALDG"), 1u);
  EXPECT_EQ(gemm->opcodes.lookup("EXIT"), 1u);
  EXPECT_EQ(listing.function("missing"), nullptr);
}

TEST(Sass, ConfirmsFamiliesFromTheISATable) {
  SassListing listing = parseNvdisasm(kListing);
  const SassFunction &gemm = *listing.function("gemm");
  const SassFunction &copy = *listing.function("copy");
  EXPECT_EQ(sassCount(gemm, isa::Family::Wgmma), 2u);
  EXPECT_EQ(sassCount(gemm, isa::Family::Tma), 1u);
  EXPECT_EQ(sassCount(gemm, isa::Family::MmaSync), 0u);
  EXPECT_EQ(sassCount(copy, isa::Family::Wgmma), 0u);
  EXPECT_EQ(sassCount(copy, isa::Family::MmaSync), 1u);
  EXPECT_EQ(sassCount(copy, isa::Family::CpAsync), 1u);
}

// End to end on a corpus kernel: assemble with nvJitLink, disassemble with
// nvdisasm, find the wgmma. Skipped, visibly, without the tools.
TEST(Sass, AssembleAndDisassembleCorpusKernel) {
  if (!canAssemble())
    GTEST_SKIP() << "this build has no nvJitLink";
  std::optional<std::string> nvdisasm = findNvdisasm();
  if (!nvdisasm)
    GTEST_SKIP() << "nvdisasm not found (install nvidia-cuda-nvdisasm)";
  auto ptx = llvm::MemoryBuffer::getFile(PTXBENCH_CORPUS_DIR
                                         "/hopper_wgmma.sm_90a.ptx");
  ASSERT_TRUE(bool(ptx));
  AssembledModule module = assemblePTX((*ptx)->getBuffer(), "sm_90a");
  ASSERT_TRUE(module.ok) << module.errorLog;
  EXPECT_NE(module.log.kernel("wgmma_f16"), nullptr);
  auto listing = disassemble(module.cubin, *nvdisasm);
  ASSERT_TRUE(bool(listing)) << llvm::toString(listing.takeError());
  const SassFunction *f16 = listing->function("wgmma_f16");
  ASSERT_NE(f16, nullptr);
  EXPECT_GT(sassCount(*f16, isa::Family::Wgmma), 0u);
  EXPECT_EQ(sassCount(*f16, isa::Family::MmaSync), 0u);
}

TEST(Sass, AssemblyErrorsComeBackInTheLog) {
  if (!canAssemble())
    GTEST_SKIP() << "this build has no nvJitLink";
  AssembledModule module =
      assemblePTX(".version 8.7\n.target sm_90a\n.address_size 64\n"
                  ".visible .entry k()\n{\n\tbogus.op;\n\tret;\n}\n",
                  "sm_90a");
  EXPECT_FALSE(module.ok);
  EXPECT_TRUE(module.cubin.empty());
  EXPECT_FALSE(module.errorLog.empty());
}

} // namespace
