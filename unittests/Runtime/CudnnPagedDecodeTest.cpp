//===- CudnnPagedDecodeTest.cpp - Tests of the paged-decode baseline ------===//
//
// The pure parts everywhere: how the task's tensors are described to cuDNN
// (the token-major caches as cuDNN's [pages, HKV, PS, D] containers through
// their strides, the page table, Q/O, the stats) and the shapes refused
// before anything is loaded. Building the graph needs libcudnn 9.5+, the
// CUDA runtime and a GPU: without them the factory must say what is missing
// (the test skips with that reason); built without the frontend it says how
// to get it, as the SDPA baseline does.
//
//===----------------------------------------------------------------------===//

#include "CudnnPagedDecode.h"
#include "CudnnSdpa.h"

#include "gtest/gtest.h"

#include <cmath>
#include <iostream>
#include <limits>
#include <tuple>

using namespace ptxbench::runtime;

namespace {

/// The shape of B sequences of L tokens in pages of PS, each page used
/// once, as the tasks lay them out.
PagedDecodeShape shape(int64_t b, int64_t hq, int64_t hkv, int64_t d,
                       int64_t ps, int64_t l) {
  PagedDecodeShape s;
  s.batch = b;
  s.qHeads = hq;
  s.kvHeads = hkv;
  s.headDim = d;
  s.pageSize = ps;
  s.seqLen = l;
  s.pagesPerSeq = ps > 0 ? (l + ps - 1) / ps : 0;
  s.pages = b * s.pagesPerSeq;
  s.scale = sdpaDefaultScale(d);
  return s;
}

std::string validationError(const PagedDecodeShape &s) {
  if (llvm::Error e = validatePagedDecodeShape(s))
    return llvm::toString(std::move(e));
  return "";
}

int64_t offset(const CudnnTensorLayout &l, std::array<int64_t, 4> at) {
  int64_t o = 0;
  for (int i = 0; i < 4; ++i)
    o += at[i] * l.strides[i];
  return o;
}

TEST(CudnnPagedDecodeTest, CacheIsTheContainerThroughStrides) {
  PagedDecodeShape s = shape(2, 32, 8, 128, 64, 100);
  CudnnTensorLayout cache = pagedCacheLayout(s);
  EXPECT_EQ(cache.dims, (std::array<int64_t, 4>{4, 8, 64, 128}));
  EXPECT_EQ(cache.strides,
            (std::array<int64_t, 4>{64 * 8 * 128, 128, 8 * 128, 1}));
  // Element (page, head, slot, d) of cuDNN's container is element [page,
  // slot, head, d] of the task's row-major [pages, PS, HKV, D] cache.
  for (int64_t page : {0, 3})
    for (int64_t head : {0, 5, 7})
      for (int64_t slot : {0, 1, 63})
        for (int64_t d : {0, 127})
          EXPECT_EQ(offset(cache, {page, head, slot, d}),
                    ((page * 64 + slot) * 8 + head) * 128 + d);
  // PS = 1: a page is one token's HKV rows.
  CudnnTensorLayout one = pagedCacheLayout(shape(3, 32, 8, 128, 1, 7));
  EXPECT_EQ(one.dims, (std::array<int64_t, 4>{21, 8, 1, 128}));
  EXPECT_EQ(one.strides, (std::array<int64_t, 4>{1024, 128, 1024, 1}));
}

TEST(CudnnPagedDecodeTest, OtherTensorLayouts) {
  PagedDecodeShape s = shape(2, 24, 4, 128, 64, 130);
  EXPECT_EQ(pageTableLayout(s),
            (CudnnTensorLayout{{2, 1, 3, 1}, {3, 3, 1, 1}}));
  EXPECT_EQ(decodeQueryLayout(s),
            (CudnnTensorLayout{{2, 24, 1, 128}, {24 * 128, 128, 128, 1}}));
  EXPECT_EQ(decodeStatsLayout(s),
            (CudnnTensorLayout{{2, 24, 1, 1}, {24, 1, 1, 1}}));
  EXPECT_EQ(seqLenLayout(s), (CudnnTensorLayout{{2, 1, 1, 1}, {1, 1, 1, 1}}));
}

TEST(CudnnPagedDecodeTest, AcceptsTheTasksShapes) {
  for (auto [hq, hkv, ps] :
       {std::tuple{32, 8, 1}, std::tuple{32, 4, 64}, std::tuple{24, 4, 64}})
    for (auto [b, l] :
         {std::pair{1, 8192}, std::pair{128, 513}, std::pair{2, 100}})
      EXPECT_EQ(validationError(shape(b, hq, hkv, 128, ps, l)), "")
          << hq << "/" << hkv << " PS=" << ps << " B=" << b << " L=" << l;
}

TEST(CudnnPagedDecodeTest, RefusesBadShapes) {
  auto refused = [](PagedDecodeShape s, const char *why) {
    std::string msg = validationError(s);
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
    EXPECT_NE(msg.find(describePagedDecodeShape(s)), std::string::npos) << msg;
  };
  refused(shape(2, 32, 5, 128, 1, 10), "multiple of the KV heads");
  refused(shape(2, 24, 16, 128, 1, 10), "multiple of the KV heads");
  for (int64_t d : {0, 4, 100, 264, 512})
    refused(shape(2, 32, 8, d, 1, 10), "head dimension");
  for (int64_t ps : {0, -64}) {
    PagedDecodeShape s = shape(2, 32, 8, 128, 1, 10);
    s.pageSize = ps;
    refused(s, "page size");
  }
  for (PagedDecodeShape s :
       {shape(0, 32, 8, 128, 1, 10), shape(2, 0, 8, 128, 1, 10),
        shape(2, 32, 0, 128, 1, 10), shape(2, 32, 8, 128, 1, 0)})
    refused(s, "at least 1");
  // The page table must have ceildiv(L, PS) columns: 2 for L = 100 at 64.
  PagedDecodeShape table = shape(2, 32, 8, 128, 64, 100);
  for (int64_t columns : {1, 3, 100}) {
    table.pagesPerSeq = columns;
    refused(table, "ceildiv(L, PS) = 2");
  }
  PagedDecodeShape scale = shape(2, 32, 8, 128, 64, 100);
  for (float f : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::infinity()}) {
    scale.scale = f;
    refused(scale, "scale");
  }
  refused(shape(1, 32, 8, 128, 1, int64_t(1) << 32), "int32");
  PagedDecodeShape huge = shape(1, 32, 8, 128, int64_t(1) << 40, 1);
  huge.pages = int64_t(1) << 30;
  refused(huge, "too large");
}

