//===- Gpu.h - The harness's device: context, stream, built-ins -*- C++ -*-===//
//
// What every part of a worker shares: the CUDA driver and libraries (loaded
// at run time), the device's primary context and the harness's own stream,
// the harness's built-in kernels (input generation and the fp32
// references), device buffers, and the failure type every step returns.
// Included only when the CUDA headers were found.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_GPU_H
#define PTXBENCH_LIB_RUNTIME_GPU_H

#include "CudaLibs.h"

#include "ptxbench/Runtime/Result.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <functional>
#include <vector>
#include <optional>
#include <string>

namespace ptxbench::runtime {

/// A failed step: its status and message; `contextLost` when the CUDA
/// context is unusable afterwards (a fault inside a kernel).
struct Failure {
  Status status;
  std::string message;
  bool contextLost = false;
};
using MaybeFail = std::optional<Failure>;

#define TRY(expr)                                                              \
  if (::ptxbench::runtime::MaybeFail f_ = (expr))                              \
    return f_;

/// Whether `r` leaves the context unusable (a fault inside a kernel).
bool isStickyError(CUresult r);

/// The driver JIT's info and error logs as the options of
/// cuModuleLoadDataEx and cuLinkCreate take them.
struct JitLogs {
  std::vector<char> info = std::vector<char>(1 << 16),
                    err = std::vector<char>(1 << 16);
  static constexpr unsigned count = 5;
  CUjit_option options[count] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_LOG_VERBOSE};
  void *values[count] = {info.data(), reinterpret_cast<void *>(info.size()),
                         err.data(), reinterpret_cast<void *>(err.size()),
                         reinterpret_cast<void *>(1)};
  JitLogs() = default;
  JitLogs(const JitLogs &) = delete;
  JitLogs &operator=(const JitLogs &) = delete;
  /// The error log, trimmed.
  std::string errors() const;
  /// Both logs, trimmed, the error log after the info log.
  std::string text() const;
};

/// What the slack of a guarded buffer (the mapped bytes before its start
/// and after its end) is filled with.
constexpr uint8_t slackByte = 0xA5;

struct DeviceBuffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  /// A guarded buffer (Gpu::allocGuarded): the reserved range, its
  /// physical allocation and where that is mapped; zero for cuMemAlloc's.
  CUdeviceptr reserved = 0;
  size_t reservedBytes = 0, mappedBytes = 0;
  CUdeviceptr mapped = 0;
  CUmemGenericAllocationHandle handle = 0;
};

class Gpu {
public:
  cuda::Driver d;
  cuda::CublasLt lt;
  bool haveLt = false;
  std::string ltError;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  std::string name;
  int ccMajor = 0, ccMinor = 0, l2Bytes = 0, smCount = 0;
  /// The built-in kernels: input generation and the GEMM/rmsnorm
  /// references (compiled at init), the attention references (on first use).
  CUmodule builtins = nullptr, attentionBuiltins = nullptr;
  DeviceBuffer flush;
  cublasLtHandle_t ltHandle = nullptr;
  DeviceBuffer ltWorkspace;
  cuda::Nvml nvml;
  cuda::Nvml::Device nvmlDevice = nullptr;
  unsigned maxSmMHz = 0;
  std::string nvmlError, driverVersion;
  int cudaVersion = 0;
  MaybeFail init();
  /// The SM clock and throttle reasons now (invalid without NVML).
  ClockReading readClock();
  MaybeFail check(CUresult r, Status status, const llvm::Twine &what);
  MaybeFail compileCuda(llvm::StringRef source, llvm::StringRef fileName,
                        std::string &ptx, std::string &log);
  MaybeFail loadModule(llvm::StringRef ptx, CUmodule &module, std::string &log);
  /// One of the harness's built-in kernels (kernels/builtin.cu,
  /// kernels/attention.cu) by name.
  MaybeFail builtin(llvm::StringRef kernel, CUfunction &fn);
  MaybeFail alloc(DeviceBuffer &buf, size_t bytes);
  /// Allocates `bytes` between unmapped guard pages (Containment.h's
  /// guardedLayout): its end is the end of the mapped pages where the
  /// 256-byte alignment of its start allows, so an access just past either
  /// end faults instead of reaching a neighbour.
  /// The mapped bytes around the buffer (its slack) are filled with
  /// `slackByte`, so a write there is seen afterwards.
  MaybeFail allocGuarded(DeviceBuffer &buf, size_t bytes);
  /// A guarded buffer for what a submission must never read (the reference
  /// outputs, the baseline's outputs, the reference's intermediates): while
  /// the harness is sealed, no kernel can access it (a read faults).
  MaybeFail allocSealed(DeviceBuffer &buf, size_t bytes);
  /// Makes every sealed buffer inaccessible (`sealed`) or readable and
  /// writable again; the stream must be idle.
  MaybeFail seal(bool sealed);
  /// Makes a guarded buffer (all of its mapping) read-only, or writable.
  MaybeFail setReadOnly(const DeviceBuffer &buf, bool readOnly);
  void free(DeviceBuffer &buf);
  std::string arch() const;

  /// Fills every SM's shared memory with a fixed pattern, so nothing an
  /// earlier launch left there can be read by the next one (shared memory
  /// is not cleared between kernels). Queued on the harness stream.
  MaybeFail scrubSharedMemory();

private:
  llvm::StringMap<CUfunction> builtinCache;
  /// The sealed buffers' mappings (start, bytes).
  std::vector<std::pair<CUdeviceptr, size_t>> sealedRanges;
  bool scrubCoverageChecked = false;
  MaybeFail setAccess(CUdeviceptr ptr, size_t bytes,
                      CUmemAccess_flags flags);
  MaybeFail loadBuiltins(llvm::StringRef source, llvm::StringRef fileName,
                         CUmodule &module);
};

/// Untimed work around each launch of the timing loop (warm-ups
/// included), numbered from 0: `before` is queued ahead of the L2 flush
/// and the start event (rotating inputs, poisoning outputs), `after`
/// behind the stop event (checking the output on the device).
struct TimedHooks {
  std::function<MaybeFail(unsigned launch)> before, after;
};

/// Times `launch` per the task's timing rules: warm-up, then samples each
/// preceded by an L2 reset and flush, until the stopping rule holds over
/// the clean (unthrottled) samples. `launches`, when given, is set to the
/// number of launches made (warm-ups included).
MaybeFail timeLaunches(Gpu &gpu, const Task::Timing &timing,
                       const std::function<MaybeFail()> &launch,
                       TimingStats &out, const TimedHooks *hooks = nullptr,
                       unsigned *launches = nullptr);
/// The best time in ms of `reps` runs of `launch`, after `warmup` runs.
MaybeFail bestTime(Gpu &gpu, const std::function<MaybeFail()> &launch,
                   unsigned warmup, unsigned reps, double &bestMs);

/// Launches built-in kernel `fn` on the harness stream with `args`.
MaybeFail launchBuiltin(Gpu &gpu, CUfunction fn, const unsigned grid[3],
                        const unsigned block[3], unsigned smem, void **args,
                        const llvm::Twine &what);

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_GPU_H
