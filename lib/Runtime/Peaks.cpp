//===- Peaks.cpp - The card's speed of light ------------------------------===//
//
// Measured, not taken from a datasheet: the best of several large cuBLASLt
// bf16 GEMMs on random data and of 1 GiB device-to-device copies, cached
// per card and driver under $XDG_CACHE_HOME/ptxbench (or ~/.cache).
//
//===----------------------------------------------------------------------===//

#include "Peaks.h"

#include "CublasLtGemm.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace ptxbench::runtime;

static std::string peaksCachePath(const Gpu &gpu) {
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

/// The matrix rate in TFLOP/s of cuBLASLt's best "TN" GEMM 8192^3 with
/// inputs of `dtype` (bf16 or e4m3), fp32 compute, on normal(0,1) data
/// (zeros would run cooler and faster).
static MaybeFail measureGemmRate(Gpu &gpu, DType dtype, double &tflops) {
  cuda::Driver &d = gpu.d;
  const int64_t n = 8192;
  DeviceBuffer a, b, c, one;
  auto cleanup = [&] {
    for (DeviceBuffer *buf : {&a, &b, &c, &one})
      gpu.free(*buf);
  };
  MaybeFail f = gpu.alloc(a, n * n * dtypeSize(dtype));
  if (!f)
    f = gpu.alloc(b, n * n * dtypeSize(dtype));
  if (!f)
    f = gpu.alloc(c, n * n * 2);
  if (!f)
    f = gpu.alloc(one, 4);
  if (!f)
    f = gpu.check(d.cuMemsetD32Async(one.ptr, 0x3F800000u, 1, gpu.stream),
                  Status::HarnessError, "setting the fp8 scales");
  for (DeviceBuffer *buf : {&a, &b}) {
    if (f)
      break;
    void *ptr = reinterpret_cast<void *>(buf->ptr);
    uint64_t count = n * n, seed = buf == &a ? 1 : 2;
    int type = int(dtype), dist = int(Distribution::Kind::Normal);
    float pa = 0, pb = 1, prob = 0, scale = 1;
    void *args[] = {&ptr, &count, &type, &dist, &pa, &pb, &prob, &scale, &seed};
    CUfunction init;
    f = gpu.builtin("ptxbench_init", init);
    if (!f)
      f = gpu.check(d.cuLaunchKernel(init, gpu.smCount * 16, 1, 1, 256, 1, 1, 0,
                                     gpu.stream, args, nullptr),
                    Status::HarnessError, "generating GEMM inputs");
  }
  std::function<MaybeFail()> gemm;
  bool fp8 = dtype == DType::E4M3;
  if (!f)
    f = makeCublasLtGemm(gpu,
                         {n, n, n, dtype, dtype, /*transB=*/true, a.ptr, b.ptr,
                          c.ptr, fp8 ? one.ptr : 0, fp8 ? one.ptr : 0},
                         gemm);
  double ms = 0;
  if (!f)
    f = bestTime(gpu, gemm, 5, 15, ms);
  cleanup();
  if (f)
    return f;
  tflops = 2.0 * n * n * n / (ms * 1e-3) * 1e-12;
  return std::nullopt;
}

static MaybeFail measurePeaksNow(Gpu &gpu, Peaks &peaks) {
  cuda::Driver &d = gpu.d;
  TRY(measureGemmRate(gpu, DType::BF16, peaks.tflops));
  // Cards without fp8 tensor cores have no fp8 rate; fp8 tasks then show no
  // speed-of-light fraction.
  if (gpu.ccMajor * 10 + gpu.ccMinor >= 89)
    TRY(measureGemmRate(gpu, DType::E4M3, peaks.fp8Tflops));
  DeviceBuffer a, b;
  auto cleanup = [&] {
    gpu.free(a);
    gpu.free(b);
  };
  MaybeFail f;
  double ms = 0;
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

Peaks ptxbench::runtime::measurePeaks(Gpu &gpu, bool remeasure) {
  Peaks peaks;
  std::string path = peaksCachePath(gpu);
  if (!remeasure && !path.empty())
    if (auto buf = MemoryBuffer::getFile(path))
      if (auto v = json::parse((*buf)->getBuffer()))
        if (const json::Object *o = v->getAsObject()) {
          peaks.tflops = o->getNumber("bf16_tflops").value_or(0);
          peaks.gbps = o->getNumber("copy_gbps").value_or(0);
          peaks.fp8Tflops = o->getNumber("fp8_tflops").value_or(0);
          // A cache written before the fp8 rate was measured is redone.
          if (peaks.tflops > 0 && peaks.gbps > 0 &&
              (peaks.fp8Tflops > 0 || gpu.ccMajor * 10 + gpu.ccMinor < 89)) {
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
  std::error_code ec =
      sys::fs::create_directories(sys::path::parent_path(path));
  raw_fd_ostream os(path, ec);
  if (ec) {
    peaks.source += " (not cached: " + ec.message() + ")";
    return peaks;
  }
  os << formatv("{0:2}", json::Value(json::Object{
                             {"device", gpu.name},
                             {"driver", gpu.driverVersion},
                             {"bf16_tflops", peaks.tflops},
                             {"fp8_tflops", peaks.fp8Tflops},
                             {"copy_gbps", peaks.gbps},
                             {"how", "best of 15 cuBLASLt bf16 and fp8 e4m3 "
                                     "8192^3 TN GEMMs (fp32 compute); best of "
                                     "10 1 GiB "
                                     "device-to-device copies, read+write "
                                     "bytes"}}))
     << "\n";
  peaks.source += ", cached in " + path;
  return peaks;
}
