// v11_cluster2_plain_arrive.cu: v6_cluster2_multicast_b.cu with plain (CTA-scope) remote arrivals with round 4's descriptor change (hoist_desc.py: 2 operands).
// C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T), fp8 e4m3 in, bf16 out: issue 7 round 3,
// variant 6 (the safer one) of tasks/gemm_fp8_e4m3/solutions/wgmma_tma_fast.cu.
//
// One change: CTAs run in clusters of two along M, and the B tile both need is read from L2 once.
// Everything the consumers compute is the expert's (128x256 tiles, BK = 128, four m64n64k32
// quarters per stage promoted into fp32 registers every K = 128, same descriptors, fragments and
// epilogue), so correctness rests only on the load/release protocol below. The PROMOTE 0 path of
// the expert is dropped (it fails the task's check on the H200).
//
// Why: per 128x256x128 stage a CTA pulls 48 KiB from L2 (16 KiB of A, 32 KiB of B). At the
// expert's 1114 TFLOP/s that is 6.5 TB/s of L2->SM traffic over 132 SMs, and the bf16 expert
// (same tile bytes per stage) also stalls near 7 TB/s, so the L2->SM path is the prime suspect for
// the 0.80 ceiling. The two CTAs of a cluster own M tiles 2p and 2p+1 of the same N tile; each
// loads its own A (16 KiB) and HALF of B (128 rows, 16 KiB) with .multicast::cluster into the same
// offset of both CTAs' shared memory. L2 reads per CTA-stage: 32 KiB instead of 48 KiB.
//
// Protocol (stage s, use u):
// - full[s] (count 1): the local producer's arrive.expect_tx(48 KiB) plus complete_tx from three
//   TMA loads: its own A, its own B half, and the peer's multicast B half. The peer's bytes may
//   land before the local expect_tx; the tx-count then goes negative for a while, which mbarriers
//   allow, and the phase cannot complete without the local arrival.
// - empty[s] (count 16): every consumer warp of BOTH CTAs arrives once (lane r of each warp
//   arrives on CTA r's barrier through mapa + mbarrier.arrive.release.cluster), because the
//   producer's B half is written into both CTAs' copies of stage s. A per-warp arrival after the
//   warp's wgmma.wait_group 0 (warp-synchronous) covers that warp's share of the wgmma reads.
// - the producer waits on empty[s] with acquire.cluster before reloading stage s.
// - startup: barrier.cluster after mbarrier.init, so no multicast or remote arrival reaches an
//   uninitialized barrier. exit: barrier.cluster again, so no CTA leaves while its peer can still
//   arrive on its barriers (the last remote arrivals of the peer's consumers).
// Both CTAs of a cluster walk the same sequence of pair tiles (cluster id, stride #clusters) with
// the same K loop, so their stage uses stay in step. If M has an odd number of 128-row tiles, the
// second CTA of the last pair row loads a box wholly below M (TMA zero-fills it and counts the
// full bytes) and stores nothing.
//
// Schedule: persistent, grid = min(132, 2 * pair tiles), clusters of 2 (an H100/H200 TPC is two
// SMs, so all 66 clusters can be resident at once). Pair tiles (256 x 256) are walked in groups of
// 8 pair rows (= the expert's 16 M tiles) for L2 reuse of B.
//
// @ptxbench kernel gemm_fp8_cluster2_mc grid=min(132, 2*ceildiv(M,256)*ceildiv(N,256)) block=384 cluster=(2,1,1) smem=4*(128+256)*128+1024
// @ptxbench   args tmA, tmB, scale_a, scale_b, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(128, 128) swizzle=128B
// @ptxbench tensormap tmB tensor=B box=(128, 128) swizzle=128B
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// The driver's CUtensorMap (cuda.h), declared here so the file needs no host headers.
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 256
#define BK 128 // fp8 elements = bytes: one 128B swizzle row
#define STAGES 4
#define GROUP_MP 8                   // pair rows per group of the tile walk (16 M tiles)
#define KSTEPS (BK / 32)             // k32 wgmmas per stage
#define NACC (BN / 2)                // fp32 accumulator registers per consumer thread (64 x 256)
#define TILE_A_BYTES (BM * BK)       // 16 KiB
#define TILE_B_BYTES (BN * BK)       // 32 KiB
#define HALF_B_BYTES (TILE_B_BYTES / 2) // the 128 B rows one CTA of the pair loads and multicasts
#define STAGE_BYTES (TILE_A_BYTES + TILE_B_BYTES)
#define WG_A_BYTES (64 * BK)         // one consumer's 64 rows of A
#define QUARTER_B_BYTES (64 * BK)    // 64 rows of B: one m64n64 quarter
#define CONSUMER_WARPS 8
#define EMPTY_ARRIVALS (2 * CONSUMER_WARPS) // every consumer warp of both CTAs

