//===- Peaks.cpp - The card's speed of light ------------------------------===//
//
// Two sets of figures. The hardware's, which is the speed of light: the
// SM count times the architecture's per-SM per-clock rate of each
// instruction class times the maximum SM clock, and the DRAM bandwidth
// from the memory clock and bus width; no kernel can beat them. The best
// library's, measured: the best of several large cuBLASLt GEMMs on random
// data and of 1 GiB device-to-device copies, cached per card and driver
// under $XDG_CACHE_HOME/ptxbench (or ~/.cache); a kernel can beat those.
//
//===----------------------------------------------------------------------===//

#include "Peaks.h"

#include "CublasLtGemm.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "ptxbench/Runtime/HarnessCache.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace ptxbench::runtime;

static std::string peaksCachePath(const Gpu &gpu) {
  SmallString<256> dir(harnessCacheDir());
  if (dir.empty())
    return "";
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

namespace {

/// Dense per-SM per-clock FLOP rates of one architecture (an FMA is 2
/// FLOPs), from the vendor's published whole-chip figures divided by SMs
/// and boost clock: Hopper (H100/H200 SXM: 989 TFLOP/s bf16 dense at
/// 132 SMs x 1830 MHz = 4096 per SM per clock; fp8 twice that, tf32 half;
/// 128 FP32 lanes per SM = 256), Blackwell (B200: twice Hopper's tensor
/// rates per SM, the same FP32 lanes), Ampere (A100: 312 TFLOP/s bf16 at
/// 108 SMs x 1410 MHz = 2048; 64 FP32 lanes = 128).
struct SmRates {
  unsigned cc; // major*10+minor
  double bf16, fp8, tf32, fp32;
};
constexpr SmRates smRates[] = {
    {80, 2048, 0, 1024, 128},
    {90, 4096, 8192, 2048, 256},
    {100, 8192, 16384, 4096, 256},
};

} // namespace

HardwarePeaks ptxbench::runtime::hardwarePeaks(Gpu &gpu) {
  HardwarePeaks hw;
  unsigned cc = unsigned(gpu.ccMajor * 10 + gpu.ccMinor);
  const SmRates *rates = nullptr;
  for (const SmRates &r : smRates)
    if (r.cc == cc)
      rates = &r;
  int clockKHz = 0, memKHz = 0, busBits = 0;
  gpu.d.cuDeviceGetAttribute(&clockKHz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, gpu.dev);
  gpu.d.cuDeviceGetAttribute(&memKHz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE,
                             gpu.dev);
  gpu.d.cuDeviceGetAttribute(&busBits,
                             CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
                             gpu.dev);
  // The highest clock the SMs can run at: NVML's maximum, else the
  // driver's clock attribute (the maximum boost clock on data-centre parts).
  double mhz = std::max<double>(gpu.maxSmMHz, clockKHz / 1000.0);
  std::vector<std::string> how;
  if (!rates) {
    how.push_back(formatv("no per-SM rates for compute capability {0}.{1}",
                          gpu.ccMajor, gpu.ccMinor));
  } else if (mhz <= 0 || gpu.smCount <= 0) {
    how.push_back("the SM count or clock is unknown");
  } else {
    double perClock = gpu.smCount * mhz * 1e6 * 1e-12;
    hw.bf16Tflops = rates->bf16 * perClock;
    hw.fp8Tflops = rates->fp8 * perClock;
    hw.tf32Tflops = rates->tf32 * perClock;
    hw.fp32Tflops = rates->fp32 * perClock;
    how.push_back(formatv("{0} SMs x {1:f0} MHz x {2:f0} bf16 / {3:f0} fp8 / "
                          "{4:f0} tf32 tensor-core and {5:f0} FP32 FLOP per "
                          "SM per clock",
                          gpu.smCount, mhz, rates->bf16, rates->fp8,
                          rates->tf32, rates->fp32)
                      .str());
  }
  if (memKHz > 0 && busBits > 0) {
    // Double data rate: two transfers per memory clock.
    hw.dramGBps = 2.0 * memKHz * 1e3 * (busBits / 8.0) * 1e-9;
    how.push_back(formatv("DRAM 2 x {0:f0} MHz x {1} bits", memKHz / 1000.0,
                          busBits)
                      .str());
  } else {
    how.push_back("the memory clock or bus width is unknown");
  }
  hw.how = join(how, "; ");
  return hw;
}
