//===- Peaks.h - The card's speed of light ----------------------*- C++ -*-===//
//
// The bf16 matrix rate and copy bandwidth the speed-of-light fractions are
// measured against.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_PEAKS_H
#define PTXBENCH_LIB_RUNTIME_PEAKS_H

#include "Gpu.h"

namespace ptxbench::runtime {

struct Peaks {
  /// bf16 and fp8 e4m3 matrix rates (TFLOP/s), copy bandwidth (GB/s).
  double tflops = 0, fp8Tflops = 0, gbps = 0;
  /// "measured", "cached in FILE", or why the figures are unknown.
  std::string source;
};

/// The card's peaks from the cache, or measured now (and cached) when
/// there is none or `remeasure`.
Peaks measurePeaks(Gpu &gpu, bool remeasure);

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_PEAKS_H
