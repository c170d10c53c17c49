//===- Gpu.cpp - The harness's device, stream, kernels and timer ----------===//
//
// Setting up a worker's device (context, stream, libraries, the built-in
// kernels compiled with NVRTC), device memory, and the two timers: the
// task's sampled timer and the best-of-N timer of the speed-of-light runs.
//
//===----------------------------------------------------------------------===//

#include "Gpu.h"

#include "ptxbench/Runtime/Harness.h"

#include "AttentionKernels.h"
#include "BuiltinKernels.h"

#include "ptxbench/Runtime/Containment.h"
#include "ptxbench/Runtime/HarnessCache.h"

#include "ptxbench/Toolchain/CudaCompiler.h"

#include <chrono>

using namespace llvm;
using namespace ptxbench::runtime;
using namespace ptxbench::runtime::cuda;

bool ptxbench::runtime::isStickyError(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
  case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    return true;
  default:
    return false;
  }
}

ClockReading Gpu::readClock() {
  ClockReading r;
  if (!nvmlDevice)
    return r;
  unsigned mhz = 0;
  if (nvml.nvmlDeviceGetClockInfo(nvmlDevice, Nvml::clockSM, &mhz))
    return r;
  r.valid = true;
  r.smMHz = mhz;
  unsigned long long reasons = 0;
  if (nvml.getReasons && !nvml.getReasons(nvmlDevice, &reasons))
    r.reasons = reasons;
  return r;
}

MaybeFail Gpu::check(CUresult r, Status status, const Twine &what) {
  if (r == CUDA_SUCCESS)
    return std::nullopt;
  bool sticky = isStickyError(r);
  return Failure{sticky ? Status::RuntimeError : status,
                 (what + ": " + d.describe(r)).str(), sticky};
}

