//===- KernelSourcesTest.cpp - The embedded kernels are the files ---------===//
//
// The harness compiles its own kernels from the copies the build embeds
// (BuiltinKernels.h, AttentionKernels.h): each must be its file under
// lib/Runtime/kernels/ byte for byte, and the attention references'
// translation unit must be builtin.cu followed by attention.cu.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernels.h"
#include "BuiltinKernels.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

std::string kernelFile(llvm::StringRef name) {
  std::string path =
      std::string(PTXBENCH_SOURCE_DIR) + "/lib/Runtime/kernels/" + name.str();
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  EXPECT_TRUE(bool(buffer)) << path;
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

TEST(KernelSourcesTest, BuiltinIsTheFile) {
  std::string file = kernelFile("builtin.cu");
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(builtinKernelsSource.size(), file.size());
  EXPECT_TRUE(builtinKernelsSource == file);
  EXPECT_TRUE(builtinKernelsSource.contains("ptxbench_init("));
}

TEST(KernelSourcesTest, AttentionIsTheFile) {
  std::string file = kernelFile("attention.cu");
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(attentionKernelsSource.size(), file.size());
  EXPECT_TRUE(attentionKernelsSource == file);
  EXPECT_TRUE(attentionKernelsSource.contains("ptxbench_attn_fwd_ref("));
}

TEST(KernelSourcesTest, AttentionUnitFollowsBuiltin) {
  std::string unit = attentionKernelsUnit();
  EXPECT_EQ(unit, kernelFile("builtin.cu") + kernelFile("attention.cu"));
  // What attention.cu takes from builtin.cu is defined before it is used.
  size_t attention = unit.size() - attentionKernelsSource.size();
  for (llvm::StringRef name : {"typedef unsigned short u16;", "bf16ToF(",
                               "fToBf16("})
    EXPECT_LT(unit.find(name.str()), attention) << name.str();
}

TEST(KernelSourcesTest, EmbeddedTextEndsWithZero) {
  // NVRTC reads the source as a C string.
  EXPECT_EQ(builtinKernelsSource.data()[builtinKernelsSource.size()], '\0');
  EXPECT_EQ(attentionKernelsSource.data()[attentionKernelsSource.size()], '\0');
}

} // namespace
