// HOSTILE (TMA bytes that feed nothing): an FFMA GEMM with ld.global
// tile loops that, in every iteration of its k-loop, also loads the CTA's
// own 64x64 boxes of A and B at that k by TMA (in bounds, armed with
// mbarrier.arrive.expect_tx) into a buffer nothing reads. Over the grid
// the boxes cover both inputs, so the copy log finds every input byte read
// in bounds (input share 1.0), and the TMA bytes are two thirds of all
// bytes loaded (16 KiB a k-step against 8 KiB through ld.global), so both
// parts of the byte share pass the GEMM's 0.5 and tma and mbarrier_tx are
// credited `used` though the copied data reach nothing. Correct output.
// What catches it: the byte share counts, per input tensor, only what the
// copies read beyond what ld.global and cp.async read of the same tensor
// (per-range load counters beside the copy log), and here the loads read
// all of A and B. Expected: PASSED with run-time verdicts tma and
// mbarrier_tx `token`; statically ffma-loop-instead-of-wgmma.
//
// @ptxbench kernel gemm_tma_unused grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench   args tmA, tmB, A, B, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(64, 64)
// @ptxbench tensormap tmB tensor=B box=(64, 64)
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 128
#define BK 16

// One TMA load of the 64x64 box at (k, row) of a tensor into `dst`.
__device__ __forceinline__ void box(const TensorMap *map, uint32_t dst,
                                    uint32_t bar, int k, int row) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
               "l"(map), "r"(k), "r"(row), "r"(bar)
               : "memory");
}

// Thread 0's copies of a k-step: the boxes of A and B at k whose rows are
// the CTA's (its first or second 64, alternating), 16 KiB in all.
__device__ __forceinline__ void unused_boxes(const TensorMap *tmA,
                                             const TensorMap *tmB,
                                             uint32_t dst, uint32_t bar,
                                             int k, int row, int col) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(2 * 64 * 64 * 2)
               : "memory");
  box(tmA, dst, bar, k, row);
  box(tmB, dst + 64 * 64 * 2, bar, k, col);
}

__device__ __forceinline__ void wait_phase(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

extern "C" __global__ void __launch_bounds__(256)
gemm_tma_unused(const __grid_constant__ TensorMap tmA,
                const __grid_constant__ TensorMap tmB,
                const __nv_bfloat16 *__restrict__ A,
                const __nv_bfloat16 *__restrict__ B,
                __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  __shared__ alignas(1024) unsigned char boxes[2 * 64 * 64 * 2];
  __shared__ alignas(8) uint64_t bar;
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN + 4];
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const uint32_t boxAddr = (uint32_t)__cvta_generic_to_shared(boxes);
  const uint32_t barAddr = (uint32_t)__cvta_generic_to_shared(&bar);
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barAddr));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0.f;
  uint32_t phase = 0;
  for (int k0 = 0; k0 < K; k0 += BK, phase ^= 1) {
    // Boxes start at multiples of 64 in k (four k-steps each, so every
    // byte of the CTA's rows is read in bounds), the CTA's first 64 rows
    // and columns on even k-steps, the second 64 on odd ones.
    if (tid == 0) {
      int half = (k0 / BK) % 2 * 64;
      unused_boxes(&tmA, &tmB, boxAddr, barAddr, k0 / 64 * 64, row0 + half,
                   col0 + half);
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      int idx = tid + e * 256, r = idx / BK, c = idx % BK;
      int gr = row0 + r, gn = col0 + r, gk = k0 + c;
      As[c][r] = (gr < M && gk < K) ? __bfloat162float(A[(size_t)gr * K + gk])
                                    : 0.f;
      Bs[c][r] = (gn < N && gk < K) ? __bfloat162float(B[(size_t)gn * K + gk])
                                    : 0.f;
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
    wait_phase(barAddr, phase);
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
