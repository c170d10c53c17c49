// C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T), fp8 e4m3 in, bf16 out: issue 7 round 4,
// variant 9: variant 8 (v8_tile128_deepgemm.cu, 128x128 tiles, DeepGEMM mainloop) with a TMA-store
// epilogue. Mainloop, ring, descriptors, fragments and promotion are v8's, unchanged.
//
// Why: the epilogue of v8 and of the expert stores registers straight to global memory. A warp's
// bf16x2 store touches 8 rows x 16 bytes, i.e. 8 different 128-byte lines for 128 useful bytes,
// and a 128x128 tile takes 256 such warp stores; at about one line per clock through L1 that is
// ~2000 clocks per tile against ~20500 tensor clocks of mainloop (K = 5120), during which BOTH
// consumers store and the tensor cores idle (~10% if nothing overlaps it). cuBLASLt's kernel
// appears to stage its output through shared memory: its smem wavefronts exceed its wgmma operand
// reads (48 KiB per 128x128x128 stage) by ~113 KiB per tile, while the expert's equal its operand
// reads exactly. Here each consumer warpgroup:
//   1. waits (its thread 0: cp.async.bulk.wait_group.read 0) until its previous tile's TMA store
//      has finished reading the staging buffer (issued a whole tile earlier: no wait in practice),
//      and a named barrier (id 1 + cw, 128 threads) tells the warpgroup;
//   2. writes its 64x128 tile, scaled and rounded to bf16, into its own 16 KiB staging buffer as
//      two 64x64 boxes in the TMA 128B-swizzle layout (conflict-free 4-byte st.shared: the 8 rows
//      one warp store touches land in 8 different 16-byte chunks of the 128-byte bank row);
//   3. fence.proxy.async.shared::cta (its generic-proxy writes become visible to TMA), named
//      barrier again, and its thread 0 issues two cp.async.bulk.tensor stores (64 rows x 64
//      columns each) and commits them as one bulk group;
//   4. goes straight on to the next tile's mainloop while the TMA engine writes C.
// TMA clips rows >= M and columns >= N, so the ragged M3000 needs no bounds checks; a box that
// starts wholly outside C is not issued at all. Thread 0 of each consumer drains its bulk groups
// (cp.async.bulk.wait_group 0) before the kernel exits.
//
// Shared memory: 6 stages x 32 KiB + 2 x 16 KiB staging + 1024 alignment = 230400 bytes, under the
// 227 KiB (232448) limit. The C tensor map needs N % 8 == 0 (16-byte global row stride); every
// workload has N a multiple of 128. The analyzer reports wgmma as serialized for the same reason
// as v8 (intended: DeepGEMM schedule with two consumer warpgroups).
//
// @ptxbench kernel gemm_fp8_t128_tma_store grid=min(132, ceildiv(M,128)*ceildiv(N,128)) block=384 smem=6*(128+128)*128+2*64*128*2+1024
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
// (docs/arch/sm_90a.md): LBO unused (1), SBO = 8 rows * 128 B. The expert's, unchanged.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

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
gemm_fp8_t128_tma_store(const __grid_constant__ TensorMap tmA,
                        const __grid_constant__ TensorMap tmB,
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
  const int tid = threadIdx.x, wg = tid / 128;
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
        wgmma_m64n128k32(scr, desc_sw128(sA + 32 * k), desc_sw128(sB + 32 * k), k > 0 ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      // Nothing of ours stays in flight: the other consumer's queued group keeps the tensor
      // cores busy while this one waits and adds.
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      mbar_arrive_if(ebar + 8 * s, l == 0); // this warp's last read of the stage is done
#pragma unroll
      for (int i = 0; i < NACC; ++i)
        acc[i] += scr[i];
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
