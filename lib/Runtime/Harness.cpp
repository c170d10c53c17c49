//===- Harness.cpp - Compile, launch, check and time one submission -------===//
//
// The worker's body. Everything the GPU does for a submission goes through
// the harness's own stream: input generation, NaN poisoning of outputs, the
// submission's kernels (per its resolved launch plan), the reference, the
// L2 flush before each timed sample and the baseline library.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Harness.h"

#include "ptxbench/Toolchain/CudaCompiler.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#ifdef PTXBENCH_HAVE_CUDA_HEADERS
#include "BuiltinKernels.h"
#include "CudaLibs.h"

#include <chrono>
#include <cstring>
#include <unistd.h>
#endif

using namespace llvm;
using namespace ptxbench::runtime;

#ifndef PTXBENCH_HAVE_CUDA_HEADERS

std::string ptxbench::runtime::archName(int major, int minor) {
  std::string a = "sm_" + std::to_string(major * 10 + minor);
  if ((major == 9 && minor == 0) || major == 10)
    a += "a";
  return a;
}

bool ptxbench::runtime::probeGpu(std::string &why, std::string *,
                                 std::string *) {
  why = "no CUDA driver/GPU available: ptxbench was built without the CUDA "
        "toolkit headers, so it cannot run kernels";
  return false;
}

int ptxbench::runtime::runWorker(const Task &, const LaunchPlan &, StringRef,
                                 ArrayRef<Workload>, const WorkerOptions &) {
  return 2;
}

#else

using namespace ptxbench::runtime::cuda;

std::string ptxbench::runtime::archName(int major, int minor) {
  std::string a = "sm_" + std::to_string(major * 10 + minor);
  if ((major == 9 && minor == 0) || major == 10)
    a += "a";
  return a;
}

bool ptxbench::runtime::probeGpu(std::string &why, std::string *deviceName,
                                 std::string *arch) {
  Driver d;
  std::string error;
  if (!d.load(error)) {
    why = "no CUDA driver/GPU available: " + error;
    return false;
  }
  if (CUresult r = d.cuInit(0)) {
    why = "no CUDA driver/GPU available: cuInit failed: " + d.describe(r);
    return false;
  }
  int count = 0;
  if (CUresult r = d.cuDeviceGetCount(&count); r || count == 0) {
    why = "no CUDA driver/GPU available: the driver reports no device";
    return false;
  }
  CUdevice dev;
  if (d.cuDeviceGet(&dev, 0) == CUDA_SUCCESS) {
    char name[256] = {};
    if (deviceName && !d.cuDeviceGetName(name, sizeof(name), dev))
      *deviceName = name;
    int major = 0, minor = 0;
    d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           dev);
    d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           dev);
    if (arch)
      *arch = archName(major, minor);
  }
  return true;
}

namespace {

/// A failed step: its status and message; `contextLost` when the CUDA
/// context is unusable afterwards (a fault inside a kernel).
struct Failure {
  Status status;
  std::string message;
  bool contextLost = false;
};
using MaybeFail = std::optional<Failure>;

#define TRY(expr)                                                              \
  if (MaybeFail f_ = (expr))                                                   \
    return f_;

bool isStickyError(CUresult r) {
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

struct DeviceBuffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
};

class Gpu {
public:
  Driver d;
  CublasLt lt;
  bool haveLt = false;
  std::string ltError;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  std::string name;
  int ccMajor = 0, ccMinor = 0, l2Bytes = 0, smCount = 0;
  CUmodule builtins = nullptr;
  CUfunction initFn = nullptr, refFn = nullptr, rmsnormFn = nullptr;
  DeviceBuffer flush;
  cublasLtHandle_t ltHandle = nullptr;
  DeviceBuffer ltWorkspace;
  Nvml nvml;
  Nvml::Device nvmlDevice = nullptr;
  unsigned maxSmMHz = 0;
  std::string nvmlError, driverVersion;
  int cudaVersion = 0;
  /// The instrumented submission, loaded on first use.
  CUmodule counted = nullptr;
  std::vector<CUfunction> countedFunctions;
  std::string countedError;