// Read-write accumulator operands d[i .. i+7], d[i .. i+31].
#define ACC8(d, i)                                                                              \
  "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]),     \
      "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define ACC32(d, i) ACC8(d, (i) + 0), ACC8(d, (i) + 8), ACC8(d, (i) + 16), ACC8(d, (i) + 24)

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

// D[64x64] (+)= A[64x32] * B[32x64], e4m3 operands K-major in shared memory.
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

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

// The empty barriers collect arrivals released at cluster scope by the peer CTA's consumers.
__device__ __forceinline__ void mbar_wait_cluster(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

// Arrive on the barrier at CTA-local address `bar` of cluster CTA `rank` (possibly this one).
// Round 4: default semantics (release at CTA scope), not .release.cluster: on the H200 the
// cluster-scope release made every arrival a memory barrier (ncu: "membar" was the largest stall
// of round 3's v6, 8108 of ~45k samples, absent from the expert) and v6 ran at 0.59 of cuBLASLt.
// The arriving warp has only read the stage, and its wgmmas are complete (wait_group 0); the
// peer's producer orders its TMA writes after observing the phase flip.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t rank) {
  asm volatile("{\n.reg .b32 remote;\n"
               "mapa.shared::cluster.u32 remote, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
               "r"(rank)
               : "memory");
}

