// HOSTILE (games the static rules): an FFMA GEMM that issues one token
// wgmma m64n8k16 per warpgroup in every iteration of its k-loop, the same
// loop whose fully unrolled body holds the FFMAs, plus a token TMA load.
// The loop doing the reduction does contain a wgmma, so the static
// ffma-loop rule (a loop of FFMAs with no tensor-core instruction) stays
// silent: a known limit of the static check. wgmma does 6% of the FLOPs.
// What must catch it: the run-time verdict `token` for wgmma (share of the
// FLOPs under the task's 90%), naming FFMA as what did the rest; the
// ld-st-copy-instead-of-tma finding for the tiles; and wgmma-serialized:
// both warpgroups wait for every token group behind the loop's
// __syncthreads, so the static verdict is no better than `serialized`.
//
// @ptxbench kernel gemm_wgmma_in_loop grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench   args tmA, A, B, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(64, 64)
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 128
#define BK 16

// A no-swizzle shared-memory matrix descriptor (the values only need to be
// valid: the token's result is thrown away).
__device__ __forceinline__ uint64_t desc_plain(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
         ((uint64_t)(256 >> 4) << 32);
}

// One TMA load of a 64x64 tile of A and one m64n8k16 wgmma per warpgroup.
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
  float t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
               : "=f"(t0), "=f"(t1), "=f"(t2), "=f"(t3)
               : "l"(desc_plain(tile)), "l"(desc_plain(tile + 2048)));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(256)
gemm_wgmma_in_loop(const __grid_constant__ TensorMap tmA,
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
  const uint32_t tileAddr = (uint32_t)__cvta_generic_to_shared(tile);
  token(&tmA, tileAddr, (uint32_t)__cvta_generic_to_shared(&bar), row0);

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
    // One token wgmma per k-tile, in the same loop as the FFMAs.
    {
      float t0 = 0, t1 = 0, t2 = 0, t3 = 0;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
                   "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                   "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
                   : "=f"(t0), "=f"(t1), "=f"(t2), "=f"(t3)
                   : "l"(desc_plain(tileAddr)), "l"(desc_plain(tileAddr + 2048)));
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }
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