  /// The SM clock and throttle reasons now (invalid without NVML).
  ClockReading readClock() {
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

  MaybeFail check(CUresult r, Status status, const Twine &what) {
    if (r == CUDA_SUCCESS)
      return std::nullopt;
    bool sticky = isStickyError(r);
    return Failure{sticky ? Status::RuntimeError : status,
                   (what + ": " + d.describe(r)).str(), sticky};
  }

  MaybeFail init();
  MaybeFail compileCuda(StringRef source, StringRef fileName, std::string &ptx,
                        std::string &log);
  MaybeFail loadModule(StringRef ptx, CUmodule &module, std::string &log);
  MaybeFail alloc(DeviceBuffer &buf, size_t bytes) {
    buf.bytes = bytes;
    return check(d.cuMemAlloc(&buf.ptr, bytes ? bytes : 16),
                 Status::HarnessError,
                 "allocating " + Twine(bytes) + " bytes of device memory");
  }
  void free(DeviceBuffer &buf) {
    if (buf.ptr)
      d.cuMemFree(buf.ptr);
    buf = {};
  }
  std::string arch() const { return archName(ccMajor, ccMinor); }
};

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
      if (nvml.nvmlDeviceGetMaxClockInfo(nvmlDevice, Nvml::clockSM,
                                         &maxSmMHz))
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
  std::string ptx, log;
  if (MaybeFail f =
          compileCuda(builtinKernelsSource, "ptxbench_builtins.cu", ptx, log)) {
    f->status = Status::HarnessError;
    f->message += "\n" + log;
    return f;
  }
  if (MaybeFail f = loadModule(ptx, builtins, log)) {
    f->status = Status::HarnessError;
    return f;
  }
  TRY(check(d.cuModuleGetFunction(&initFn, builtins, "ptxbench_init"),
            Status::HarnessError, "ptxbench_init"));
  TRY(check(d.cuModuleGetFunction(&refFn, builtins, "ptxbench_gemm_ref"),
            Status::HarnessError, "ptxbench_gemm_ref"));
  TRY(check(d.cuModuleGetFunction(&rmsnormFn, builtins, "ptxbench_rmsnorm_ref"),
            Status::HarnessError, "ptxbench_rmsnorm_ref"));
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

MaybeFail Gpu::loadModule(StringRef ptx, CUmodule &module, std::string &log) {
  std::string text = ptx.str(); // NUL-terminated
  std::vector<char> info(1 << 16), err(1 << 16);
  CUjit_option opts[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_LOG_VERBOSE};
  void *vals[] = {info.data(), reinterpret_cast<void *>(info.size()),
                  err.data(), reinterpret_cast<void *>(err.size()),
                  reinterpret_cast<void *>(1)};
  CUresult r = d.cuModuleLoadDataEx(&module, text.c_str(), 5, opts, vals);
  log = StringRef(info.data()).trim().str();
  std::string errLog = StringRef(err.data()).trim().str();
  if (!errLog.empty())
    log += (log.empty() ? "" : "\n") + errLog;
  if (r != CUDA_SUCCESS)
    return Failure{isStickyError(r) ? Status::RuntimeError
                                    : Status::CompileError,
                   "loading the PTX (driver JIT) failed: " + d.describe(r) +
                       (errLog.empty() ? "" : "\n" + errLog),
                   isStickyError(r)};
  return std::nullopt;
}

/// Times `launch` per the task's timing rules: warm-up, then samples each
/// preceded by an L2 reset and flush, until the stopping rule holds over
/// the clean (unthrottled) samples. With NVML the SM clock and throttle
/// reasons are read after the flush is queued and after the sample ends;
/// throttled samples are discarded and counted (isThrottled, keptSamples).
static MaybeFail timeLaunches(Gpu &gpu, const Task::Timing &timing,
                              const std::function<MaybeFail()> &launch,
                              TimingStats &out) {
  Driver &d = gpu.d;
  CUevent start, stop;
  TRY(gpu.check(d.cuEventCreate(&start, CU_EVENT_DEFAULT), Status::HarnessError,
                "cuEventCreate"));
  TRY(gpu.check(d.cuEventCreate(&stop, CU_EVENT_DEFAULT), Status::HarnessError,
                "cuEventCreate"));
  for (unsigned i = 0; i < timing.warmup; ++i)
    TRY(launch());
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
    d.cuCtxResetPersistingL2Cache();
    TRY(gpu.check(d.cuMemsetD32Async(gpu.flush.ptr, ++flushValue,
                                     gpu.flush.bytes / 4, gpu.stream),
                  Status::HarnessError, "flushing L2"));
    ClockReading before = gpu.readClock();
    TRY(gpu.check(d.cuEventRecord(start, gpu.stream), Status::HarnessError,
                  "cuEventRecord"));
    TRY(launch());
    TRY(gpu.check(d.cuEventRecord(stop, gpu.stream), Status::HarnessError,
                  "cuEventRecord"));
    TRY(gpu.check(d.cuCtxSynchronize(), Status::RuntimeError, "a timed run"));
    ClockReading after = gpu.readClock();
    float ms = 0;
    TRY(gpu.check(d.cuEventElapsedTime(&ms, start, stop), Status::HarnessError,
                  "cuEventElapsedTime"));
    bool hot = isThrottled(before, after, gpu.maxSmMHz);
    samples.push_back(ms);
    throttled.push_back(hot);
    if (!hot) {
      clean.push_back(ms);
      for (const ClockReading &r : {before, after})
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

/// Everything allocated for one workload.
struct WorkloadBuffers {
  std::vector<DeviceBuffer> tensors, workspaces;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<CUtensorMap> maps;
  DeviceBuffer ref, baselineOut;
};

class WorkloadRunner {
public:
  WorkloadRunner(Gpu &gpu, const Task &task, const ResolvedPlan &plan,
                 ArrayRef<CUfunction> functions, const Workload &wl,
                 uint64_t seed)
      : gpu(gpu), d(gpu.d), task(task), plan(plan), functions(functions),
        wl(wl), seed(seed) {}
  ~WorkloadRunner() {
    if (lost)
      return; // freeing in a lost context only produces more errors
    for (DeviceBuffer &b : bufs.tensors)
      gpu.free(b);
    for (DeviceBuffer &b : bufs.workspaces)
      gpu.free(b);
    gpu.free(bufs.ref);
    gpu.free(bufs.baselineOut);
  }

  /// Runs the checks and the timing; fills `result`.
  void run(WorkloadResult &result, bool baseline);
  /// Runs the instrumented variant once (untimed) and adds the executed
  /// counts of `families` to `result`.
  void countFeatures(WorkloadResult &result,
                     ArrayRef<std::string> families);
  bool lost = false;

private:
  Gpu &gpu;
  Driver &d;
  const Task &task;
  const ResolvedPlan &plan;
  ArrayRef<CUfunction> functions;
  const Workload &wl;
  uint64_t seed;
  WorkloadBuffers bufs;
  int a = -1, b = -1, c = -1; // the reference's operands
  int64_t M = 0, N = 0, K = 0;

  MaybeFail allocate();
  MaybeFail generateInputs(unsigned trial);
  MaybeFail poisonOutputs();
  MaybeFail launchSubmission() { return launchWith(functions, 0); }
  /// Launches the plan with `fns`; a non-zero `counters` is passed as one
  /// more (last) argument to every kernel (the instrumented variant).
  MaybeFail launchWith(ArrayRef<CUfunction> fns, CUdeviceptr counters);
  MaybeFail runReference();
  MaybeFail checkOutputs(WorkloadResult &result, StringRef when);
  MaybeFail snapshotInputs(std::vector<std::vector<char>> &snap);
  MaybeFail checkInputsUnchanged(const std::vector<std::vector<char>> &snap,
                                 std::string &changed);
  MaybeFail time(std::function<MaybeFail()> launch, TimingStats &out);
  MaybeFail baselineSetup(std::function<MaybeFail()> &launch);
};

MaybeFail WorkloadRunner::allocate() {
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    auto shape = task.shapeOf(t, wl.params);
    if (!shape)
      return Failure{Status::HarnessError, toString(shape.takeError())};
    size_t n = 1;
    for (int64_t s : *shape)
      n *= size_t(s);
    bufs.shapes.push_back(*shape);
    bufs.tensors.emplace_back();
    TRY(gpu.alloc(bufs.tensors.back(), n * dtypeSize(task.tensors[t].dtype)));
  }
  for (const ResolvedWorkspace &w : plan.workspaces) {
    bufs.workspaces.emplace_back();
    TRY(gpu.alloc(bufs.workspaces.back(), w.bytes));
  }
  for (const ResolvedTensorMap &m : plan.tensorMaps) {
    const TensorSpec &spec = task.tensors[m.tensor];
    const std::vector<int64_t> &shape = bufs.shapes[m.tensor];
    unsigned rank = shape.size();
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], elemStrides[5];
    uint64_t stride = dtypeSize(spec.dtype);
    for (unsigned i = 0; i < rank; ++i) {
      // cuTensorMapEncodeTiled lists dimensions innermost first.
      dims[i] = shape[rank - 1 - i];
      box[i] = m.box[rank - 1 - i];
      elemStrides[i] = 1;
      if (i + 1 < rank) {
        stride *= dims[i];
        strides[i] = stride;
      }
    }
    CUtensorMapDataType type =
        spec.dtype == DType::BF16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
        : spec.dtype == DType::F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
        : spec.dtype == DType::F32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : CU_TENSOR_MAP_DATA_TYPE_INT32;
    CUtensorMapSwizzle swizzle[] = {
        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
        CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B};
    CUtensorMapInterleave interleave[] = {CU_TENSOR_MAP_INTERLEAVE_NONE,
                                          CU_TENSOR_MAP_INTERLEAVE_16B,
                                          CU_TENSOR_MAP_INTERLEAVE_32B};
    CUtensorMapL2promotion l2[] = {
        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B};
    CUtensorMap map;
    CUresult r = d.cuTensorMapEncodeTiled(
        &map, type, rank, reinterpret_cast<void *>(bufs.tensors[m.tensor].ptr),
        dims, strides, box, elemStrides, interleave[int(m.interleave)],
        swizzle[int(m.swizzle)], l2[int(m.l2)],
        m.oob == OobFill::Zero
            ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
            : CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
    if (r != CUDA_SUCCESS)
      return Failure{Status::PlanError,
                     "cuTensorMapEncodeTiled rejected tensor map '" + m.name +
                         "' over '" + spec.name + "' for " + wl.name + ": " +
                         d.describe(r) +
                         " (global strides must be multiples of 16 bytes)"};
    bufs.maps.push_back(map);
  }
  if (task.reference == "rmsnorm") {
    // x [T, H], w [H], y [T, H]: M = T rows, N = H columns.
    a = task.tensorIndex(task.operands.lookup("x"));
    b = task.tensorIndex(task.operands.lookup("w"));
    c = task.tensorIndex(task.operands.lookup("y"));
    M = bufs.shapes[a][0];
    N = bufs.shapes[a][1];
    if (bufs.shapes[b][0] != N || bufs.shapes[c][0] != M ||
        bufs.shapes[c][1] != N)
      return Failure{Status::HarnessError, "rmsnorm operand shapes disagree"};
    TRY(gpu.alloc(bufs.ref, size_t(M) * N * 4));
    return std::nullopt;
  }
  a = task.tensorIndex(task.operands.lookup("a"));
  b = task.tensorIndex(task.operands.lookup("b"));
  c = task.tensorIndex(task.operands.lookup("c"));
  M = bufs.shapes[a][0];
  K = bufs.shapes[a][1];
  // B is [K, N], or [N, K] when the task says "b_layout": "nk".
  N = bufs.shapes[b][task.bTransposed ? 0 : 1];
  if (bufs.shapes[b][task.bTransposed ? 1 : 0] != K || bufs.shapes[c][0] != M ||
      bufs.shapes[c][1] != N)
    return Failure{Status::HarnessError, "gemm operand shapes disagree"};
  TRY(gpu.alloc(bufs.ref, size_t(M) * N * 4));
  return std::nullopt;
}

MaybeFail WorkloadRunner::generateInputs(unsigned trial) {
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    const TensorSpec &spec = task.tensors[t];
    if (spec.role != Role::Input)
      continue;
    uint64_t n = bufs.tensors[t].bytes / dtypeSize(spec.dtype);
    int dtype = int(spec.dtype), dist = int(spec.dist.kind);
    const Distribution &ds = spec.dist;
    bool isNormal = ds.kind == Distribution::Kind::Normal ||
                    ds.kind == Distribution::Kind::Spiky;
    float pa = isNormal ? ds.mean : ds.low, pb = isNormal ? ds.std : ds.high;
    float prob = ds.spikeProb, scale = ds.spikeScale;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + trial * 0x100000001B3ull + t;
    void *ptr = reinterpret_cast<void *>(bufs.tensors[t].ptr);
    void *args[] = {&ptr, &n, &dtype, &dist, &pa, &pb, &prob, &scale, &s};
    unsigned blocks = unsigned(
        std::min<uint64_t>((n + 255) / 256, uint64_t(gpu.smCount) * 16));
    TRY(gpu.check(d.cuLaunchKernel(gpu.initFn, blocks, 1, 1, 256, 1, 1, 0,
                                   gpu.stream, args, nullptr),
                  Status::HarnessError, "generating inputs"));
  }
  return std::nullopt;
}

MaybeFail WorkloadRunner::poisonOutputs() {
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    const TensorSpec &spec = task.tensors[t];
    if (spec.role != Role::Output)
      continue;
    const DeviceBuffer &buf = bufs.tensors[t];
    CUresult r;
    if (spec.dtype == DType::BF16)
      r = d.cuMemsetD16Async(buf.ptr, unwrittenBF16Bits, buf.bytes / 2,
                             gpu.stream);
    else if (spec.dtype == DType::F32)
      r = d.cuMemsetD32Async(buf.ptr, unwrittenF32Bits, buf.bytes / 4,
                             gpu.stream);
    else
      return Failure{Status::HarnessError,
                     "outputs of dtype " + dtypeName(spec.dtype).str() +
                         " are not supported yet (bf16, f32 are)"};
    TRY(gpu.check(r, Status::HarnessError, "poisoning outputs"));
  }
  return std::nullopt;
}

MaybeFail WorkloadRunner::launchWith(ArrayRef<CUfunction> fns,
                                     CUdeviceptr counters) {
  for (const ResolvedWorkspace &w : plan.workspaces)
    if (w.zero) {
      unsigned i = &w - plan.workspaces.data();
      TRY(gpu.check(
          d.cuMemsetD8Async(bufs.workspaces[i].ptr, 0, w.bytes, gpu.stream),
          Status::HarnessError, "zeroing workspace '" + w.name + "'"));
    }
  for (unsigned k = 0; k < plan.kernels.size(); ++k) {
    const ResolvedKernel &rk = plan.kernels[k];
    // Storage for each argument, kept alive across the launch.
    std::vector<std::array<uint64_t, 2>> scalars(rk.args.size());
    std::vector<void *> params;
    for (unsigned i = 0; i < rk.args.size(); ++i) {
      const ResolvedArg &arg = rk.args[i];
      switch (arg.kind) {
      case ResolvedArg::Kind::Tensor:
        scalars[i][0] = bufs.tensors[arg.index].ptr;
        params.push_back(scalars[i].data());
        break;
      case ResolvedArg::Kind::Workspace:
        scalars[i][0] = bufs.workspaces[arg.index].ptr;
        params.push_back(scalars[i].data());
        break;
      case ResolvedArg::Kind::TensorMap:
        params.push_back(&bufs.maps[arg.index]);
        break;
      case ResolvedArg::Kind::Scalar:
        if (scalarTypeSize(arg.type) == 4) {
          uint32_t v = uint32_t(arg.value);
          std::memcpy(scalars[i].data(), &v, 4);
        } else {
          std::memcpy(scalars[i].data(), &arg.value, 8);
        }
        params.push_back(scalars[i].data());
        break;
      }
    }
    uint64_t countersArg = counters;
    if (counters)
      params.push_back(&countersArg);
    CUlaunchConfig config = {};
    config.gridDimX = rk.grid[0];
    config.gridDimY = rk.grid[1];
    config.gridDimZ = rk.grid[2];
    config.blockDimX = rk.block[0];
    config.blockDimY = rk.block[1];
    config.blockDimZ = rk.block[2];
    config.sharedMemBytes = rk.smem;
    config.hStream = gpu.stream;
    CUlaunchAttribute attr = {};
    if (rk.hasCluster) {
      attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attr.value.clusterDim.x = rk.cluster[0];
      attr.value.clusterDim.y = rk.cluster[1];
      attr.value.clusterDim.z = rk.cluster[2];
      config.attrs = &attr;
      config.numAttrs = 1;
    }
    TRY(gpu.check(
        d.cuLaunchKernelEx(&config, fns[k], params.data(), nullptr),
        Status::LaunchError, "launching kernel '" + rk.name + "'"));
  }
  return std::nullopt;
}

MaybeFail WorkloadRunner::runReference() {
  if (task.reference == "rmsnorm") {
    int t = M, h = N, dtX = int(task.tensors[a].dtype),
        dtW = int(task.tensors[b].dtype);
    float eps = float(task.eps);
    void *px = reinterpret_cast<void *>(bufs.tensors[a].ptr);
    void *pw = reinterpret_cast<void *>(bufs.tensors[b].ptr);
    void *py = reinterpret_cast<void *>(bufs.ref.ptr);
    void *args[] = {&px, &pw, &py, &t, &h, &eps, &dtX, &dtW};
    TRY(gpu.check(d.cuLaunchKernel(gpu.rmsnormFn, unsigned(M), 1, 1, 256, 1, 1,
                                   0, gpu.stream, args, nullptr),
                  Status::HarnessError, "running the reference"));
    return gpu.check(d.cuStreamSynchronize(gpu.stream), Status::HarnessError,
                     "running the reference");
  }
  int m = M, n = N, k = K, dtA = int(task.tensors[a].dtype),
      dtB = int(task.tensors[b].dtype), transB = task.bTransposed;
  void *pa = reinterpret_cast<void *>(bufs.tensors[a].ptr);
  void *pb = reinterpret_cast<void *>(bufs.tensors[b].ptr);
  void *pc = reinterpret_cast<void *>(bufs.ref.ptr);
  void *args[] = {&pa, &pb, &pc, &m, &n, &k, &dtA, &dtB, &transB};
  TRY(gpu.check(d.cuLaunchKernel(gpu.refFn, unsigned((N + 63) / 64),
                                 unsigned((M + 63) / 64), 1, 16, 16, 1, 0,
                                 gpu.stream, args, nullptr),
                Status::HarnessError, "running the reference"));
  return gpu.check(d.cuStreamSynchronize(gpu.stream), Status::HarnessError,
                   "running the reference");
}

/// Copies a device tensor of `dtype` to host floats.
static MaybeFail toHostFloats(Gpu &gpu, const DeviceBuffer &buf, DType dtype,
                              std::vector<float> &out) {
  size_t n = buf.bytes / dtypeSize(dtype);
  out.resize(n);
  if (dtype == DType::F32)
    return gpu.check(gpu.d.cuMemcpyDtoH(out.data(), buf.ptr, buf.bytes),
                     Status::RuntimeError, "copying the output");
  std::vector<uint16_t> raw(n);
  TRY(gpu.check(gpu.d.cuMemcpyDtoH(raw.data(), buf.ptr, buf.bytes),
                Status::RuntimeError, "copying the output"));
  for (size_t i = 0; i < n; ++i)
    out[i] = bf16ToFloat(raw[i]);
  return std::nullopt;
}

MaybeFail WorkloadRunner::checkOutputs(WorkloadResult &result, StringRef when) {
  std::vector<float> out, ref;
  TRY(toHostFloats(gpu, bufs.tensors[c], task.tensors[c].dtype, out));
  TRY(toHostFloats(gpu, bufs.ref, DType::F32, ref));
  std::optional<Tolerance> tol;
  auto it = task.tolerances.find(task.tensors[c].dtype);
  if (it != task.tolerances.end())
    tol = it->second;
  CompareStats stats = compareOutputs(out, ref, tol, task.relL2);
  result.checkedTensor = task.tensors[c].name;
  result.check = stats;
  if (!stats.passed) {
    result.status = Status::Incorrect;
    int64_t row = stats.worstIndex >= 0 ? stats.worstIndex / N : -1;
    int64_t col = stats.worstIndex >= 0 ? stats.worstIndex % N : -1;
    result.message =
        ("output '" + task.tensors[c].name + "' " + when + " failed the '" +
         stats.failedCheck + "' check; worst element [" + Twine(row) + ", " +
         Twine(col) + "]")
            .str();
    return Failure{Status::Incorrect, result.message};
  }
  return std::nullopt;
}

MaybeFail WorkloadRunner::snapshotInputs(std::vector<std::vector<char>> &snap) {
  snap.assign(task.tensors.size(), {});
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    if (task.tensors[t].role != Role::Input)
      continue;
    snap[t].resize(bufs.tensors[t].bytes);
    TRY(gpu.check(
        d.cuMemcpyDtoH(snap[t].data(), bufs.tensors[t].ptr, snap[t].size()),
        Status::RuntimeError, "reading inputs"));
  }
  return std::nullopt;
}

