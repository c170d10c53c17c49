//===- GpuLockTest.cpp - One worker on a GPU at a time --------------------===//

#include "ptxbench/Runtime/GpuLock.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <thread>

using namespace ptxbench::runtime;

namespace {

TEST(GpuLockTest, SecondHolderWaitsUntilTheFirstLetsGo) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("gpu", "lock", path));
  std::string error;
  GpuLock first, second;
  ASSERT_TRUE(first.tryAcquire(path, error)) << error;
  // Another open of the file is another holder: it cannot take the lock.
  EXPECT_FALSE(second.tryAcquire(path, error));
  EXPECT_TRUE(error.empty()) << error;
  unsigned waits = 0;
  std::thread letGo([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    first.release();
  });
  EXPECT_TRUE(second.acquire(path, [&] { ++waits; }, 10, error)) << error;
  letGo.join();
  EXPECT_GT(waits, 2u); // it said it was waiting meanwhile
  EXPECT_TRUE(second.held());
  llvm::sys::fs::remove(path);
}

TEST(GpuLockTest, PathsNameTheDevice) {
  EXPECT_NE(gpuLockPath("0"), gpuLockPath("1"));
  EXPECT_NE(gpuLockPath("0").find("ptxbench-gpu-0.lock"), std::string::npos);
  EXPECT_NE(gpuLockPath("").find("ptxbench-gpu-default.lock"),
            std::string::npos);
  // No path separators from the id.
  EXPECT_EQ(gpuLockPath("../x").find("../x"), std::string::npos);
  std::string error;
  GpuLock lock;
  EXPECT_FALSE(lock.tryAcquire("/nonexistent-dir/x.lock", error));
  EXPECT_NE(error.find("cannot open the GPU lock"), std::string::npos);
}

} // namespace
