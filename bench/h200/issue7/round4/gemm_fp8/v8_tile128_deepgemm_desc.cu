// v8_tile128_deepgemm_desc.cu: v8_tile128_deepgemm.cu with round 4's descriptor change (hoist_desc.py: 2 operands).
// C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T), fp8 e4m3 in, bf16 out: issue 7 round 4,
// variant 8 of tasks/gemm_fp8_e4m3/solutions/wgmma_tma_fast.cu (the expert, 128x256 tiles).
//
// cuBLASLt's kernel shape without its clusters. Nsight Compute on the H200 showed cuBLASLt's
// fastest kernel (nvjet ..._128x128_128x6_2x1_...) running 128x128 output tiles with K = 128
// stages, 6 stages deep, issuing m64n128k32 wgmmas (2.29 M per launch), while the expert issues
// twice as many m64n64k32 quarters and re-reads the A tile from shared memory for each of them.
// Here:
// - 128x128 tiles, BK = 128 (one 128-byte swizzle row of fp8), 6 stages of 32 KiB (A 16 KiB +
//   B 16 KiB) in a full/empty transaction-count mbarrier ring. Persistent, grid = min(132, tiles),
//   tiles walked in groups of 16 M tiles (the expert's order). Warpgroup 0 produces (setmaxnreg
//   40, one elected thread issues TMA); warpgroups 1 and 2 consume (setmaxnreg 232), 64 rows each.
// - The DeepGEMM mainloop: per stage, a consumer issues four m64n128k32 wgmmas (k = 0..3, scale-d
//   0 on the first) into a 64-register scratch accumulator as ONE commit group, waits for it
//   (wait_group 0), releases the stage, and adds the scratch into its 64-register fp32
//   accumulator: promotion every K = 128, exactly the expert's accumulation (so
//   tasks/gemm_fp8_e4m3/accum_model.c applies unchanged). While one consumer waits and adds, the
//   other's queued group (4 x 64 tensor clocks) keeps the tensor cores busy.
//   wgmma shared-memory operand bytes per stage: 2 consumers x 4 x (2 KiB A + 4 KiB B) = 48 KiB
//   per 128x128x128, i.e. 96 KiB per 128x256x128 against the expert's 128 KiB (A once per
//   instruction instead of once per quarter).
// - Stage release: one arrival per consumer WARP (empty count 8) instead of the expert's 256
//   thread arrivals. wgmma.wait_group is warp-synchronous, so lane 0 arriving after it covers its
//   warp's share of the stage's operand reads; 8 warp arrivals cover the stage.
// - The price: without multicast, a 128x128 tile moves 32 KiB from L2 per 128x128x128 stage, 1.33x
//   the bytes per flop of the expert's 128x256 tile (48 KiB per 128x256x128).
// - Epilogue: the expert's, registers straight to global with bf16x2 stores, bounds-checked
//   (rows >= M and columns >= N are skipped), while the producer already fills the ring for the
//   next tile.
// The analyzer reports wgmma as serialized (wait_group 0 after every commit); with two consumer
// warpgroups that is the intended DeepGEMM schedule, not a serialization of the tensor pipe.
//
// Correct for any M, N and any K with K % 16 == 0 (TMA: 16-byte global row stride); the K tail
// and rows past M or N are zero-filled by TMA and counted in full by complete_tx.
//
// @ptxbench kernel gemm_fp8_t128_deepgemm grid=min(132, ceildiv(M,128)*ceildiv(N,128)) block=384 smem=6*(128+128)*128+1024
// @ptxbench   args tmA, tmB, scale_a, scale_b, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(128, 128) swizzle=128B
// @ptxbench tensormap tmB tensor=B box=(128, 128) swizzle=128B
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// The driver's CUtensorMap (cuda.h), declared here so the file needs no host headers.
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 128
#define BK 128 // fp8 elements = bytes: one 128B swizzle row
#define STAGES 6
#define GROUP_M 16
#define KSTEPS (BK / 32)       // k32 wgmmas per stage
#define NACC (BN / 2)          // fp32 accumulator registers per consumer thread (64 x 128)
#define TILE_A_BYTES (BM * BK) // 16 KiB
#define TILE_B_BYTES (BN * BK) // 16 KiB
#define STAGE_BYTES (TILE_A_BYTES + TILE_B_BYTES)
#define WG_A_BYTES (64 * BK)   // one consumer's 64 rows of A
#define CONSUMER_WARPS 8       // arrivals that release a stage

// Read-write accumulator operands d[i .. i+7], d[i .. i+63].
#define ACC8(d, i)                                                                              \
  "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]),     \
      "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define ACC64(d, i)                                                                             \
  ACC8(d, (i) + 0), ACC8(d, (i) + 8), ACC8(d, (i) + 16), ACC8(d, (i) + 24), ACC8(d, (i) + 32),  \
      ACC8(d, (i) + 40), ACC8(d, (i) + 48), ACC8(d, (i) + 56)

// Descriptor of a K-major tile with 128-byte rows, 128B-swizzled, 1024-byte aligned
// (docs/arch/sm_90a.md): LBO unused (1), SBO = 8 rows * 128 B. The expert's, unchanged.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