MaybeFail
WorkloadRunner::checkInputsUnchanged(const std::vector<std::vector<char>> &snap,
                                     std::string &changed) {
  std::vector<std::vector<char>> now;
  TRY(snapshotInputs(now));
  for (unsigned t = 0; t < snap.size(); ++t)
    if (snap[t] != now[t]) {
      size_t i = 0;
      while (snap[t][i] == now[t][i])
        ++i;
      changed = "input '" + task.tensors[t].name +
                "' was modified by the submission (first changed byte " +
                std::to_string(i) + ")";
      return std::nullopt;
    }
  return std::nullopt;
}

MaybeFail WorkloadRunner::time(std::function<MaybeFail()> launch,
                               TimingStats &out) {
  return timeLaunches(gpu, task.timing, launch, out);
}

/// A cuBLASLt bf16 GEMM C[M,N] = A[M,K] B[K,N] (row-major, fp32 compute),
/// or A B^T with B stored [N,K] when `transB`, on the harness stream;
/// `launch` runs it once.
static MaybeFail makeGemm(Gpu &gpu, int64_t M, int64_t N, int64_t K,
                          DType typeA, DType typeB, bool transB,
                          CUdeviceptr pa,
                          CUdeviceptr pb, CUdeviceptr pc,
                          std::function<MaybeFail()> &launch) {
  if (!gpu.haveLt)
    return Failure{Status::HarnessError, "cuBLASLt: " + gpu.ltError};
  CublasLt &lt = gpu.lt;
  if (!gpu.ltHandle) {
    if (lt.cublasLtCreate(&gpu.ltHandle) != CUBLAS_STATUS_SUCCESS)
      return Failure{Status::HarnessError, "cublasLtCreate failed"};
    TRY(gpu.alloc(gpu.ltWorkspace, 64 << 20));
  }
  auto type = [&](DType t) {
    return t == DType::BF16 ? CUDA_R_16BF : CUDA_R_32F;
  };
  // Row-major C[M,N] = A[M,K] B[K,N] is column-major C^T = B^T A^T: cuBLAS's
  // first operand is B, seen column-major as [N, K] (ld N), not transposed.
  // With B stored [N, K] (b_layout "nk", C = A B^T), column-major B is
  // [K, N] (ld K) and is transposed: the "TN" GEMM.
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulPreference_t pref;
  cublasOperation_t opN = CUBLAS_OP_N;
  cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  bool ok =
      lt.cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) == 0 &&
      lt.cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &opB,
                                        sizeof(opB)) == 0 &&
      lt.cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &opN,
                                        sizeof(opN)) == 0 &&
      (transB ? lt.cublasLtMatrixLayoutCreate(&la, type(typeB), K, N, K)
              : lt.cublasLtMatrixLayoutCreate(&la, type(typeB), N, K, N)) ==
          0 &&
      lt.cublasLtMatrixLayoutCreate(&lb, type(typeA), K, M, K) == 0 &&
      lt.cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N) == 0 &&
      lt.cublasLtMatmulPreferenceCreate(&pref) == 0;
  size_t wsBytes = gpu.ltWorkspace.bytes;
  ok = ok && lt.cublasLtMatmulPreferenceSetAttribute(
                 pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsBytes,
                 sizeof(wsBytes)) == 0;
  cublasLtMatmulHeuristicResult_t heur = {};
  int found = 0;
  ok = ok &&
       lt.cublasLtMatmulAlgoGetHeuristic(gpu.ltHandle, op, la, lb, lc, lc, pref,
                                         1, &heur, &found) == 0 &&
       found > 0;
  if (!ok)
    return Failure{Status::HarnessError,
                   "cuBLASLt found no algorithm for this bf16 GEMM"};
  auto algo = std::make_shared<cublasLtMatmulHeuristicResult_t>(heur);
  CUdeviceptr ws = gpu.ltWorkspace.ptr;
  Gpu *g = &gpu;
  launch = [=, &lt]() -> MaybeFail {
    static const float alpha = 1, beta = 0;
    cublasStatus_t s = lt.cublasLtMatmul(
        g->ltHandle, op, &alpha, reinterpret_cast<void *>(pb), la,
        reinterpret_cast<void *>(pa), lb, &beta, reinterpret_cast<void *>(pc),
        lc, reinterpret_cast<void *>(pc), lc, &algo->algo,
        reinterpret_cast<void *>(ws), wsBytes, g->stream);
    if (s != CUBLAS_STATUS_SUCCESS)
      return Failure{Status::HarnessError,
                     "cublasLtMatmul failed with status " +
                         std::to_string(int(s))};
    return std::nullopt;
  };
  return std::nullopt;
}

