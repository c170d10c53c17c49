// HOSTILE (games the TMA credit): a CUDA-core GEMM whose tiles are loaded by
// ld.global -> st.shared loops, plus one token TMA load (8 KiB of A) per
// CTA armed with mbarrier.arrive.expect_tx and never read, so tma and
// mbarrier_tx are present, reachable and executed while TMA delivers well
// under 1% of the bytes loaded from global memory. Correct output.
// What must catch it: the static ld-st-copy-instead-of-tma finding (the
// token TMA does not silence it) and the run-time verdict `token` for tma
// and mbarrier_tx (share of the loaded bytes under the task's 50%).
//
// @ptxbench kernel gemm_token_tma grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench   args tmA, A, B, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(64, 64)
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 128
#define BK 16

// One TMA load of a 64x64 tile of A per CTA, never read.
__device__ void token(const TensorMap *tmA, uint32_t tile, uint32_t bar,
                      int m0) {
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                 "r"(64 * 64 * 2)
                 : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                 "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(tile),
                 "l"(tmA), "r"(0), "r"(m0), "r"(bar)
                 : "memory");
  }
  __syncthreads();
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar)
               : "memory");
}

extern "C" __global__ void __launch_bounds__(256)
gemm_token_tma(const __grid_constant__ TensorMap tmA,
                 const __nv_bfloat16 *__restrict__ A,
                 const __nv_bfloat16 *__restrict__ B,
                 __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  __shared__ alignas(1024) unsigned char tile[64 * 64 * 2];
  __shared__ alignas(8) uint64_t bar;
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN + 4];
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  token(&tmA, (uint32_t)__cvta_generic_to_shared(tile),
        (uint32_t)__cvta_generic_to_shared(&bar), row0);

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0.f;
  for (int k0 = 0; k0 < K; k0 += BK) {
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
