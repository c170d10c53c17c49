//===- CanonicalHashTest.cpp - Deduplication by canonical form ------------===//
//
// Two kernels that differ only in register names, labels and debug
// directives hash the same; a different instruction changes the hash; and
// hashing leaves the module as it was.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/Transforms/CanonicalForm.h"
#include "ptxbench/Conversion/ImportPTX.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace ptxbench;

namespace {

std::string hashOf(llvm::StringRef ptx, std::string *printedBefore = nullptr,
                   std::string *printedAfter = nullptr) {
  mlir::MLIRContext context;
  context.disableMultithreading();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(ptx, "k.ptx"),
                               llvm::SMLoc());
  mlir::OwningOpRef<ptx::ModuleOp> module = importPTX(sourceMgr, &context);
  EXPECT_TRUE(bool(module));
  if (!module)
    return {};
  auto print = [&](std::string *out) {
    if (out) {
      llvm::raw_string_ostream os(*out);
      module->print(os);
    }
  };
  print(printedBefore);
  std::string hash = ptx::canonicalHash(*module);
  print(printedAfter);
  return hash;
}

const char *kOriginal = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.gt.u32 %p1, %r1, 31;
	@%p1 bra $L__BB0_2;
	add.s32 %r2, %r1, 7;
	cvta.to.global.u64 %rd2, %rd1;
	st.global.u32 [%rd2], %r2;
$L__BB0_2:
	ret;
}
)";

// The same kernel with other names, other label, and debug directives.
const char *kRenamed = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .pred %q<3>;
	.reg .b32 %x<9>;
	.reg .b64 %ptr<5>;
	.loc 1 10 3
	ld.param.u64 %ptr3, [out];
	mov.u32 %x5, %tid.x;
	setp.gt.u32 %q2, %x5, 31;
	@%q2 bra SKIP;
	add.s32 %x8, %x5, 7;
	cvta.to.global.u64 %ptr4, %ptr3;
	st.global.u32 [%ptr4], %x8;
SKIP:
	ret;
}
	.file 1 "/tmp/k.cu"
)";

TEST(CanonicalHash, NamesAndDebugInfoDoNotMatter) {
  std::string a = hashOf(kOriginal), b = hashOf(kRenamed);
  EXPECT_EQ(a.size(), 64u) << "a SHA-256 in hex";
  EXPECT_EQ(a, b);
}

TEST(CanonicalHash, CodeDoes) {
  std::string changed = kOriginal;
  changed.replace(changed.find("add.s32 %r2, %r1, 7"), 19,
                  "add.s32 %r2, %r1, 8");
  EXPECT_NE(hashOf(kOriginal), hashOf(changed));
}

TEST(CanonicalHash, LeavesTheModuleAlone) {
  std::string before, after;
  hashOf(kRenamed, &before, &after);
  EXPECT_EQ(before, after);
}

} // namespace
