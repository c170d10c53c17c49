// C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T): fp8 e4m3 in, fp32 accumulation, bf16 out, on
// Hopper's own path. The expert solution of gemm_fp8_e4m3: 0.93-0.99 of cuBLASLt on the H200 on
// all five workloads (docs/performance.md). wgmma_tma_128x256.cu is a slower kernel of the corpus
// with larger tiles and a register epilogue.
//
// Structure: persistent (grid = min(#SMs, tiles)), 128x128 output tiles walked in groups of 16
// M-tiles for L2 reuse. Warpgroup 0 is the producer (setmaxnreg.dec; one elected thread issues TMA
// 128x128-byte boxes, 128B swizzle, into a 6-stage ring of full/empty transaction-count mbarriers);
// warpgroups 1 and 2 are consumers (setmaxnreg.inc), 64 rows each.
// - Mainloop (DeepGEMM-style promotion): Hopper's fp8 wgmma accumulates with reduced precision, so
//   every K = 128 stage is accumulated by four m64n128k32 wgmmas into a scratch accumulator and
//   added into fp32 registers. A consumer takes the stages of its K range in pairs: stage s0 into
//   scr0 and s1 into scr1 (two commit groups), promotes scr0 while s1's group runs (wait_group 1),
//   then drains and promotes scr1; an odd last stage goes alone. The other consumer's queued
//   groups keep the tensor cores busy over the one exposed turnaround per pair. acc + scr0 + scr1
//   = 192 registers under setmaxnreg 232. Both full-barrier waits come before the first wgmma and
//   stage releases are predicated inside the asm, so no wgmma is in flight across a branch (ptxas
//   keeps them asynchronous).
// - Descriptors: built once as a 32-bit low word and advanced by adding k offsets; the warpgroup
//   index is broadcast from lane 0, and the stream-K unit bounds are made warp-uniform (a warp vote
//   and lane-0 broadcasts), so ptxas keeps stage index and descriptors in uniform registers (with
//   the bounds left as integer divisions the pair loop grew from 202 to 227 instructions, 32 R2UR).
// - Epilogue (whole tiles and stream-K heads): each consumer scales its 64x128 block, rounds it to
//   bf16 and writes it into its own 16 KiB staging buffer in the TMA 128B-swizzle layout
//   (conflict-free st.shared), fence.proxy.async + named barrier, and its thread 0 issues two
//   cp.async.bulk.tensor stores and goes on to the next tile (a register epilogue kept the tensor
//   cores idle: +22% measured).
//
// Schedule. Round-robin alone takes ceil(tiles / 132) tile-times even when the last round is
// mostly empty (M1024: 448 tiles = 3 rounds + 52; M3000: 1344 = 10 rounds + 24). So round-robin
// runs only the full rounds; the last tiles are shared out as one run of k-iterations (one K = 128
// stage each) cut into G contiguous, near-equal ranges:
//  - rem >= G/4 ("rem"): the rem left-over tiles alone (M1024: 52 tiles x 40 stages over 132 CTAs,
//    15-16 stages each, a tile split among up to 4 CTAs);
//  - rem < G/4 ("wave"): the last full round plus the rem tiles (M3000: 156 tiles, 47-48 stages
//    each, at most two CTAs per tile), so neighbours stay close in K and share panels in L2.
// A range is [first piece of tile j0] [whole tiles ...] [head of tile j1]; a piece that does not
// start at k = 0 is a partial sum for another CTA, the head [0, k) is the CTA's last unit and owns
// the tile's result. Stream-K only when the last round is at most 85% full.
//
// The fp8 twists:
//  - Promotion is per stage in both paths, so a K range cut anywhere still adds every K = 128
//    stage's wgmma sum into fp32 exactly once; the partial sums handed over are those promoted
//    fp32 accumulators, and the head adds them with ordinary fp32 adds (the order of the fp32 adds
//    changes, not the precision).
//  - A range with an odd number of stages takes the single-stage path for its last stage (any
//    range may be odd); ranges of 15-16 and 47-48 stages exercise it on the workloads.
//  - The scale is applied once, in the head's epilogue, after all partials are added (partials
//    are unscaled).
//  - Only heads and whole tiles store C (TMA-store epilogue); a partial piece stores its fp32
//    accumulators to `partials` and skips the epilogue.
//  - Partials are added after the mainloop, never loaded as starting accumulators: acc is never a
//    wgmma operand, so no accumulator reaches a wgmma from ordinary instructions (the bf16 work saw
//    ptxas serialize every wgmma, C7515, when it did).
//
// Fix-up protocol (as in the bf16 expert): a partial piece's consumer warpgroup stores its 64 fp32
// accumulators per thread to slot (CTA, warpgroup) of `partials` (fragment order, coalesced 16-byte
// st.global.cg), meets on its named barrier, and one thread raises flags[CTA][wg] with
// fence.acq_rel.gpu + red.relaxed.gpu (the release). A head, after its mainloop, spins with
// ld.acquire.gpu on flags[q][wg] for q = CTA+1, CTA+2, ... up to the CTA whose range reaches the
// tile's end, and adds each slot. Deadlock-free: a CTA only waits on later CTAs' first stream-K
// units, before which nothing waits, and all G <= 132 CTAs are resident (230 KB of shared memory:
// one per SM); if %nsmid says fewer SMs than G, the round-robin schedule is kept.
// `flags` is a zero=once workspace (cleared once at allocation, untimed): after a named barrier
// that guarantees all 128 threads of the head warpgroup have seen their contributors' flags, one
// thread stores 0 back into them. Every raised flag has exactly one head, so all flags are zero
// when the kernel ends. `partials` needs no initialisation (a slot is written before its flag).
// Correct for any M, N with N % 8 == 0 (the C tensor map's 16-byte row stride; TMA zero-fills
// out-of-bounds loads and clips stores) and any K that TMA accepts (K % 16 == 0; the K tail is
// zero-filled). Shared memory 230400 bytes.
//
// @ptxbench kernel gemm_fp8_t128_pairs_sk grid=min(132, ceildiv(M,128)*ceildiv(N,128)) block=384 smem=6*(128+128)*128+2*64*128*2+1024
// @ptxbench   args tmA, tmB, tmC, scale_a, scale_b, M, N, K, partials, flags
// @ptxbench tensormap tmA tensor=A box=(128, 128) swizzle=128B
// @ptxbench tensormap tmB tensor=B box=(128, 128) swizzle=128B
// @ptxbench tensormap tmC tensor=C box=(64, 64) swizzle=128B
// @ptxbench workspace partials bytes=132*128*128*4
// @ptxbench workspace flags bytes=132*2*4 zero=once
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
#define STG_BOX_BYTES (64 * 64 * 2)        // one 64x64 bf16 box of C, 128-byte rows
#define STG_WG_BYTES (2 * STG_BOX_BYTES)   // one consumer's 64x128 output
// Stream-K for the last round when rem / G <= SK_NUM / SK_DEN (SK_ON 0: round-robin only).
#define SK_ON 1
#define SK_NUM 17
#define SK_DEN 20
// Region: the remainder alone when rem / G >= SK_REM_NUM / SK_REM_DEN, else last full round + rem.
#define SK_REM_NUM 1
#define SK_REM_DEN 4
#define SLOT_VEC (NACC / 4) // float4s per consumer thread in a partial-sum slot (32 KiB per slot)