// Round 4 (bench/h200/issue7/round4/hoist_desc.py): the low word of a 128B-swizzled K-major
// descriptor is (addr >> 4) | 1 << 16, the high word a constant; smem addresses stay below 2^18,
// so k offsets are added to the low word (no mask/shift chain and R2UR around every wgmma).
__device__ __forceinline__ uint32_t desc_lo(uint32_t smem_addr) { return (smem_addr >> 4) | (1u << 16); }
__device__ __forceinline__ uint64_t desc_of(uint32_t lo) { return (0x40000040ull << 32) | lo; }

// D[64x128] (+)= A[64x32] * B[32x128], e4m3 operands K-major in shared memory. fp8 wgmma takes
// no transpose immediates: only scale-d, imm-scale-a, imm-scale-b.
__device__ __forceinline__ void wgmma_m64n128k32(float (&d)[64], uint64_t da, uint64_t db,
                                                 int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
               "%64, %65, p, 1, 1;\n}\n"
               : ACC64(d, 0)
               : "l"(da), "l"(db), "r"(scale_d));
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

// One arrival from the lanes where `pred` holds (lane 0 of each consumer warp); predicated inside
// the asm so that no branch sits in the consumer's mainloop.
__device__ __forceinline__ void mbar_arrive_if(uint32_t bar, bool pred) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %1, 0;\n"
               "@p mbarrier.arrive.shared::cta.b64 _, [%0];\n}\n" ::"r"(bar),
               "r"((uint32_t)pred)
               : "memory");
}

// Tile t of the persistent walk -> (M tile, N tile): GROUP_M M-tiles share each B column block
// while it is in L2.
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
gemm_fp8_t128_deepgemm(const __grid_constant__ TensorMap tmA,
                       const __grid_constant__ TensorMap tmB, const float *__restrict__ scale_a,
                       const float *__restrict__ scale_b, __nv_bfloat16 *__restrict__ C, int M,
                       int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  // Swizzled tiles must start on a 1024-byte boundary.
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t fbar = (uint32_t)__cvta_generic_to_shared(&full[0]);
  const uint32_t ebar = (uint32_t)__cvta_generic_to_shared(&empty[0]);
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0); // warp-uniform
  const int kTiles = (K + BK - 1) / BK;
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int tiles = tiles_m * tiles_n;

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB) : "memory");
    for (int s = 0; s < STAGES; ++s) {
      // full[s]: the producer's expect_tx arrival plus the TMA bytes. empty[s]: each of the 8
      // consumer warps is done reading the stage.
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(fbar + 8 * s) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(ebar + 8 * s),
                   "r"(CONSUMER_WARPS)
                   : "memory");
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
          // Out-of-bounds box elements are zero-filled and still counted: always the full stage.
          asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                       "r"(STAGE_BYTES)
                       : "memory");
          // Coordinates are innermost first: (k, row).
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

  // Consumer warpgroups: cw = 0 computes rows 0..63 of the tile, cw = 1 rows 64..127.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  const int cw = wg - 1;
  const int w = (tid % 128) / 32, l = tid % 32;
  const float scale = __ldg(scale_a) * __ldg(scale_b);
  float acc[NACC];
  float scr[NACC]; // one stage's K = 128 partial sum, before it is added into acc
  int it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int mt, nt;
    tile_coords(t, tiles_m, tiles_n, mt, nt);
    const int m0 = mt * BM, n0 = nt * BN;
#pragma unroll
    for (int i = 0; i < NACC; ++i)
      acc[i] = 0.f;
    for (int kt = 0; kt < kTiles; ++kt, ++it) {
      const int s = it % STAGES;
      mbar_wait(fbar + 8 * s, (uint32_t)(it / STAGES) & 1u);
      const uint32_t sA = base + s * STAGE_BYTES + cw * WG_A_BYTES;
      const uint32_t sB = base + s * STAGE_BYTES + TILE_A_BYTES;
      // Orders the previous stage's adds (reads of scr) before the wgmmas overwrite it.
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < KSTEPS; ++k)
        wgmma_m64n128k32(scr, desc_of(desc_lo(sA) + 2 * k), desc_of(desc_lo(sB) + 2 * k), k > 0 ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      // Nothing of ours stays in flight: the other consumer's queued group keeps the tensor
      // cores busy while this one waits and adds.
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      mbar_arrive_if(ebar + 8 * s, l == 0); // this warp's last read of the stage is done
#pragma unroll
      for (int i = 0; i < NACC; ++i)
        acc[i] += scr[i];
    }
    // Epilogue, while the producer already fills the ring for the next tile. Accumulator layout
    // (an m64n128 one):
    // acc[i] is row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1).
    const int rbase = m0 + cw * 64 + 16 * w + l / 4;
    const bool vec = (N % 2) == 0; // bf16x2 stores need 4-byte alignment
#pragma unroll
    for (int i = 0; i < NACC; i += 2) {
      const int row = rbase + 8 * ((i >> 1) & 1);
      const int col = n0 + 8 * (i >> 2) + 2 * (l % 4);
      if (row >= M)
        continue;
      const float v0 = acc[i] * scale, v1 = acc[i + 1] * scale;
      __nv_bfloat16 *out = C + (size_t)row * N + col;
      if (vec && col + 1 < N) {
        *reinterpret_cast<__nv_bfloat162 *>(out) = __floats2bfloat162_rn(v0, v1);
      } else {
        if (col < N)
          out[0] = __float2bfloat16(v0);
        if (col + 1 < N)
          out[1] = __float2bfloat16(v1);
      }
    }
  }
}
