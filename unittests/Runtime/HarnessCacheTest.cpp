//===- HarnessCacheTest.cpp - The harness's files between runs ------------===//
//
// Keys that tell different inputs apart, and files written whole or not at
// all under $PTXBENCH_CACHE.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/HarnessCache.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace ptxbench::runtime;

namespace {

TEST(HarnessCacheTest, KeysTellPartsApart) {
  EXPECT_EQ(cacheKey({"a", "bc"}), cacheKey({"a", "bc"}));
  // The same bytes split differently are different keys.
  EXPECT_NE(cacheKey({"a", "bc"}), cacheKey({"ab", "c"}));
  EXPECT_NE(cacheKey({"a"}), cacheKey({"a", ""}));
  EXPECT_EQ(cacheKey({}).size(), 64u);
}

TEST(HarnessCacheTest, WriteThenRead) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("harness-cache", dir));
  setenv("PTXBENCH_CACHE", dir.c_str(), 1);
  EXPECT_EQ(harnessCacheDir(), std::string(dir));
  EXPECT_FALSE(readCached("missing.bin"));
  std::string bytes("with\0a NUL", 10);
  std::string error;
  ASSERT_TRUE(writeCached("k.bin", bytes, &error)) << error;
  EXPECT_EQ(readCached("k.bin"), bytes);
  // No folders in names: nothing outside the cache is read or written.
  EXPECT_FALSE(writeCached("../k.bin", bytes, &error));
  EXPECT_FALSE(readCached("../k.bin"));
  // Nothing but the file is left behind (no temporary).
  std::error_code ec;
  unsigned files = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    ++files;
  EXPECT_EQ(files, 1u);
  unsetenv("PTXBENCH_CACHE");
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
