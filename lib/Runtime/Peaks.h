//===- Peaks.h - The card's speed of light ----------------------*- C++ -*-===//
//
// The hardware's speed of light (tensor-core and FP32 CUDA-core rates from
// the SM count, the per-SM rates of the architecture and the SM clock; the
// DRAM bandwidth from the memory clock and bus width) and the best
// library's measured figures beside it.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_PEAKS_H
#define PTXBENCH_LIB_RUNTIME_PEAKS_H

#include "Gpu.h"

namespace ptxbench::runtime {

/// The best library's figures: cuBLASLt's best bf16 and fp8 e4m3 8192^3
/// GEMMs (TFLOP/s) and the best 1 GiB device copy (GB/s), measured.
struct Peaks {
  double tflops = 0, fp8Tflops = 0, gbps = 0;
  /// "measured", "cached in FILE", or why the figures are unknown.
  std::string source;
};

/// The card's library peaks from the cache, or measured now (and cached)
/// when there is none or `remeasure`.
Peaks measurePeaks(Gpu &gpu, bool remeasure);

/// The hardware's limits: dense tensor-core rates per input type, the FP32
/// CUDA-core rate (TFLOP/s) and the DRAM bandwidth (GB/s); 0 when the
/// architecture's per-SM rates or the device's clocks are unknown.
struct HardwarePeaks {
  double bf16Tflops = 0, fp8Tflops = 0, tf32Tflops = 0, fp32Tflops = 0;
  double dramGBps = 0;
  /// How they were computed ("132 SMs x 1980 MHz x 4096 bf16 FLOP/clock/SM
  /// ..."), or why they are unknown.
  std::string how;
};

/// Computed from the device: SM count, the architecture's per-SM per-clock
/// rates (Peaks.cpp), the maximum SM clock (NVML, else the driver's clock
/// attribute) and the memory clock x bus width.
HardwarePeaks hardwarePeaks(Gpu &gpu);

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_PEAKS_H
