//===- GpuLock.h - One worker on a GPU at a time ----------------*- C++ -*-===//
//
// Runs of `ptxbench run` that share a GPU (a sweep runs two per GPU, so one
// compiles and assembles while the other times) each take the GPU's lock
// file before their worker touches the device and hold it until the worker
// exits: the GPU part of the runs never overlaps, the CPU part does. An
// flock on a file, released by the kernel when the process ends however it
// ends.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_GPULOCK_H
#define PTXBENCH_RUNTIME_GPULOCK_H

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>

namespace ptxbench::runtime {

class GpuLock {
public:
  GpuLock() = default;
  GpuLock(const GpuLock &) = delete;
  GpuLock &operator=(const GpuLock &) = delete;
  ~GpuLock() { release(); }

  /// Takes the lock at `path`, calling `waiting` about every `everyMs`
  /// while another process holds it (the worker reports progress there, so
  /// its watchdog does not take the wait for a hang). False, with `error`,
  /// when the file cannot be opened.
  bool acquire(llvm::StringRef path, const std::function<void()> &waiting,
               unsigned everyMs, std::string &error);
  /// Takes the lock if it is free now.
  bool tryAcquire(llvm::StringRef path, std::string &error);
  void release();
  bool held() const { return fd >= 0; }

private:
  int fd = -1;
};

/// The lock file of GPU `id` (a CUDA_VISIBLE_DEVICES value; "" for the
/// default device) in the system's temporary folder.
std::string gpuLockPath(llvm::StringRef id);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_GPULOCK_H
