// C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T): fp8 e4m3 in, fp32 accumulation, bf16 out, on
// Hopper's own path, with 128x256 tiles: 0.67-0.80 of cuBLASLt on the H200, where
// wgmma_tma_fast.cu (128x128 tiles, TMA-store epilogue) reaches 0.93-0.99. A differently shaped
// passing solution, and the kernel that shows why fp8 needs promotion (PROMOTE 0).
//
// Same structure as the bf16 expert (tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu): persistent,
// grid = min(#SMs, tiles), 128x256 output tiles walked in groups of 16 M-tiles for L2 reuse.
// Warpgroup 0 is the producer (setmaxnreg.dec; one elected thread issues TMA into a 4-stage ring
// of full/empty transaction-count mbarriers); warpgroups 1 and 2 are consumers (setmaxnreg.inc),
// 64 rows each, issuing wgmma straight from 128B-swizzled shared memory.
//
// What changed from bf16, and why:
// - wgmma is .e4m3.e4m3 with K = 32 per instruction. fp8 wgmma has no transpose operands: both
//   operands must be K-major in shared memory, which A[M,K] and B[N,K] are.
// - One 128-byte swizzle row holds 128 fp8 elements, so the K stage is BK = 128, exactly one
//   swizzle atom wide. The byte geometry is the bf16 kernel's (128 B rows, 1024-byte 8-row atoms,
//   +32 B per MMA k-step, four k-steps per stage), so the descriptors and the smem budget
//   (4 stages x (128 + 256) rows x 128 B = 192 KiB) are unchanged; each stage carries twice the
//   K depth, matching fp8's twice-the-bf16 tensor rate. TMA boxes are 128 x 128 and 256 x 128
//   one-byte elements.
// - scale_a * scale_b is read once per consumer thread (one-element device tensors) and applied
//   in the epilogue, before the bounds-checked bf16 stores.
// - Precision: Hopper's fp8 wgmma does not accumulate in full fp32. Public measurements describe
//   the tensor core adding into its accumulator with about 13 mantissa bits, truncating, so the
//   error grows with the accumulator's magnitude. The relative L2 error stays under the task's
//   0.01 at K = 5120, but the task also checks every element against atol 0.1 + rtol 0.02 * |ref|:
//   a CPU model of that accumulator (utils/fp8-accum-model.c: e8m13, truncation after every k32
//   instruction, the task's input distributions, K = 5120) puts 2.3% of the elements outside
//   that bound. So by default (PROMOTE 1) every stage (K = 128) is accumulated in a scratch
//   accumulator (scale-d 0 on its first wgmma) and added into fp32 registers, the "promotion" of
//   DeepSeek-V3 and of CUTLASS's FP8 mainloops; in the same model the worst element then uses a
//   quarter of its tolerance (exact fp32: 0.19; promotion every K = 256: up to 0.76).
//   Registers decide the shape of that: a 64x256 fp32 accumulator is 128 registers per thread,
//   leaving 64 for scratch under the 232 of setmaxnreg. One 64-register scratch (two m64n128
//   halves) would need wait_group 0 before every add, so no group would overlap the next. With
//   two 32-register scratches, each stage is four m64n64k32 quarters (one commit group each) into
//   alternating scratches, and while quarter q runs the threads add quarter q-1
//   (wait_group 1); quarter 3 is drained at the end of the stage (see the loop for why), a gap
//   the other consumer warpgroup fills. The price: the A tile is read from shared memory once per
//   quarter instead of once per stage.
//   PROMOTE 0 is the plain variant: m64n256k32 straight into one accumulator, one wgmma group in
//   flight, exactly like the bf16 kernel; faster, but in the model above it fails the
//   per-element check. Kept for measuring on the GPU.
//
// Correct for any M, N (TMA zero-fills out-of-bounds box elements; the store is bounds-checked)
// and any K that TMA accepts (K % 16 == 0: the global row stride must be a multiple of 16 bytes;
// the K tail is zero-filled).
//
// @ptxbench kernel gemm_fp8_wgmma_tma_ws grid=min(132, ceildiv(M,128)*ceildiv(N,256)) block=384 smem=4*(128+256)*128+1024
// @ptxbench   args tmA, tmB, scale_a, scale_b, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(128, 128) swizzle=128B
// @ptxbench tensormap tmB tensor=B box=(256, 128) swizzle=128B
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// The driver's CUtensorMap (cuda.h), declared here so the file needs no host headers.
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 256
#define BK 128 // fp8 elements = bytes: one 128B swizzle row
#define STAGES 4
#define GROUP_M 16
#define PROMOTE 1 // 1: promote every stage into fp32 registers; 0: plain m64n256k32 (header)
#define KSTEPS (BK / 32)             // k32 wgmmas per stage
#define NACC (BN / 2)                // fp32 accumulator registers per consumer thread (64 x 256)
#define TILE_A_BYTES (BM * BK)       // 16 KiB
#define TILE_B_BYTES (BN * BK)       // 32 KiB
#define STAGE_BYTES (TILE_A_BYTES + TILE_B_BYTES)
#define WG_A_BYTES (64 * BK)         // one consumer's 64 rows of A
#define QUARTER_B_BYTES (64 * BK)    // 64 rows of B: one m64n64 quarter

