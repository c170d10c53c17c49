//===- CublasLtGemm.h - The cuBLASLt GEMM baseline -------------*- C++ -*-===//
//
// cuBLASLt's best heuristic algorithm for a row-major GEMM on the harness's
// stream: bf16 inputs, or fp8 e4m3 inputs with per-tensor scales or with
// block scales (one per row and 128 k of A, one per 128x128 block of B, as
// DeepSeek-V3 quantizes; Hopper only); fp32 compute, bf16 output.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_CUBLASLTGEMM_H
#define PTXBENCH_LIB_RUNTIME_CUBLASLTGEMM_H

#include "Gpu.h"

namespace ptxbench::runtime {

/// C[M,N] = scaleA * scaleB * A[M,K] B[K,N], or A B^T with B stored [N,K]
/// when `transB`. Scales are device pointers to one f32 each, 0 = none.
struct GemmOperands {
  int64_t M = 0, N = 0, K = 0;
  DType typeA = DType::BF16, typeB = DType::BF16;
  bool transB = false;
  CUdeviceptr a = 0, b = 0, c = 0, scaleA = 0, scaleB = 0;
  /// Block scales instead of per-tensor ones (e4m3 A and B, `transB`):
  /// scaleA is row-major f32 [M, ceil(K/128)], scaleB row-major f32
  /// [ceil(N/128), ceil(K/128)]. cuBLASLt wants A's transposed (rows
  /// fastest), so each launch lays it out again first: that copy is timed
  /// with the GEMM, as a kernel reading the task's layout pays for it too.
  bool blockScales = false;
};

/// Sets `launch` to run the GEMM once on the harness stream.
MaybeFail makeCublasLtGemm(Gpu &gpu, const GemmOperands &g,
                           std::function<MaybeFail()> &launch);

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_CUBLASLTGEMM_H