MaybeFail WorkloadRunner::baselineSetup(std::function<MaybeFail()> &launch) {
  TRY(gpu.alloc(bufs.baselineOut, size_t(M) * N * 2));
  return makeGemm(gpu, M, N, K, task.tensors[a].dtype, task.tensors[b].dtype,
                  task.bTransposed, bufs.tensors[a].ptr, bufs.tensors[b].ptr,
                  bufs.baselineOut.ptr, launch);
}

void WorkloadRunner::run(WorkloadResult &result, bool baseline) {
  auto fail = [&](const Failure &f) {
    if (result.status == Status::Skipped || f.status != Status::Incorrect) {
      result.status = f.status;
      result.message = f.message;
    }
    lost |= f.contextLost;
  };
  if (MaybeFail f = allocate())
    return fail(*f);
  // Correctness: several trials with fresh inputs into poisoned outputs.
  for (unsigned trial = 0; trial < task.trials; ++trial) {
    std::vector<std::vector<char>> snap;
    MaybeFail f = generateInputs(trial);
    if (!f)
      f = poisonOutputs();
    if (!f)
      f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::HarnessError,
                    "preparing inputs");
    if (!f)
      f = snapshotInputs(snap);
    if (!f)
      f = launchSubmission();
    if (!f)
      f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                    "running the submission");
    if (f)
      return fail(*f);
    std::string changed;
    if (MaybeFail f2 = checkInputsUnchanged(snap, changed))
      return fail(*f2);
    if (!changed.empty())
      return fail(Failure{Status::Incorrect, changed});
    if (MaybeFail f2 = runReference())
      return fail(*f2);
    if (MaybeFail f2 = checkOutputs(result, ("in trial " + Twine(trial + 1) +
                                             " of " + Twine(task.trials))
                                                .str()))
      return fail(*f2);
  }
  // Timing, then the timed runs' output is checked too.
  TimingStats t;
  if (MaybeFail f = time([&] { return launchSubmission(); }, t))
    return fail(*f);
  result.time = t;
  if (MaybeFail f = checkOutputs(result, "after the timed runs"))
    return fail(*f);
  result.status = Status::Passed;
  if (!baseline || task.baseline == "none")
    return;
  std::function<MaybeFail()> lt;
  TimingStats bt;
  MaybeFail f = baselineSetup(lt);
  if (!f)
    f = time(lt, bt);
  if (f) {
    result.message = "baseline: " + f->message;
    lost |= f->contextLost;
    return;
  }
  result.baselineTime = bt;
}