// Read-write accumulator operands d[i .. i+7], d[i .. i+63].
#define ACC8(d, i)                                                                              \
  "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]),     \
      "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define ACC64(d, i)                                                                             \
  ACC8(d, (i) + 0), ACC8(d, (i) + 8), ACC8(d, (i) + 16), ACC8(d, (i) + 24), ACC8(d, (i) + 32),  \
      ACC8(d, (i) + 40), ACC8(d, (i) + 48), ACC8(d, (i) + 56)

// Descriptors built once: the low word of a 128B-swizzled K-major
// descriptor (LBO 1, SBO 1024 B) is (addr >> 4) | 1 << 16, the high word a constant; smem
// addresses stay below 2^18, so k offsets are added to the low word.
__device__ __forceinline__ uint32_t desc_lo(uint32_t smem_addr) { return (smem_addr >> 4) | (1u << 16); }
__device__ __forceinline__ uint64_t desc_of(uint32_t lo) { return (0x40000040ull << 32) | lo; }

// D[64x128] (+)= A[64x32] * B[32x128], e4m3 operands K-major in shared memory.
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

__device__ __forceinline__ uint32_t ld_acquire_gpu(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
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

// This CTA's work: the data-parallel tiles blockIdx.x, +G, ... below dp_end, then its stream-K
// range [sk_i, sk_e) of k-iterations, iteration i being stage i % kTiles of tile
// dp_end + i / kTiles. CTA q's range is [q*per + min(q, extra), (q+1)*per + min(q+1, extra)).
// Producer and consumers build the same Work and walk it in step.
struct Work {
  int t, dp_end, kTiles;
  uint32_t sk_i, sk_e, per, extra;
};

// End of CTA q's stream-K range.
__device__ __forceinline__ uint32_t sk_end(const Work &w, uint32_t q) {
  return (q + 1) * w.per + min(q + 1, w.extra);
}

__device__ __forceinline__ Work make_work(int tiles, int kTiles) {
  const int G = gridDim.x, c = blockIdx.x;
  const int rounds = tiles / G, rem = tiles % G;
  uint32_t nsm;
  asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  Work w;
  w.t = c;
  w.kTiles = kTiles;
  w.dp_end = tiles;
  w.sk_i = w.sk_e = w.per = w.extra = 0;
  if (SK_ON && rem > 0 && rounds > 0 && kTiles > 0 && rem * SK_DEN <= G * SK_NUM &&
      (uint32_t)G <= nsm) {
    int sk_tiles;
    if (rem * SK_REM_DEN >= G * SK_REM_NUM && rem * kTiles >= G) {
      // Remainder only: the staggered K positions touch only the rem tiles' panels (fit in L2);
      // every range is non-empty (rem * kTiles >= G).
      w.dp_end = rounds * G;
      sk_tiles = rem;
    } else {
      // Last full round + remainder: ranges at least kTiles long, at most two CTAs per tile.
      w.dp_end = (rounds - 1) * G;
      sk_tiles = G + rem;
    }
    const uint32_t iters = (uint32_t)sk_tiles * (uint32_t)kTiles;
    w.per = iters / G;
    w.extra = iters % G;
    w.sk_i = c * w.per + min((uint32_t)c, w.extra);
    w.sk_e = sk_end(w, c);
  }
  return w;
}

// Next unit: a tile and its stage range [k0, k1). Data-parallel tiles are whole (0, kTiles).
__device__ __forceinline__ bool next_unit(Work &w, int &tile, int &k0, int &k1) {
  if (w.t < w.dp_end) {
    tile = w.t;
    k0 = 0;
    k1 = w.kTiles;
    w.t += gridDim.x;
    return true;
  }
  if (w.sk_i < w.sk_e) {
    tile = w.dp_end + (int)(w.sk_i / (uint32_t)w.kTiles);
    k0 = (int)(w.sk_i % (uint32_t)w.kTiles);
    k1 = min(w.kTiles, k0 + (int)(w.sk_e - w.sk_i));
    w.sk_i += (uint32_t)(k1 - k0);
    return true;
  }
  return false;
}

extern "C" __global__ void __launch_bounds__(384, 1)
gemm_fp8_t128_pairs_sk(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB,
                       const __grid_constant__ TensorMap tmC, const float *__restrict__ scale_a,
                       const float *__restrict__ scale_b, int M, int N, int K,
                       float4 *__restrict__ partials, uint32_t *flags) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  // Swizzled tiles must start on a 1024-byte boundary.
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t fbar = (uint32_t)__cvta_generic_to_shared(&full[0]);
  const uint32_t ebar = (uint32_t)__cvta_generic_to_shared(&empty[0]);
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0); // warp-uniform

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmC) : "memory");
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
      // Tile counts are computed in each role (the bf16 work saw ptxas keep them live across
      // setmaxnreg and spill when they were computed before the role split).
      const int kTiles = (K + BK - 1) / BK;
      const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
      Work work = make_work(tiles_m * tiles_n, kTiles);
      int it = 0, tile, k0, k1;
      while (next_unit(work, tile, k0, k1)) {
        int mt, nt;
        tile_coords(tile, tiles_m, tiles_n, mt, nt);
        const int m0 = mt * BM, n0 = nt * BN;
        for (int kt = k0; kt < k1; ++kt, ++it) {
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
  const bool store_leader = (tid % 128) == 0; // issues and drains this warpgroup's TMA stores
  // This consumer's staging buffer, after the ring (1024-byte aligned for the 128B swizzle).
  const uint32_t stg = base + STAGES * STAGE_BYTES + cw * STG_WG_BYTES;
  const int kTiles = (K + BK - 1) / BK;
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  float acc[NACC];
  float scr0[NACC], scr1[NACC]; // K = 128 partial sums of the pair's two stages
  Work work = make_work(tiles_m * tiles_n, kTiles);
  int it = 0, tile, k0, k1;
  for (;;) {
    // The unit's bounds come out of integer divisions that ptxas computes in vector registers;
    // left so, it treats the loops as divergent and moves `it` and every descriptor out of the
    // uniform registers (32 R2UR and +25 instructions per stage pair in the SASS). A warp vote
    // and lane-0 broadcasts make them provably warp-uniform (they are: all from blockIdx and
    // the parameters), and the pair loop stays at 202 instructions with no R2UR.
    if (!__all_sync(0xffffffffu, next_unit(work, tile, k0, k1)))
      break;
    k0 = __shfl_sync(0xffffffffu, k0, 0);
    k1 = __shfl_sync(0xffffffffu, k1, 0);
#pragma unroll
    for (int i = 0; i < NACC; ++i)
      acc[i] = 0.f;
    // The mainloop over [k0, k1): pairs of stages, then an odd last stage alone.
    int kt = k0;
    for (; kt + 1 < k1; kt += 2, it += 2) {
      // Both stages of the pair must have landed before anything is issued: no wgmma may be in
      // flight across the waits' branches (ptxas would serialize every wgmma, C7514).
      const int s0 = it % STAGES, s1 = (it + 1) % STAGES;
      mbar_wait(fbar + 8 * s0, (uint32_t)(it / STAGES) & 1u);
      mbar_wait(fbar + 8 * s1, (uint32_t)((it + 1) / STAGES) & 1u);
      const uint32_t sA0 = base + s0 * STAGE_BYTES + cw * WG_A_BYTES;
      const uint32_t sB0 = base + s0 * STAGE_BYTES + TILE_A_BYTES;
      const uint32_t sA1 = base + s1 * STAGE_BYTES + cw * WG_A_BYTES;
      const uint32_t sB1 = base + s1 * STAGE_BYTES + TILE_A_BYTES;
      // Orders the previous pair's adds (reads of scr0, scr1) before the wgmmas overwrite them.
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < KSTEPS; ++k)
        wgmma_m64n128k32(scr0, desc_of(desc_lo(sA0) + 2 * k), desc_of(desc_lo(sB0) + 2 * k),
                         k > 0 ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < KSTEPS; ++k)
        wgmma_m64n128k32(scr1, desc_of(desc_lo(sA1) + 2 * k), desc_of(desc_lo(sB1) + 2 * k),
                         k > 0 ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      // The second stage's group runs while the first one's sum is promoted.
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      mbar_arrive_if(ebar + 8 * s0, l == 0); // this warp's last read of stage s0 is done
#pragma unroll
      for (int i = 0; i < NACC; ++i)
        acc[i] += scr0[i];
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      mbar_arrive_if(ebar + 8 * s1, l == 0);
#pragma unroll
      for (int i = 0; i < NACC; ++i)
        acc[i] += scr1[i];
    }
    if (kt < k1) { // an odd number of stages in the range: the last one alone
      const int s = it % STAGES;
      mbar_wait(fbar + 8 * s, (uint32_t)(it / STAGES) & 1u);
      const uint32_t sA = base + s * STAGE_BYTES + cw * WG_A_BYTES;
      const uint32_t sB = base + s * STAGE_BYTES + TILE_A_BYTES;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < KSTEPS; ++k)
        wgmma_m64n128k32(scr0, desc_of(desc_lo(sA) + 2 * k), desc_of(desc_lo(sB) + 2 * k),
                         k > 0 ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      mbar_arrive_if(ebar + 8 * s, l == 0);
#pragma unroll
      for (int i = 0; i < NACC; ++i)
        acc[i] += scr0[i];
      ++it;
    }

    if (k0 > 0) {
      // A piece that does not start at k = 0 (always this CTA's first stream-K unit): hand the
      // promoted, unscaled fp32 sum to the head. Slot = this CTA, this warpgroup; fragment order,
      // so thread j of the warpgroup writes float4s j, j + 128, ... (coalesced).
      float4 *slot = partials + (size_t)(blockIdx.x * 2 + cw) * SLOT_VEC * 128 + tid % 128;
#pragma unroll
      for (int j = 0; j < SLOT_VEC; ++j)
        __stcg(slot + j * 128, make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
      // All 128 threads' stores happen before the one release (block-level barrier, then a
      // gpu-scope fence and a relaxed add by one thread).
      asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
      if (tid % 128 == 0)
        asm volatile("fence.acq_rel.gpu;\n"
                     "red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(flags + blockIdx.x * 2 + cw)
                     : "memory");
      continue;
    }
    if (k1 < kTiles) {
      // Head of a split tile (always this CTA's last unit): CTAs blockIdx.x+1, +2, ... computed
      // [k1, kTiles) first thing in their stream-K ranges, up to the one whose range reaches the
      // tile's end; wait for each one's slot and add it (after the mainloop: acc never feeds a
      // wgmma).
      const uint32_t tile_end = (uint32_t)(tile - work.dp_end + 1) * (uint32_t)kTiles;
      uint32_t q_last = blockIdx.x;
      for (uint32_t q = blockIdx.x + 1; q < gridDim.x; ++q) {
        const uint32_t *flag = flags + q * 2 + cw;
        while (ld_acquire_gpu(flag) == 0) {
        }
        q_last = q;
        const float4 *slot = partials + (size_t)(q * 2 + cw) * SLOT_VEC * 128 + tid % 128;
#pragma unroll
        for (int j = 0; j < SLOT_VEC; ++j) {
          const float4 p = __ldcg(slot + j * 128);
          acc[4 * j] += p.x;
          acc[4 * j + 1] += p.y;
          acc[4 * j + 2] += p.z;
          acc[4 * j + 3] += p.w;
        }
        if (sk_end(work, q) >= tile_end)
          break;
      }
      // Every thread of the warpgroup has seen its contributors' flags: reset them for the next
      // launch (zero=once workspace). Resetting earlier could leave a late thread spinning.
      asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
      if (tid % 128 == 0)
        for (uint32_t q = blockIdx.x + 1; q <= q_last; ++q)
          asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(flags + q * 2 + cw) : "memory");
    }
    // Epilogue through shared memory and TMA, the scale applied here once, after every
    // partial sum has been added. Accumulator layout (m64n128): acc[i] is row
    // 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1) of this consumer's 64x128 block.
    // Columns 0..63 go to box 0, 64..127 to box 1; in a box, row r holds 128 bytes whose 16-byte
    // chunk j is stored at chunk j ^ (r % 8) (128B swizzle). acc[i], acc[i+1] (i even) are one
    // bf16x2 at chunk (i>>2) % 8, byte 4*(l%4).
    int mt, nt;
    tile_coords(tile, tiles_m, tiles_n, mt, nt);
    const float scale = __ldg(scale_a) * __ldg(scale_b);
    if (store_leader)
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
#pragma unroll
    for (int i = 0; i < NACC; i += 2) {
      const int r = 16 * w + l / 4 + 8 * ((i >> 1) & 1);
      const int box = i >> 5, chunk = (i >> 2) & 7;
      const uint32_t addr = stg + box * STG_BOX_BYTES + r * 128 + ((chunk ^ (r & 7)) << 4) +
                            4 * (l % 4);
      __nv_bfloat162 v = __floats2bfloat162_rn(acc[i] * scale, acc[i + 1] * scale);
      asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(*reinterpret_cast<uint32_t *>(&v))
                   : "memory");
    }
    // Each writer makes its generic-proxy stores visible to the async proxy, then the barrier
    // orders all of them before the TMA store is issued.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
    const int row0 = mt * BM + cw * 64;
    if (store_leader && row0 < M) {
#pragma unroll
      for (int box = 0; box < 2; ++box) {
        const int col0 = nt * BN + 64 * box;
        if (col0 < N) // coordinates innermost first: (column, row)
          asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], "
                       "[%3];" ::"l"(&tmC),
                       "r"(col0), "r"(row0), "r"(stg + box * STG_BOX_BYTES)
                       : "memory");
      }
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
  // The staging buffers must stay allocated until the last TMA store has read them.
  if (store_leader)
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
