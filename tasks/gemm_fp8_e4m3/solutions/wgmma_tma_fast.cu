// C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T): fp8 e4m3 in, fp32 accumulation, bf16 out, on
// Hopper's own path. The expert solution of gemm_fp8_e4m3: issue 7's round-4 variant v10
// (bench/h200/issue7/round4/gemm_fp8/, with hoisted descriptors), 0.90-0.99 of cuBLASLt on the
// H200 on all five workloads (docs/perf.md). wgmma_tma_128x256.cu is the previous expert.
//
// Structure: persistent (grid = min(#SMs, tiles)), 128x128 output tiles walked in groups of 16
// M-tiles for L2 reuse. Warpgroup 0 is the producer (setmaxnreg.dec; one elected thread issues TMA
// 128x128-byte boxes, 128B swizzle, into a 6-stage ring of full/empty transaction-count mbarriers);
// warpgroups 1 and 2 are consumers (setmaxnreg.inc), 64 rows each.
// - Mainloop (DeepGEMM-style promotion): Hopper's fp8 wgmma accumulates with reduced precision, so
//   every K = 128 stage is accumulated by four m64n128k32 wgmmas into a scratch accumulator and
//   added into fp32 registers. A consumer takes the ring's stages in pairs: stage s0 into scr0 and
//   s1 into scr1 (two commit groups), promotes scr0 while s1's group runs (wait_group 1), then
//   drains and promotes scr1; the other consumer's queued groups keep the tensor cores busy over
//   the one exposed turnaround per pair. acc + scr0 + scr1 = 192 registers under setmaxnreg 232.
//   Both full-barrier waits come before the first wgmma and stage releases are predicated inside
//   the asm, so no wgmma is in flight across a branch (ptxas keeps them asynchronous).
// - Descriptors: built once as a 32-bit low word and advanced by adding k offsets; the warpgroup
//   index is broadcast from lane 0 so ptxas keeps them in uniform registers (Nsight Compute showed
//   ~8 instructions of descriptor arithmetic around every wgmma before).
// - Epilogue: each consumer scales its 64x128 block, rounds it to bf16 and writes it into its own
//   16 KiB staging buffer in the TMA 128B-swizzle layout (conflict-free st.shared),
//   fence.proxy.async + named barrier, and its thread 0 issues two cp.async.bulk.tensor stores and
//   goes on to the next tile (a register epilogue kept the tensor cores idle: +22% measured).
// Correct for any M, N with N % 8 == 0 (the C tensor map's 16-byte row stride; TMA zero-fills
// out-of-bounds loads and clips stores) and any K that TMA accepts (K % 16 == 0; the K tail is
// zero-filled). Shared memory 230400 bytes.
//
// @ptxbench kernel gemm_fp8_t128_pairs grid=min(132, ceildiv(M,128)*ceildiv(N,128)) block=384 smem=6*(128+128)*128+2*64*128*2+1024
// @ptxbench   args tmA, tmB, tmC, scale_a, scale_b, M, N, K
// @ptxbench tensormap tmA tensor=A box=(128, 128) swizzle=128B
// @ptxbench tensormap tmB tensor=B box=(128, 128) swizzle=128B
// @ptxbench tensormap tmC tensor=C box=(64, 64) swizzle=128B
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

// Read-write accumulator operands d[i .. i+7], d[i .. i+63].
#define ACC8(d, i)                                                                              \
  "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]),     \
      "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
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
gemm_fp8_t128_pairs(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB,
                    const __grid_constant__ TensorMap tmC, const float *__restrict__ scale_a,
                    const float *__restrict__ scale_b, int M, int N, int K) {
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
  const bool store_leader = (tid % 128) == 0; // issues and drains this warpgroup's TMA stores
  // This consumer's staging buffer, after the ring (1024-byte aligned for the 128B swizzle).
  const uint32_t stg = base + STAGES * STAGE_BYTES + cw * STG_WG_BYTES;
  float acc[NACC];
  float scr0[NACC], scr1[NACC]; // K = 128 partial sums of the pair's two stages
  int it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int mt, nt;
    tile_coords(t, tiles_m, tiles_n, mt, nt);
    const int m0 = mt * BM, n0 = nt * BN;
#pragma unroll
    for (int i = 0; i < NACC; ++i)
      acc[i] = 0.f;
    int kt = 0;
    for (; kt + 1 < kTiles; kt += 2, it += 2) {
      // Both stages of the pair must have landed before anything is issued: no wgmma may be in
      // flight across the waits' branches (issue 7's round 1 saw ptxas serialize
      // every wgmma, C7514, when one was).
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
      // Drained at the end of the pair; the other consumer's queued groups fill the gap.
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      mbar_arrive_if(ebar + 8 * s1, l == 0);
#pragma unroll
      for (int i = 0; i < NACC; ++i)
        acc[i] += scr1[i];
    }
    if (kt < kTiles) { // an odd number of K stages: the last one alone
      const int s = it % STAGES;
      mbar_wait(fbar + 8 * s, (uint32_t)(it / STAGES) & 1u);
      const uint32_t sA = base + s * STAGE_BYTES + cw * WG_A_BYTES;
      const uint32_t sB = base + s * STAGE_BYTES + TILE_A_BYTES;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < KSTEPS; ++k)
        wgmma_m64n128k32(scr0, desc_of(desc_lo(sA) + 2 * k), desc_of(desc_lo(sB) + 2 * k), k > 0 ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      mbar_arrive_if(ebar + 8 * s, l == 0);
#pragma unroll
      for (int i = 0; i < NACC; ++i)
        acc[i] += scr0[i];
      ++it;
    }
    // Epilogue through shared memory and TMA (header). Accumulator layout (an m64n128 one):
    // acc[i] is row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1) of this
    // consumer's 64x128 block. Columns 0..63 go to box 0, 64..127 to box 1; in a box, row r holds
    // 128 bytes whose 16-byte chunk j is stored at chunk j ^ (r % 8) (128B swizzle, box 1024-byte
    // aligned). acc[i], acc[i+1] (i even) are one 4-byte bf16x2 at chunk (i>>2) % 8, byte 4*(l%4).
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
    const int row0 = m0 + cw * 64;
    if (store_leader && row0 < M) {
#pragma unroll
      for (int box = 0; box < 2; ++box) {
        const int col0 = n0 + 64 * box;
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
