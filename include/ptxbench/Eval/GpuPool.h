//===- GpuPool.h - GPUs handed out one run at a time ------------*- C++ -*-===//
//
// The GPUs a sweep or a generate run may use (CUDA_VISIBLE_DEVICES ids):
// a worker takes one for a run and gives it back. Each GPU can be handed
// to `runsPerGpu` runs at once: their workers take turns on the device
// through its lock (Runtime/GpuLock.h), so one run compiles, imports and
// assembles while another times.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_GPUPOOL_H
#define PTXBENCH_EVAL_GPUPOOL_H

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace ptxbench::eval {

class GpuPool {
public:
  explicit GpuPool(const std::vector<std::string> &ids,
                   unsigned runsPerGpu = 1) {
    for (unsigned i = 0; i < std::max(1u, runsPerGpu); ++i)
      free.insert(free.end(), ids.begin(), ids.end());
  }
  /// Waits for a free GPU and takes it.
  std::string acquire() {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return !free.empty(); });
    std::string id = free.back();
    free.pop_back();
    return id;
  }
  void release(std::string id) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      free.push_back(std::move(id));
    }
    cv.notify_one();
  }

private:
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> free;
};

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_GPUPOOL_H