__device__ __forceinline__ void cluster_sync_all() {
  // Not .aligned: the producer warp reaches the final one after a divergent elected-thread loop.
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

// Pair tile p of the persistent walk -> (pair row, N tile): GROUP_MP pair rows share each B
// column block while it is in L2.
__device__ __forceinline__ void pair_coords(int p, int pairs_m, int tiles_n, int &mp, int &nt) {
  const int per_group = GROUP_MP * tiles_n;
  const int group = p / per_group;
  const int first = group * GROUP_MP;
  const int gsize = min(pairs_m - first, GROUP_MP);
  const int r = p - group * per_group;
  mp = first + r % gsize;
  nt = r / gsize;
}

extern "C" __global__ void __launch_bounds__(384, 1)
gemm_fp8_cluster2_mc(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB,
                     const float *__restrict__ scale_a, const float *__restrict__ scale_b,
                     __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  // Swizzled tiles must start on a 1024-byte boundary; the offset is the same in both CTAs, which
  // multicast relies on (it writes the issuing CTA's offsets into every destination CTA).
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t fbar = (uint32_t)__cvta_generic_to_shared(&full[0]);
  const uint32_t ebar = (uint32_t)__cvta_generic_to_shared(&empty[0]);
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0); // warp-uniform
  uint32_t rank, cluster_id, clusters;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(cluster_id));
  asm("mov.u32 %0, %%nclusterid.x;" : "=r"(clusters));
  const int kTiles = (K + BK - 1) / BK;
  const int pairs_m = (M + 2 * BM - 1) / (2 * BM), tiles_n = (N + BN - 1) / BN;
  const int pairs = pairs_m * tiles_n;

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB) : "memory");
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(fbar + 8 * s) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(ebar + 8 * s),
                   "n"(EMPTY_ARRIVALS)
                   : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  // Both CTAs' barriers exist before either producer multicasts or any consumer arrives remotely.
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");

  if (wg == 0) {
    // Producer warpgroup: give registers back, one elected thread drives TMA.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    uint32_t leader;
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}"
                 : "=r"(leader));
    if (tid / 32 == 0 && leader) {
      const unsigned short both = 0x3; // multicast mask: CTA ranks 0 and 1
      int it = 0;
      for (int p = (int)cluster_id; p < pairs; p += (int)clusters) {
        int mp, nt;
        pair_coords(p, pairs_m, tiles_n, mp, nt);
        const int m0 = (2 * mp + (int)rank) * BM, n0 = nt * BN;
        for (int kt = 0; kt < kTiles; ++kt, ++it) {
          const int s = it % STAGES;
          const uint32_t ph = (uint32_t)(it / STAGES) & 1u;
          mbar_wait_cluster(ebar + 8 * s, ph ^ 1u); // both CTAs' consumers are done with stage s
          const uint32_t sA = base + s * STAGE_BYTES, sB = sA + TILE_A_BYTES;
          const uint32_t bar = fbar + 8 * s;
          // Out-of-bounds box elements are zero-filled and still counted: always the full stage
          // (own A + own B half + the peer's B half).
          asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                       "r"(STAGE_BYTES)
                       : "memory");
          // Coordinates are innermost first: (k, row).
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                       "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sA),
                       "l"(&tmA), "r"(kt * BK), "r"(m0), "r"(bar)
                       : "memory");
          // B rows n0 + 128 * rank .. +127 into both CTAs' stage s, signalling both full[s].
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                       "complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(
                           sB + rank * HALF_B_BYTES),
                       "l"(&tmB), "r"(kt * BK), "r"(n0 + (int)rank * (BN / 2)), "r"(bar),
                       "h"(both)
                       : "memory");
        }
      }
    }
    __syncwarp();
    cluster_sync_all();
    return;
  }

  // Consumer warpgroups: cw = 0 computes rows 0..63 of the CTA's tile, cw = 1 rows 64..127.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  const int cw = wg - 1;
  const int w = (tid % 128) / 32, l = tid % 32;
  const float scale = __ldg(scale_a) * __ldg(scale_b);
  float acc[NACC];
  float scr[2][32]; // quarter q of a stage accumulates in scr[q & 1]
  int it = 0;
  for (int p = (int)cluster_id; p < pairs; p += (int)clusters) {
    int mp, nt;
    pair_coords(p, pairs_m, tiles_n, mp, nt);
    const int m0 = (2 * mp + (int)rank) * BM, n0 = nt * BN;
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
          wgmma_m64n64k32(scr[q & 1], desc_of(desc_lo(sA) + 2 * k),
                          desc_of(desc_lo(sB + q * QUARTER_B_BYTES) + 2 * k), k > 0 ? 1 : 0);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        if (q > 0) {
          // Quarter q stays in flight while quarter q - 1, now complete, is promoted.
          asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
#pragma unroll
          for (int i = 0; i < 32; ++i)
            acc[32 * (q - 1) + i] += scr[(q - 1) & 1][i];
        }
      }
      // Quarter 3 is drained inside the stage (carrying it over makes ptxas serialize, see the
      // expert). After the warp-synchronous wait this warp no longer reads stage s: lane r tells
      // CTA r's producer (each producer multicasts into both CTAs' copies of the stage).
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      if (l < 2)
        mbar_arrive_cluster(ebar + 8 * s, (uint32_t)l);
#pragma unroll
      for (int i = 0; i < 32; ++i)
        acc[96 + i] += scr[1][i];
    }
    // Epilogue (the expert's), while the producer already fills the ring for the next tile.
    // acc[i] is row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1): quarter q's
    // m64n64 layout lands at acc[32q ..].
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
  // No CTA exits while its peer may still arrive on its empty barriers.
  cluster_sync_all();
}