void WorkloadRunner::countFeatures(WorkloadResult &result,
                                   ArrayRef<std::string> families) {
  if (!gpu.counted) {
    result.featureNote = gpu.countedError;
    return;
  }
  for (unsigned k = 0; k < plan.kernels.size(); ++k)
    if (plan.kernels[k].smem > 48 * 1024)
      d.cuFuncSetAttribute(gpu.countedFunctions[k],
                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           plan.kernels[k].smem);
  DeviceBuffer counters;
  MaybeFail f = gpu.alloc(counters, 8 * families.size());
  if (!f)
    f = gpu.check(
        d.cuMemsetD8Async(counters.ptr, 0, counters.bytes, gpu.stream),
        Status::HarnessError, "zeroing the feature counters");
  if (!f)
    f = launchWith(gpu.countedFunctions, counters.ptr);
  if (!f)
    f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                  "running the instrumented submission");
  std::vector<uint64_t> counts(families.size());
  if (!f)
    f = gpu.check(d.cuMemcpyDtoH(counts.data(), counters.ptr, counters.bytes),
                  Status::HarnessError, "reading the feature counters");
  if (f) {
    result.featureNote = "the instrumented run failed: " + f->message;
    lost |= f->contextLost;
    if (!lost)
      gpu.free(counters);
    return;
  }
  gpu.free(counters);
  for (unsigned i = 0; i < families.size(); ++i)
    result.features.push_back({families[i], -1, int64_t(counts[i])});
}

