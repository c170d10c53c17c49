// C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 accumulate, bf16 out, on Hopper's own path.
// Persistent, warp-specialized: grid = min(#SMs, tiles); each CTA walks 128x@@BN@@ output tiles
// (grouped @@GROUP_M@@ M-tiles at a time for L2 reuse). Warpgroup 0 is the producer: after
// setmaxnreg.dec one elected thread issues TMA loads of 128x64 A and @@BN@@x64 B boxes (128B swizzle)
// into a @@STAGES@@-stage ring on transaction-count mbarriers (full[s]), waiting on empty[s].
// Warpgroups 1 and 2 are consumers (setmaxnreg.inc): each issues m64n@@BN@@k16 wgmmas straight from
// shared memory for its 64 rows, keeps one wgmma group in flight (wait_group 1) and frees the stage
// the previous group read by arriving on empty[s]. While consumers store a finished tile the
// producer is already filling the ring for the next one. Correct for any M, N (TMA zero-fills
// out-of-bounds box elements; the store is bounds-checked) and any K (the K tail is zero-filled).
//
// @ptxbench kernel gemm_wgmma_tma_ws grid=min(132, ceildiv(M,128)*ceildiv(N,@@BN@@)) block=384 smem=@@SMEM@@
// @ptxbench   args tmA, tmB, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(128, 64) swizzle=128B
// @ptxbench tensormap tmB tensor=B box=(@@BN@@, 64) swizzle=128B
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN @@BN@@
#define BK 64
#define STAGES @@STAGES@@
#define GROUP_M @@GROUP_M@@
#define WAIT1 @@WAIT1@@
#define NACC (BN / 2)
#define TILE_A_BYTES (BM * BK * 2)
#define TILE_B_BYTES (BN * BK * 2)
#define STAGE_BYTES (TILE_A_BYTES + TILE_B_BYTES)

__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

@@WGMMA@@

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int &mt, int &nt) {
  const int per_group = GROUP_M * tiles_n;
  const int group = t / per_group;
  const int first_m = group * GROUP_M;
  const int gsize = min(tiles_m - first_m, GROUP_M);
  const int r = t - group * per_group;
  mt = first_m + r % gsize;
  nt = r / gsize;
}

extern "C" __global__ void __launch_bounds__(384, 1)
gemm_wgmma_tma_ws(const __grid_constant__ TensorMap tmA,
                  const __grid_constant__ TensorMap tmB,
                  __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t fbar = (uint32_t)__cvta_generic_to_shared(&full[0]);
  const uint32_t ebar = (uint32_t)__cvta_generic_to_shared(&empty[0]);
  const int tid = threadIdx.x, wg = tid / 128;
  const int kTiles = (K + BK - 1) / BK;
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int tiles = tiles_m * tiles_n;

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB) : "memory");
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(fbar + 8 * s) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 256;" ::"r"(ebar + 8 * s) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    // Producer warpgroup: give registers back, one elected thread drives TMA.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    uint32_t leader;
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}"
                 : "=r"(leader));
    if (tid / 32 == 0 && leader) {
      int it = 0;
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int mt, nt;
        tile_coords(t, tiles_m, tiles_n, mt, nt);
        const int m0 = mt * BM, n0 = nt * BN;
        for (int kt = 0; kt < kTiles; ++kt, ++it) {
          const int s = it % STAGES;
          const uint32_t ph = (uint32_t)(it / STAGES) & 1u;
          mbar_wait(ebar + 8 * s, ph ^ 1u);
          const uint32_t sA = base + s * STAGE_BYTES, sB = sA + TILE_A_BYTES;
          const uint32_t bar = fbar + 8 * s;
          asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                       "r"(STAGE_BYTES)
                       : "memory");
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                       "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sA),
                       "l"(&tmA), "r"(kt * BK), "r"(m0), "r"(bar)
                       : "memory");
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                       "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sB),
                       "l"(&tmB), "r"(kt * BK), "r"(n0), "r"(bar)
                       : "memory");
        }
      }
    }
    return;
  }

  // Consumer warpgroups.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  const int cw = wg - 1;
  const int w = (tid % 128) / 32, l = tid % 32;
  float d[NACC];
#pragma unroll
  for (int i = 0; i < NACC; ++i)
    d[i] = 0.f;
  int it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int mt, nt;
    tile_coords(t, tiles_m, tiles_n, mt, nt);
    const int m0 = mt * BM, n0 = nt * BN;
    int prev_s = 0;
    for (int kt = 0; kt < kTiles; ++kt, ++it) {
      const int s = it % STAGES;
      const uint32_t ph = (uint32_t)(it / STAGES) & 1u;
      mbar_wait(fbar + 8 * s, ph);
      const uint32_t sA = base + s * STAGE_BYTES + cw * (64 * 128), sB = base + s * STAGE_BYTES + TILE_A_BYTES;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < BK / 16; ++k)
        wgmma_m64n@@BN@@k16(d, desc_sw128(sA + 32 * k), desc_sw128(sB + 32 * k), (kt > 0 || k > 0) ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#if WAIT1
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      if (kt > 0)
        mbar_arrive(ebar + 8 * prev_s);
      prev_s = s;
#else
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      mbar_arrive(ebar + 8 * s);
#endif
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#if WAIT1
    if (kTiles > 0)
      mbar_arrive(ebar + 8 * prev_s);
#endif
    // Accumulator layout: d[i] is row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1).
    const int rbase = m0 + cw * 64 + 16 * w + l / 4;
    const bool vec = (N % 2) == 0;
#pragma unroll
    for (int i = 0; i < NACC; i += 2) {
      const int row = rbase + 8 * ((i >> 1) & 1);
      const int col = n0 + 8 * (i >> 2) + 2 * (l % 4);
      if (row >= M)
        continue;
      __nv_bfloat16 *out = C + (size_t)row * N + col;
      if (vec && col + 1 < N) {
        *reinterpret_cast<__nv_bfloat162 *>(out) = __floats2bfloat162_rn(d[i], d[i + 1]);
      } else {
        if (col < N)
          out[0] = __float2bfloat16(d[i]);
        if (col + 1 < N)
          out[1] = __float2bfloat16(d[i + 1]);
      }
    }
  }
}