MaybeFail Gpu::alloc(DeviceBuffer &buf, size_t bytes) {
  buf.bytes = bytes;
  return check(d.cuMemAlloc(&buf.ptr, bytes ? bytes : 16), Status::HarnessError,
               "allocating " + Twine(bytes) + " bytes of device memory");
}
MaybeFail Gpu::allocGuarded(DeviceBuffer &buf, size_t bytes) {
  buf = {};
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t granularity = 0;
  TRY(check(d.cuMemGetAllocationGranularity(&granularity, &prop,
                                            CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            Status::HarnessError, "cuMemGetAllocationGranularity"));
  GuardedLayout layout = guardedLayout(bytes, granularity, granularity, 256);
  std::string what =
      "allocating " + std::to_string(bytes) + " bytes between guard pages";
  TRY(check(d.cuMemAddressReserve(&buf.reserved, layout.reservedBytes,
                                  granularity, 0, 0),
            Status::HarnessError, what));
  buf.reservedBytes = layout.reservedBytes;
  if (MaybeFail f =
          check(d.cuMemCreate(&buf.handle, layout.mappedBytes, &prop, 0),
                Status::HarnessError, what)) {
    free(buf);
    return f;
  }
  buf.mapped = buf.reserved + layout.guardBytes;
  if (MaybeFail f =
          check(d.cuMemMap(buf.mapped, layout.mappedBytes, 0, buf.handle, 0),
                Status::HarnessError, what)) {
    buf.mapped = 0;
    free(buf);
    return f;
  }
  buf.mappedBytes = layout.mappedBytes;
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (MaybeFail f =
          check(d.cuMemSetAccess(buf.mapped, layout.mappedBytes, &access, 1),
                Status::HarnessError, what)) {
    free(buf);
    return f;
  }
  buf.ptr = buf.mapped + layout.offset;
  buf.bytes = bytes;
  // The slack around the buffer holds a pattern the per-launch checks
  // compare against (the buffer itself is filled by its owner).
  return check(d.cuMemsetD8Async(buf.mapped, slackByte, buf.mappedBytes,
                                 stream),
               Status::HarnessError, what);
}

MaybeFail Gpu::allocSealed(DeviceBuffer &buf, size_t bytes) {
  TRY(allocGuarded(buf, bytes));
  sealedRanges.push_back({buf.mapped, buf.mappedBytes});
  return std::nullopt;
}

MaybeFail Gpu::setAccess(CUdeviceptr ptr, size_t bytes,
                         CUmemAccess_flags flags) {
  CUmemAccessDesc access = {};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = dev;
  access.flags = flags;
  return check(d.cuMemSetAccess(ptr, bytes, &access, 1), Status::HarnessError,
               "changing the access of the harness's memory");
}

MaybeFail Gpu::seal(bool sealed) {
  for (auto [ptr, bytes] : sealedRanges)
    TRY(setAccess(ptr, bytes,
                  sealed ? CU_MEM_ACCESS_FLAGS_PROT_NONE
                         : CU_MEM_ACCESS_FLAGS_PROT_READWRITE));
  return std::nullopt;
}

MaybeFail Gpu::setReadOnly(const DeviceBuffer &buf, bool readOnly) {
  if (!buf.mapped)
    return Failure{Status::HarnessError,
                   "only a guarded buffer can be made read-only"};
  return setAccess(buf.mapped, buf.mappedBytes,
                   readOnly ? CU_MEM_ACCESS_FLAGS_PROT_READ
                            : CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
}

MaybeFail Gpu::scrubSharedMemory() {
  CUfunction fn;
  TRY(builtin("ptxbench_scrub_shared", fn));
  int smem = 0;
  d.cuDeviceGetAttribute(
      &smem, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
  // One block of the whole shared memory fits an SM, so the idle device
  // gives every SM one of the first smCount blocks; the first scrub of a
  // worker checks that it did.
  DeviceBuffer seen;
  bool checkCoverage = !scrubCoverageChecked;
  if (checkCoverage) {
    TRY(alloc(seen, 4 * 1024));
    TRY(check(d.cuMemsetD8Async(seen.ptr, 0, seen.bytes, stream),
              Status::HarnessError, "scrubbing shared memory"));
  }
  unsigned words = unsigned(smem) / 16;
  CUdeviceptr seenPtr = seen.ptr;
  void *args[] = {&words, &seenPtr};
  unsigned grid[3] = {unsigned(2 * smCount), 1, 1}, block[3] = {1024, 1, 1};
  d.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                       100);
  MaybeFail f = launchBuiltin(*this, fn, grid, block, unsigned(smem), args,
                              "scrubbing shared memory");
  if (f || !checkCoverage)
    return f;
  std::vector<uint32_t> hit(1024);
  f = check(d.cuStreamSynchronize(stream), Status::HarnessError,
            "scrubbing shared memory");
  if (!f)
    f = check(d.cuMemcpyDtoH(hit.data(), seen.ptr, seen.bytes),
              Status::HarnessError, "scrubbing shared memory");
  free(seen);
  if (f)
    return f;
  unsigned covered = 0;
  for (uint32_t h : hit)
    covered += h != 0;
  if (covered < unsigned(smCount))
    return Failure{Status::HarnessError,
                   "the shared-memory scrub reached " +
                       std::to_string(covered) + " of " +
                       std::to_string(smCount) + " SMs"};
  scrubCoverageChecked = true;
  return std::nullopt;
}

void Gpu::free(DeviceBuffer &buf) {
  llvm::erase_if(sealedRanges, [&](const std::pair<CUdeviceptr, size_t> &r) {
    return buf.mapped && r.first == buf.mapped;
  });
  if (buf.reserved) {
    if (buf.mapped && buf.mappedBytes)
      d.cuMemUnmap(buf.mapped, buf.mappedBytes);
    if (buf.handle)
      d.cuMemRelease(buf.handle);
    d.cuMemAddressFree(buf.reserved, buf.reservedBytes);
  } else if (buf.ptr) {
    d.cuMemFree(buf.ptr);
  }
  buf = {};
}
std::string Gpu::arch() const { return archName(ccMajor, ccMinor); }

MaybeFail Gpu::loadBuiltins(StringRef source, StringRef fileName,
                            CUmodule &module) {
  // NVRTC takes seconds on the attention references: its PTX is kept per
  // source, target and toolkit (the driver's own cache keeps the JIT's).
  std::string ptx, log;
  std::string cached = "harness-kernels-" + arch() + "-" +
                       cacheKey({source, arch(), std::to_string(CUDA_VERSION),
                                 driverVersion}) +
                       ".ptx";
  if (std::optional<std::string> hit = readCached(cached)) {
    ptx = std::move(*hit);
  } else if (MaybeFail f = compileCuda(source, fileName, ptx, log)) {
    f->status = Status::HarnessError;
    f->message += "\n" + log;
    return f;
  } else {
    writeCached(cached, ptx); // best effort: a read-only cache costs time only
  }
  if (MaybeFail f = loadModule(ptx, module, log)) {
    f->status = Status::HarnessError;
    return f;
  }
  return std::nullopt;
}

MaybeFail Gpu::builtin(StringRef kernel, CUfunction &fn) {
  auto it = builtinCache.find(kernel);
  if (it != builtinCache.end()) {
    fn = it->second;
    return std::nullopt;
  }
  // The attention references are 10x the rest in PTX and take seconds to
  // compile, so only the workers of attention tasks compile them.
  CUmodule module = builtins;
  if (kernel.starts_with("ptxbench_attn_") ||
      kernel == "ptxbench_f32_to_bf16") {
    if (!attentionBuiltins)
      TRY(loadBuiltins(attentionKernelsUnit(), "ptxbench_attention.cu",
                       attentionBuiltins));
    module = attentionBuiltins;
  }
  TRY(check(d.cuModuleGetFunction(&fn, module, kernel.str().c_str()),
            Status::HarnessError, "the harness's kernel " + kernel));
  builtinCache[kernel] = fn;
  return std::nullopt;
}

MaybeFail ptxbench::runtime::launchBuiltin(Gpu &gpu, CUfunction fn,
                                           const unsigned grid[3],
                                           const unsigned block[3],
                                           unsigned smem, void **args,
                                           const Twine &what) {
  if (smem > 48 * 1024)
    TRY(gpu.check(
        gpu.d.cuFuncSetAttribute(
            fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
        Status::HarnessError, what));
  return gpu.check(gpu.d.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0],
                                        block[1], block[2], smem, gpu.stream,
                                        args, nullptr),
                   Status::HarnessError, what);
}

MaybeFail Gpu::init() {
  std::string error;
  if (!d.load(error))
    return Failure{Status::NoGpu, "no CUDA driver/GPU available: " + error};
  if (CUresult r = d.cuInit(0))
    return Failure{Status::NoGpu,
                   "no CUDA driver/GPU available: cuInit: " + d.describe(r)};
  TRY(check(d.cuDeviceGet(&dev, 0), Status::NoGpu, "cuDeviceGet"));
  char buf[256] = {};
  d.cuDeviceGetName(buf, sizeof(buf), dev);
  name = buf;
  d.cuDeviceGetAttribute(&ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         dev);
  d.cuDeviceGetAttribute(&ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         dev);
  d.cuDeviceGetAttribute(&l2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
  d.cuDeviceGetAttribute(&smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                         dev);
  TRY(check(d.cuDevicePrimaryCtxRetain(&ctx, dev), Status::HarnessError,
            "retaining the primary context"));
  TRY(check(d.cuCtxSetCurrent(ctx), Status::HarnessError, "cuCtxSetCurrent"));
  TRY(check(d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
            Status::HarnessError, "creating the harness stream"));
  haveLt = lt.load(ltError);
  // NVML is optional: without it timing says "clock not sampled".
  if (nvml.load(nvmlError)) {
    char bus[64] = {};
    if (d.cuDeviceGetPCIBusId(bus, sizeof(bus), dev) == CUDA_SUCCESS &&
        nvml.nvmlDeviceGetHandleByPciBusId_v2(bus, &nvmlDevice) == 0) {
      if (nvml.nvmlDeviceGetMaxClockInfo(nvmlDevice, Nvml::clockSM, &maxSmMHz))
        maxSmMHz = 0;
    } else {
      nvmlDevice = nullptr;
      nvmlError = "NVML does not know the CUDA device's PCI bus id";
    }
    char version[96] = {};
    if (nvml.nvmlSystemGetDriverVersion &&
        !nvml.nvmlSystemGetDriverVersion(version, sizeof(version)))
      driverVersion = version;
  }
  d.cuDriverGetVersion(&cudaVersion);
  if (driverVersion.empty())
    driverVersion = "cuda" + std::to_string(cudaVersion);
  if (std::string why; !ptxbench::toolchain::canCompileCUDA(&why))
    return Failure{Status::HarnessError,
                   "NVRTC is needed for the harness's own kernels: " + why};
  TRY(loadBuiltins(builtinKernelsSource, "ptxbench_builtins.cu", builtins));
  // Overwriting twice the L2 evicts the submission's data between samples.
  TRY(alloc(flush, size_t(std::max(l2Bytes, 1 << 20)) * 2));
  return std::nullopt;
}

MaybeFail Gpu::compileCuda(StringRef source, StringRef fileName,
                           std::string &ptx, std::string &log) {
  // The same compilation as `ptxbench analyze` (Toolchain/CudaCompiler.h).
  ptxbench::toolchain::CompiledSource compiled =
      ptxbench::toolchain::compileCUDA(source, fileName, arch());
  log = compiled.log;
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  if (!compiled.ok)
    return Failure{Status::CompileError,
                   "NVRTC (" + arch() + ") failed:\n" + log};
  ptx = std::move(compiled.ptx);
  return std::nullopt;
}

std::string JitLogs::errors() const {
  return StringRef(err.data()).trim().str();
}

std::string JitLogs::text() const {
  std::string log = StringRef(info.data()).trim().str();
  std::string errLog = errors();
  if (!errLog.empty())
    log += (log.empty() ? "" : "\n") + errLog;
  return log;
}

MaybeFail Gpu::loadModule(StringRef ptx, CUmodule &module, std::string &log) {
  std::string text = ptx.str(); // NUL-terminated
  JitLogs logs;
  CUresult r = d.cuModuleLoadDataEx(&module, text.c_str(), JitLogs::count,
                                    logs.options, logs.values);
  log = logs.text();
  std::string errLog = logs.errors();
  if (r != CUDA_SUCCESS)
    return Failure{isStickyError(r) ? Status::RuntimeError
                                    : Status::CompileError,
                   "loading the PTX (driver JIT) failed: " + d.describe(r) +
                       (errLog.empty() ? "" : "\n" + errLog),
                   isStickyError(r)};
  return std::nullopt;
}

namespace {
/// The start/stop event pair of one timing loop on the harness's stream,
/// destroyed with it.
class EventTimer {
public:
  explicit EventTimer(Gpu &gpu) : gpu(gpu) {}
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;
  ~EventTimer() {
    for (CUevent e : {start, stop})
      if (e)
        gpu.d.cuEventDestroy(e);
  }
  MaybeFail create() {
    for (CUevent *e : {&start, &stop})
      TRY(gpu.check(gpu.d.cuEventCreate(e, CU_EVENT_DEFAULT),
                    Status::HarnessError, "cuEventCreate"));
    return std::nullopt;
  }
  /// Records the start event, runs `launch`, records the stop event.
  MaybeFail around(const std::function<MaybeFail()> &launch) {
    TRY(gpu.check(gpu.d.cuEventRecord(start, gpu.stream), Status::HarnessError,
                  "cuEventRecord"));
    TRY(launch());
    return gpu.check(gpu.d.cuEventRecord(stop, gpu.stream),
                     Status::HarnessError, "cuEventRecord");
  }
  /// Milliseconds between the two events; both must have completed.
  MaybeFail elapsedMs(float &ms) {
    return gpu.check(gpu.d.cuEventElapsedTime(&ms, start, stop),
                     Status::HarnessError, "cuEventElapsedTime");
  }
  CUevent stopEvent() const { return stop; }

private:
  Gpu &gpu;
  CUevent start = nullptr, stop = nullptr;
};
} // namespace

MaybeFail
ptxbench::runtime::timeLaunches(Gpu &gpu, const Task::Timing &timing,
                                const std::function<MaybeFail()> &launch,
                                TimingStats &out, const TimedHooks *hooks,
                                unsigned *launches) {
  Driver &d = gpu.d;
  EventTimer timer(gpu);
  TRY(timer.create());
  unsigned launched = 0;
  auto before = [&]() -> MaybeFail {
    return hooks && hooks->before ? hooks->before(launched) : std::nullopt;
  };
  auto after = [&]() -> MaybeFail {
    MaybeFail f = hooks && hooks->after ? hooks->after(launched) : std::nullopt;
    ++launched;
    if (launches)
      *launches = launched;
    return f;
  };
  for (unsigned i = 0; i < timing.warmup; ++i) {
    TRY(before());
    TRY(launch());
    TRY(after());
  }
  TRY(gpu.check(d.cuCtxSynchronize(), Status::RuntimeError, "warm-up runs"));
  std::vector<double> samples, clean;
  SmallVector<bool, 128> throttled;
  unsigned minMHz = ~0u, maxMHz = 0;
  bool sampled = gpu.nvmlDevice != nullptr;
  auto begin = std::chrono::steady_clock::now();
  uint32_t flushValue = 0;
  while (true) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count();
    // The stopping rule counts clean samples; throttled ones may add at
    // most as many attempts again before the time cap ends it.
    if (enoughSamples(clean, elapsed, timing) ||
        samples.size() >= 2 * timing.maxSamples ||
        (elapsed >= timing.maxSeconds && samples.size() >= timing.minSamples))
      break;
    TRY(before());
    d.cuCtxResetPersistingL2Cache();
    TRY(gpu.check(d.cuMemsetD32Async(gpu.flush.ptr, ++flushValue,
                                     gpu.flush.bytes / 4, gpu.stream),
                  Status::HarnessError, "flushing L2"));
    ClockReading beforeClock = gpu.readClock();
    TRY(timer.around(launch));
    TRY(gpu.check(d.cuCtxSynchronize(), Status::RuntimeError, "a timed run"));
    ClockReading afterClock = gpu.readClock();
    // Queued behind the stop event: outside the measured interval.
    TRY(after());
    float ms = 0;
    TRY(timer.elapsedMs(ms));
    bool hot = isThrottled(beforeClock, afterClock, gpu.maxSmMHz);
    samples.push_back(ms);
    throttled.push_back(hot);
    if (!hot) {
      clean.push_back(ms);
      for (const ClockReading &r : {beforeClock, afterClock})
        if (r.valid) {
          minMHz = std::min(minMHz, r.smMHz);
          maxMHz = std::max(maxMHz, r.smMHz);
        }
    }
  }
  bool keptThrottled = false;
  std::vector<double> kept =
      keptSamples(samples, throttled, timing.minSamples, keptThrottled);
  out = summarizeTimes(kept);
  out.clockSampled = sampled;
  out.throttled = samples.size() - clean.size();
  out.keptThrottled = keptThrottled;
  out.minClockMHz = minMHz == ~0u ? 0 : minMHz;
  out.maxClockMHz = maxMHz;
  return std::nullopt;
}

MaybeFail ptxbench::runtime::bestTime(Gpu &gpu,
                                      const std::function<MaybeFail()> &launch,
                                      unsigned warmup, unsigned reps,
                                      double &bestMs) {
  EventTimer timer(gpu);
  TRY(timer.create());
  for (unsigned i = 0; i < warmup; ++i)
    TRY(launch());
  bestMs = 0;
  for (unsigned i = 0; i < reps; ++i) {
    TRY(timer.around(launch));
    TRY(gpu.check(gpu.d.cuEventSynchronize(timer.stopEvent()),
                  Status::HarnessError, "measuring the speed of light"));
    float ms = 0;
    TRY(timer.elapsedMs(ms));
    if (!bestMs || ms < bestMs)
      bestMs = ms;
  }
  return std::nullopt;
}