/// The card's speed of light: a large cuBLASLt bf16 GEMM and a large
/// device-to-device copy, each the best of several samples; cached per
/// card and driver.
struct Peaks {
  double tflops = 0, gbps = 0;
  std::string source;
};

std::string peaksCachePath(const Gpu &gpu) {
  SmallString<256> dir;
  if (const char *x = getenv("XDG_CACHE_HOME"); x && *x) {
    dir = x;
  } else if (const char *h = getenv("HOME"); h && *h) {
    dir = h;
    sys::path::append(dir, ".cache");
  } else {
    return "";
  }
  sys::path::append(dir, "ptxbench");
  std::string key = gpu.name + "-" + gpu.driverVersion;
  for (char &c : key)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-')
      c = '_';
  sys::path::append(dir, "peaks-" + key + ".json");
  return std::string(dir);
}

/// The best time in ms of `reps` runs of `launch`, after `warmup` runs.
MaybeFail bestTime(Gpu &gpu, const std::function<MaybeFail()> &launch,
                   unsigned warmup, unsigned reps, double &bestMs) {
  Driver &d = gpu.d;
  CUevent start, stop;
  TRY(gpu.check(d.cuEventCreate(&start, CU_EVENT_DEFAULT), Status::HarnessError,
                "cuEventCreate"));
  TRY(gpu.check(d.cuEventCreate(&stop, CU_EVENT_DEFAULT), Status::HarnessError,
                "cuEventCreate"));
  for (unsigned i = 0; i < warmup; ++i)
    TRY(launch());
  bestMs = 0;
  for (unsigned i = 0; i < reps; ++i) {
    TRY(gpu.check(d.cuEventRecord(start, gpu.stream), Status::HarnessError,
                  "cuEventRecord"));
    TRY(launch());
    TRY(gpu.check(d.cuEventRecord(stop, gpu.stream), Status::HarnessError,
                  "cuEventRecord"));
    TRY(gpu.check(d.cuEventSynchronize(stop), Status::HarnessError,
                  "measuring the speed of light"));
    float ms = 0;
    TRY(gpu.check(d.cuEventElapsedTime(&ms, start, stop), Status::HarnessError,
                  "cuEventElapsedTime"));
    if (!bestMs || ms < bestMs)
      bestMs = ms;
  }
  return std::nullopt;
}