/// A bad shape is refused before any library is loaded, in every build.
TEST(CudnnPagedDecodeTest, FactoryRefusesBadShapes) {
  auto made = CudnnPagedDecode::create(shape(2, 32, 5, 128, 1, 10), nullptr);
  ASSERT_FALSE(made);
  EXPECT_NE(llvm::toString(made.takeError()).find("multiple of the KV heads"),
            std::string::npos);
}

/// Builds the graph, or says why not and skips: no cuDNN (or one older
/// than 9.5), no GPU, or no frontend at build time (then with the SDPA
/// baseline's "how to get it").
void buildOrSkip(const PagedDecodeShape &s) {
  auto made = CudnnPagedDecode::create(s, nullptr);
  if (!made) {
    std::string msg = llvm::toString(made.takeError());
    EXPECT_NE(msg.find("cuDNN paged decode (" + describePagedDecodeShape(s)),
              std::string::npos)
        << msg;
    if (llvm::Error load = CudnnSdpa::load()) {
      EXPECT_NE(msg.find(llvm::toString(std::move(load))), std::string::npos)
          << msg;
    }
    GTEST_SKIP() << msg;
  }
  EXPECT_EQ(describePagedDecodeShape((*made)->shape()),
            describePagedDecodeShape(s));
  EXPECT_FALSE((*made)->planName().empty());
  std::cout << describePagedDecodeShape(s) << ": plan " << (*made)->planName()
            << ", workspace " << (*made)->workspaceBytes() << " bytes\n";
}

TEST(CudnnPagedDecodeTest, BuildsTokenPagesOrSaysWhy) {
  buildOrSkip(shape(2, 32, 8, 128, 1, 100));
}

TEST(CudnnPagedDecodeTest, BuildsPartlyFilledPagesOrSaysWhy) {
  buildOrSkip(shape(2, 24, 4, 128, 64, 100));
}

} // namespace
