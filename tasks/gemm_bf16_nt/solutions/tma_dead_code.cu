// Broken on purpose (statically): the FFMA fallback dressed up with a TMA
// load and a transaction-count mbarrier that sit behind an unconditional
// branch, so they can never run. The results are correct (status PASSED),
// but the requested families are not really used: the static verdict for
// tma and mbarrier_tx is `unreachable`, for wgmma `missing`.
//
// @ptxbench kernel gemm_dead_tma grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench   args tmA, A, B, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(128, 64) swizzle=128B
#include <cuda_bf16.h>

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 128
#define BK 16

extern "C" __global__ void __launch_bounds__(256)
gemm_dead_tma(const __grid_constant__ TensorMap tmA,
              const __nv_bfloat16 *__restrict__ A,
              const __nv_bfloat16 *__restrict__ B, __nv_bfloat16 *__restrict__ C,
              int M, int N, int K) {
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN + 4];
  __shared__ __align__(1024) unsigned char stage[128 * 64 * 2];
  __shared__ __align__(8) unsigned long long bar;
  const int tid = threadIdx.x;
  if (tid == 0) {
    unsigned sbar = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned sdst = (unsigned)__cvta_generic_to_shared(stage);
    // "TMA path": skipped by the bra.uni in front of it.
    asm volatile("{\n"
                 "bra.uni SKIP_%=;\n"
                 "mbarrier.init.shared::cta.b64 [%0], 1;\n"
                 "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16384;\n"
                 "cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                 "mbarrier::complete_tx::bytes [%1], [%2, {%3, %4}], [%0];\n"
                 "SKIP_%=:\n"
                 "}\n" ::"r"(sbar),
                 "r"(sdst), "l"(&tmA), "r"(0), "r"((int)blockIdx.y * BM)
                 : "memory");
  }
  const int tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0.f;

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      int idx = tid + e * 256;
      int r = idx / BK, c = idx % BK;
      int gr = row0 + r, gn = col0 + r, gc = k0 + c;
      As[c][r] = (gr < M && gc < K) ? __bfloat162float(A[(size_t)gr * K + gc]) : 0.f;
      Bs[c][r] = (gn < N && gc < K) ? __bfloat162float(B[(size_t)gn * K + gc]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[8], b[8];
#pragma unroll
      for (int i = 0; i < 8; ++i)
        a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
      if (r < M && c < N)
        C[(size_t)r * N + c] = __float2bfloat16(acc[i][j]);
    }
}