MaybeFail measurePeaksNow(Gpu &gpu, Peaks &peaks) {
  Driver &d = gpu.d;
  // bf16 GEMM 8192^3 on normal(0,1) data (zeros would run cooler/faster).
  const int64_t n = 8192;
  DeviceBuffer a, b, c;
  auto cleanup = [&] {
    gpu.free(a);
    gpu.free(b);
    gpu.free(c);
  };
  MaybeFail f = gpu.alloc(a, n * n * 2);
  if (!f)
    f = gpu.alloc(b, n * n * 2);
  if (!f)
    f = gpu.alloc(c, n * n * 2);
  for (DeviceBuffer *buf : {&a, &b}) {
    if (f)
      break;
    void *ptr = reinterpret_cast<void *>(buf->ptr);
    uint64_t count = n * n, seed = buf == &a ? 1 : 2;
    int dtype = int(DType::BF16), dist = int(Distribution::Kind::Normal);
    float pa = 0, pb = 1, prob = 0, scale = 1;
    void *args[] = {&ptr, &count, &dtype, &dist, &pa, &pb, &prob, &scale, &seed};
    f = gpu.check(d.cuLaunchKernel(gpu.initFn, gpu.smCount * 16, 1, 1, 256, 1,
                                   1, 0, gpu.stream, args, nullptr),
                  Status::HarnessError, "generating GEMM inputs");
  }
  std::function<MaybeFail()> gemm;
  if (!f)
    f = makeGemm(gpu, n, n, n, DType::BF16, DType::BF16, /*transB=*/false,
                 a.ptr, b.ptr, c.ptr, gemm);
  double ms = 0;
  if (!f)
    f = bestTime(gpu, gemm, 5, 15, ms);
  cleanup();
  if (f)
    return f;
  peaks.tflops = 2.0 * n * n * n / (ms * 1e-3) * 1e-12;
  // Device-to-device copy of 1 GiB; read + write bytes count.
  const size_t bytes = size_t(1) << 30;
  f = gpu.alloc(a, bytes);
  if (!f)
    f = gpu.alloc(b, bytes);
  if (!f)
    f = gpu.check(d.cuMemsetD32Async(a.ptr, 0x3F800000u, bytes / 4, gpu.stream),
                  Status::HarnessError, "filling the copy source");
  auto copy = [&]() -> MaybeFail {
    return gpu.check(d.cuMemcpyDtoDAsync(b.ptr, a.ptr, bytes, gpu.stream),
                     Status::HarnessError, "device-to-device copy");
  };
  if (!f)
    f = bestTime(gpu, copy, 2, 10, ms);
  cleanup();
  if (f)
    return f;
  peaks.gbps = 2.0 * bytes / (ms * 1e-3) * 1e-9;
  return std::nullopt;
}

Peaks measurePeaks(Gpu &gpu, bool remeasure) {
  Peaks peaks;
  std::string path = peaksCachePath(gpu);
  if (!remeasure && !path.empty())
    if (auto buf = MemoryBuffer::getFile(path))
      if (auto v = json::parse((*buf)->getBuffer()))
        if (const json::Object *o = v->getAsObject()) {
          peaks.tflops = o->getNumber("bf16_tflops").value_or(0);
          peaks.gbps = o->getNumber("copy_gbps").value_or(0);
          if (peaks.tflops > 0 && peaks.gbps > 0) {
            peaks.source = "cached in " + path;
            return peaks;
          }
        }
  if (MaybeFail f = measurePeaksNow(gpu, peaks)) {
    peaks = {};
    peaks.source = "could not measure: " + f->message;
    return peaks;
  }
  peaks.source = "measured";
  if (path.empty())
    return peaks;
  std::error_code ec = sys::fs::create_directories(sys::path::parent_path(path));
  raw_fd_ostream os(path, ec);
  if (ec) {
    peaks.source += " (not cached: " + ec.message() + ")";
    return peaks;
  }
  os << formatv("{0:2}", json::Value(json::Object{
                             {"device", gpu.name},
                             {"driver", gpu.driverVersion},
                             {"bf16_tflops", peaks.tflops},
                             {"copy_gbps", peaks.gbps},
                             {"how", "best of 15 cuBLASLt bf16 8192^3 GEMMs "
                                     "(fp32 compute); best of 10 1 GiB "
                                     "device-to-device copies, read+write "
                                     "bytes"}}))
     << "\n";
  peaks.source += ", cached in " + path;
  return peaks;
}

void emit(int fd, json::Value v) {
  std::string line;
  raw_string_ostream os(line);
  os << v << "\n";
  os.flush();
  const char *p = line.data();
  size_t left = line.size();
  while (left) {
    ssize_t n = ::write(fd, p, left);
    if (n <= 0)
      return;
    p += n;
    left -= n;
  }
}

} // namespace