// Read-write accumulator operands d[i .. i+7], d[i .. i+31], d[i .. i+63].
#define ACC8(d, i)                                                                              \
  "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]),     \
      "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define ACC32(d, i) ACC8(d, (i) + 0), ACC8(d, (i) + 8), ACC8(d, (i) + 16), ACC8(d, (i) + 24)
#define ACC64(d, i)                                                                             \
  ACC8(d, (i) + 0), ACC8(d, (i) + 8), ACC8(d, (i) + 16), ACC8(d, (i) + 24), ACC8(d, (i) + 32),  \
      ACC8(d, (i) + 40), ACC8(d, (i) + 48), ACC8(d, (i) + 56)

// Descriptor of a K-major tile with 128-byte rows, 128B-swizzled, 1024-byte aligned
// (docs/arch/sm_90a.md): LBO unused (1), SBO = 8 rows * 128 B.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

#if PROMOTE
// D[64x64] (+)= A[64x32] * B[32x64], e4m3 operands K-major in shared memory. fp8 wgmma takes
// no transpose immediates: only scale-d, imm-scale-a, imm-scale-b.
__device__ __forceinline__ void wgmma_m64n64k32(float (&d)[32], uint64_t da, uint64_t db,
                                                int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1;\n}\n"
               : ACC32(d, 0)
               : "l"(da), "l"(db), "r"(scale_d));
}
#else
// D[64x256] (+)= A[64x32] * B[32x256], e4m3 operands K-major in shared memory.
__device__ __forceinline__ void wgmma_m64n256k32(float (&d)[128], uint64_t da, uint64_t db,
                                                 int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
               "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
               "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "
               "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "
               "%123, %124, %125, %126, %127}, "
               "%128, %129, p, 1, 1;\n}\n"
               : ACC64(d, 0), ACC64(d, 64)
               : "l"(da), "l"(db), "r"(scale_d));
}
#endif

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
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
gemm_fp8_wgmma_tma_ws(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB,
                      const float *__restrict__ scale_a, const float *__restrict__ scale_b,
                      __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  // Swizzled tiles must start on a 1024-byte boundary.
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
      // full[s]: the producer's expect_tx arrival plus the TMA bytes. empty[s]: all 256 consumer
      // threads are done reading the stage.
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
#if PROMOTE
  float scr[2][32]; // quarter q of a stage accumulates in scr[q & 1]
#else
#pragma unroll
  for (int i = 0; i < NACC; ++i)
    acc[i] = 0.f;
#endif
  int it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int mt, nt;
    tile_coords(t, tiles_m, tiles_n, mt, nt);
    const int m0 = mt * BM, n0 = nt * BN;
#if PROMOTE
#pragma unroll
    for (int i = 0; i < NACC; ++i)
      acc[i] = 0.f;
    for (int kt = 0; kt < kTiles; ++kt, ++it) {
      const int s = it % STAGES;
      mbar_wait(fbar + 8 * s, (uint32_t)(it / STAGES) & 1u);
      const uint32_t sA = base + s * STAGE_BYTES + cw * WG_A_BYTES;
      const uint32_t sB = base + s * STAGE_BYTES + TILE_A_BYTES;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        // Orders the adds that last read scr[q & 1] (two quarters ago) before the wgmmas
        // overwrite it.
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int k = 0; k < KSTEPS; ++k)
          wgmma_m64n64k32(scr[q & 1], desc_sw128(sA + 32 * k),
                          desc_sw128(sB + q * QUARTER_B_BYTES + 32 * k), k > 0 ? 1 : 0);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        if (q > 0) {
          // Quarter q stays in flight while quarter q - 1, now complete, is promoted.
          asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
#pragma unroll
          for (int i = 0; i < 32; ++i)
            acc[32 * (q - 1) + i] += scr[(q - 1) & 1][i];
        }
      }
      // Quarter 3 is drained inside the stage. (Carrying it in flight into the next stage, to be
      // promoted after the next quarter 0, makes ptxas serialize every wgmma, C7514, as soon as
      // any branch sits between the two: it loses track of which accumulators are in flight.)
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      mbar_arrive(ebar + 8 * s); // the stage's last reader is done: the producer may refill it
#pragma unroll
      for (int i = 0; i < 32; ++i)
        acc[96 + i] += scr[1][i];
    }
#else
    int prev_s = 0;
    for (int kt = 0; kt < kTiles; ++kt, ++it) {
      const int s = it % STAGES;
      mbar_wait(fbar + 8 * s, (uint32_t)(it / STAGES) & 1u);
      const uint32_t sA = base + s * STAGE_BYTES + cw * WG_A_BYTES;
      const uint32_t sB = base + s * STAGE_BYTES + TILE_A_BYTES;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < KSTEPS; ++k)
        wgmma_m64n256k32(acc, desc_sw128(sA + 32 * k), desc_sw128(sB + 32 * k),
                         (kt > 0 || k > 0) ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      // Keep this stage's group in flight; the previous one is done, so free its stage.
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      if (kt > 0)
        mbar_arrive(ebar + 8 * prev_s);
      prev_s = s;
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (kTiles > 0)
      mbar_arrive(ebar + 8 * prev_s);
#endif
    // Epilogue, while the producer already fills the ring for the next tile. Accumulator layout
    // (an m64n256 one; with PROMOTE, quarter q's m64n64 layout lands at acc[32q ..]):
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