int ptxbench::runtime::runWorker(const Task &task, const LaunchPlan &plan,
                                 StringRef source, ArrayRef<Workload> workloads,
                                 const WorkerOptions &options) {
  int fd = options.resultFd;
  auto report = [&](unsigned i, WorkloadResult r) {
    r.workload = workloads[i].name;
    r.params = workloads[i].params;
    if (auto f = task.flops.evaluate(workloads[i].params))
      r.flops = double(*f);
    else
      consumeError(f.takeError());
    if (auto b = task.bytes.evaluate(workloads[i].params))
      r.bytes = double(*b);
    else
      consumeError(b.takeError());
    emit(fd, json::Object{{"event", "result"},
                          {"index", int64_t(i)},
                          {"result", toJSON(r)}});
  };
  auto reportAll = [&](Status s, const std::string &message,
                       const std::string &compileLog = "",
                       const std::string &jitLog = "") {
    for (unsigned i = options.first; i < workloads.size(); ++i) {
      WorkloadResult r;
      r.status = s;
      r.message = message;
      r.compileLog = compileLog;
      r.jitLog = jitLog;
      report(i, r);
    }
  };

  Gpu gpu;
  if (MaybeFail f = gpu.init()) {
    reportAll(f->status, f->message);
    return 0;
  }
  Peaks peaks = measurePeaks(gpu, options.remeasurePeaks);
  emit(fd, json::Object{{"event", "device"},
                        {"device", gpu.name + " (" + gpu.arch() + ")"},
                        {"arch", gpu.arch()},
                        {"peak_tflops", peaks.tflops},
                        {"peak_gbps", peaks.gbps},
                        {"peak_source", peaks.source},
                        {"driver", gpu.driverVersion},
                        {"cuda_driver_version", int64_t(gpu.cudaVersion)},
                        {"cublaslt_version",
                         int64_t(gpu.haveLt && gpu.lt.cublasLtGetVersion
                                     ? gpu.lt.cublasLtGetVersion()
                                     : 0)}});

  // Compile once for all workloads.
  std::string ptx, compileLog, jitLog;
  if (sys::path::extension(options.solutionPath) == ".ptx") {
    ptx = source.str();
  } else if (MaybeFail f = gpu.compileCuda(
                 source, sys::path::filename(options.solutionPath), ptx,
                 compileLog)) {
    reportAll(f->status, f->message, compileLog);
    return 0;
  }
  CUmodule module;
  if (MaybeFail f = gpu.loadModule(ptx, module, jitLog)) {
    reportAll(f->status, f->message, compileLog, jitLog);
    return f->contextLost ? 3 : 0;
  }
  std::vector<CUfunction> functions;
  for (const KernelDecl &k : plan.kernels) {
    CUfunction fn;
    if (CUresult r = gpu.d.cuModuleGetFunction(&fn, module, k.name.c_str())) {
      reportAll(Status::LaunchError,
                k.loc.str() + ": error: kernel '" + k.name +
                    "' is not in the compiled module (" + gpu.d.describe(r) +
                    "); declare it extern \"C\" __global__",
                compileLog, jitLog);
      return 0;
    }
    functions.push_back(fn);
  }
  // The instrumented variant, for the run-time feature counts.
  if (!options.instrumentedPtxPath.empty()) {
    auto buf = MemoryBuffer::getFile(options.instrumentedPtxPath);
    std::string log;
    if (!buf) {
      gpu.countedError = "cannot read the instrumented PTX: " +
                         buf.getError().message();
    } else if (MaybeFail f =
                   gpu.loadModule((*buf)->getBuffer(), gpu.counted, log)) {
      gpu.counted = nullptr;
      gpu.countedError = "the instrumented PTX does not load: " + f->message;
      if (f->contextLost)
        return 3;
    } else {
      for (const KernelDecl &k : plan.kernels) {
        CUfunction fn = nullptr;
        if (gpu.d.cuModuleGetFunction(&fn, gpu.counted, k.name.c_str())) {
          gpu.counted = nullptr;
          gpu.countedError = "kernel '" + k.name +
                             "' is not in the instrumented module";
          break;
        }
        gpu.countedFunctions.push_back(fn);
      }
    }
  }

  for (unsigned i = options.first; i < workloads.size(); ++i) {
    emit(fd, json::Object{{"event", "start"}, {"index", int64_t(i)}});
    WorkloadResult r;
    r.compileLog = compileLog;
    r.jitLog = jitLog;
    auto resolved = resolveLaunchPlan(plan, task, workloads[i].params);
    if (!resolved) {
      r.status = Status::PlanError;
      r.message = toString(resolved.takeError());
      report(i, r);
      continue;
    }
    // Check argument counts and sizes against the kernels, and raise the
    // dynamic shared memory limit where the plan asks for more than 48 KiB.
    bool planOk = true;
    for (unsigned k = 0; k < plan.kernels.size() && planOk; ++k) {
      const ResolvedKernel &rk = resolved->kernels[k];
      if (rk.smem > 48 * 1024)
        gpu.d.cuFuncSetAttribute(
            functions[k], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            rk.smem);
      if (!gpu.d.cuFuncGetParamInfo)
        continue;
      size_t count = 0, offset, size;
      while (gpu.d.cuFuncGetParamInfo(functions[k], count, &offset, &size) ==
             CUDA_SUCCESS) {
        if (count < rk.args.size()) {
          const ResolvedArg &arg = rk.args[count];
          size_t want = arg.kind == ResolvedArg::Kind::TensorMap ? 128
                        : arg.kind == ResolvedArg::Kind::Scalar
                            ? scalarTypeSize(arg.type)
                            : 8;
          if (want != size) {
            r.status = Status::PlanError;
            r.message = plan.kernels[k].args[count].loc.str() +
                        ": error: argument " + std::to_string(count + 1) +
                        " of kernel '" + rk.name + "' is " +
                        std::to_string(size) + " bytes in the kernel, but " +
                        "the plan passes " + std::to_string(want);
            planOk = false;
            break;
          }
        }
        ++count;
      }
      if (planOk && count != rk.args.size()) {
        r.status = Status::PlanError;
        r.message = plan.kernels[k].loc.str() + ": error: kernel '" + rk.name +
                    "' takes " + std::to_string(count) +
                    " parameters but the plan passes " +
                    std::to_string(rk.args.size());
        planOk = false;
      }
    }
    if (!planOk) {
      report(i, r);
      continue;
    }
    bool lost;
    {
      WorkloadRunner runner(gpu, task, *resolved, functions, workloads[i],
                            options.seed + i);
      runner.run(r, options.baseline);
      if (!runner.lost && !options.instrumentedPtxPath.empty() &&
          (r.status == Status::Passed || r.status == Status::Incorrect))
        runner.countFeatures(r, options.countFamilies);
      lost = runner.lost;
    }
    report(i, r);
    if (lost)
      return 3; // the context is unusable; the parent restarts a worker
  }
  return 0;
}

#endif // PTXBENCH_HAVE_CUDA_HEADERS
