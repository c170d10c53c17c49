// C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T), fp8 e4m3 in, fp32 accumulate, bf16 out, on
// Blackwell's own path (sm_100a): TMA loads into a 4-stage ring on transaction-count mbarriers,
// tcgen05.mma (kind::f8f6f4, cta_group::1, M = 128, N = 256, K = 32) accumulating in tensor
// memory, a tcgen05.ld epilogue that applies the per-tensor scales. Statically checked only (not
// yet run on a B200): written to be correct by construction, see the reasoning in the comments.
// The bf16 twin is tasks/gemm_bf16_nt/solutions/tcgen05_tma.cu; only the element type, the MMA
// kind, K per instruction and the scales differ.
//
// Unlike Hopper's fp8 wgmma (about 13 accumulator mantissa bits, hence the "promotion" into fp32
// registers in wgmma_tma.cu), tcgen05's kind::f8f6f4 accumulates into an fp32 D in tensor
// memory, so this kernel accumulates the whole K in TMEM without promotion. If a B200 run ever
// shows otherwise, commit every few stages to a second accumulator and add in the epilogue.
//
// One CTA per 128x256 output tile, 192 threads in three roles:
//  - warp 4, lane 0: the TMA producer. Stage s holds A[m0:+128, k0:+128] (16 KiB) and
//    B[n0:+256, k0:+128] (32 KiB), both K-major with 128-byte rows (128 e4m3 elements, one
//    swizzle span), 128B-swizzled by TMA.
//    full[s] is armed with mbarrier.arrive.expect_tx for both boxes; the producer refills a stage
//    after empty[s] completes.
//  - warp 5, lane 0: the MMA issuer. Per stage: wait full[s], four M128 N256 K32 MMAs from
//    shared-memory descriptors (+32 bytes per k32 step inside the swizzled 128-byte row), then
//    tcgen05.commit to empty[s] (the stage is free once those MMAs have read it). After the last
//    stage one more commit to `done` says the accumulator is complete.
//  - warps 0-3: the epilogue. Warp w may only touch TMEM lanes 32w..32w+31 (rows of the tile);
//    each thread owns one row, reads it with tcgen05.ld.32x32b.x32 (32 fp32 columns at a time),
//    multiplies by scale_a * scale_b, converts to bf16 and stores it, bounds-checked (16-byte
//    stores where a whole 8-column group is in bounds and N % 8 == 0).
// Warp 0 allocates 256 TMEM columns (the 128x256 fp32 accumulator) before the roles split and
// deallocates them at the end. One CTA per SM (197 KiB of shared memory), so the allocation never
// waits for another CTA's columns.
//
// Partial tiles: TMA zero-fills out-of-bounds box elements (rows past M or N, the K tail), and
// the transaction count is the full box either way, so any M, N and K >= 1 work (K % 16 == 0 for
// TMA's 16-byte row stride). Not tuned: not persistent, the epilogue does not overlap the next
// tile's MMAs (no double-buffered accumulator), no TMA store, no 2-CTA (cta_group::2) MMA.
//
// @ptxbench kernel gemm_fp8_tcgen05_tma grid=(ceildiv(N,256), ceildiv(M,128)) block=192 smem=4*49152+1024
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
#define BK 128 // e4m3 elements = 128 bytes, one swizzle span
#define MMA_K 32 // K of one kind::f8f6f4 MMA: 32 bytes of the row
#define STAGES 4
#define TILE_A_BYTES (BM * BK) // 16 KiB
#define TILE_B_BYTES (BN * BK) // 32 KiB
#define STAGE_BYTES (TILE_A_BYTES + TILE_B_BYTES)
#define TMEM_COLS 256 // 128 lanes x 256 fp32 columns: the accumulator
#define PRODUCER_WARP 4
#define MMA_WARP 5

// Instruction descriptor, kind::f8f6f4: D f32 (bits 4-5 = 1), A e4m3 (bits 7-9 = 0), B e4m3
// (bits 10-12 = 0; 1 would be e5m2), both K-major (bits 15, 16 = 0), N >> 3 in bits 17-22,
// M >> 4 in bits 24-28.
#define IDESC ((1u << 4) | (0u << 7) | (0u << 10) | ((uint32_t)(BN >> 3) << 17) | \
               ((uint32_t)(BM >> 4) << 24))

// Shared-memory descriptor (sm_100 layout) of a K-major tile with 128-byte rows, 128B swizzle,
// 1024-byte aligned: LBO unused (1), SBO = 8 rows * 128 B, the fixed 0b001 in bits 46-48,
// swizzle mode 2 (128B) in bits 61-63.
__device__ __forceinline__ uint64_t desc_kmajor_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 46;
  d |= (uint64_t)2 << 61;
  return d;
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

__device__ __forceinline__ void tc_fence_before() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void tc_fence_after() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

// The mbarrier gets one arrival once every tcgen05 operation this thread issued so far is done.
__device__ __forceinline__ void tc_commit(uint32_t bar) {
  asm volatile(
      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar)
      : "memory");
}

// D[128x256] (+)= A[128x32] * B[32x256], e4m3; accumulate = false overwrites D.
__device__ __forceinline__ void mma_e4m3(uint32_t d_tmem, uint64_t da, uint64_t db,
                                         uint32_t accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
               "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
               "l"(da), "l"(db), "r"(IDESC), "r"(accumulate)
               : "memory");
}

// 32 consecutive fp32 columns of this warp's 32 lanes: thread l gets lane (base lane + l).
__device__ __forceinline__ void tmem_load32(uint32_t taddr, uint32_t (&r)[32]) {
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "[%32];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]),
                 "=r"(r[6]), "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]),
                 "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]),
                 "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
                 "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]),
                 "=r"(r[30]), "=r"(r[31])
               : "r"(taddr)
               : "memory");
  // The registers are undefined until the wait.
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) { // lo -> bits 0-15
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t *>(&v);
}

// Arm the stage's barrier for both boxes, then start both loads. Coordinates are innermost
// first: (k, row).
__device__ __forceinline__ void load_stage(const TensorMap *tmA, const TensorMap *tmB, uint32_t sA,
                                           uint32_t sB, uint32_t bar, int k0, int m0, int n0) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(STAGE_BYTES)
               : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sA),
               "l"(tmA), "r"(k0), "r"(m0), "r"(bar)
               : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sB),
               "l"(tmB), "r"(k0), "r"(n0), "r"(bar)
               : "memory");
}

extern "C" __global__ void __launch_bounds__(192, 1)
gemm_fp8_tcgen05_tma(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB,
                     const float *__restrict__ scale_a, const float *__restrict__ scale_b,
                     __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t bars[2 * STAGES + 1]; // full[STAGES], empty[STAGES], done
  __shared__ uint32_t tmem_slot;
  // Swizzled tiles must start on a 1024-byte boundary.
  const uint32_t base = ((uint32_t)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;
  const uint32_t full0 = (uint32_t)__cvta_generic_to_shared(&bars[0]);
  const uint32_t empty0 = full0 + 8 * STAGES, done = full0 + 16 * STAGES;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int kTiles = (K + BK - 1) / BK;

  if (warp == 0) {
    // Whole warp (.sync.aligned): the base address lands in tmem_slot.
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(
                     (uint32_t)__cvta_generic_to_shared(&tmem_slot)),
                 "n"(TMEM_COLS)
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (warp == PRODUCER_WARP && lane == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB) : "memory");
    for (int i = 0; i < 2 * STAGES + 1; ++i)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(full0 + 8 * i) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // The allocation is published through shared memory: fence the tcgen05 side of the barrier.
  tc_fence_before();
  __syncthreads();
  tc_fence_after();
  const uint32_t tmem = tmem_slot;

  if (warp == PRODUCER_WARP) {
    if (lane == 0) {
      for (int kt = 0; kt < kTiles; ++kt) {
        const int s = kt % STAGES;
        // Refill only after the MMAs that read the stage's previous contents have completed
        // (their tcgen05.commit arrives on empty[s]).
        if (kt >= STAGES)
          mbar_wait(empty0 + 8 * s, ((kt / STAGES) - 1) & 1);
        const uint32_t sA = base + s * STAGE_BYTES;
        load_stage(&tmA, &tmB, sA, sA + TILE_A_BYTES, full0 + 8 * s, kt * BK, m0, n0);
      }
    }
    __syncwarp();
  } else if (warp == MMA_WARP) {
    if (lane == 0) {
      for (int kt = 0; kt < kTiles; ++kt) {
        const int s = kt % STAGES;
        mbar_wait(full0 + 8 * s, (kt / STAGES) & 1);
        tc_fence_after();
        const uint32_t sA = base + s * STAGE_BYTES, sB = sA + TILE_A_BYTES;
#pragma unroll
        for (int k = 0; k < BK / MMA_K; ++k)
          mma_e4m3(tmem, desc_kmajor_sw128(sA + MMA_K * k), desc_kmajor_sw128(sB + MMA_K * k),
                   (kt > 0 || k > 0) ? 1u : 0u);
        tc_commit(empty0 + 8 * s);
      }
      // Tracks every MMA above: the accumulator is complete when `done` flips.
      tc_commit(done);
    }
    __syncwarp();
  } else {
    // Epilogue warps 0-3: warp w owns TMEM lanes (tile rows) 32w..32w+31, one row per thread.
    const float scale = __ldg(scale_a) * __ldg(scale_b);
    mbar_wait(done, 0);
    tc_fence_after();
    const int row = m0 + 32 * warp + lane;
    __nv_bfloat16 *crow = C + (size_t)row * N;
    const bool vec_ok = (N % 8) == 0;
#pragma unroll 1
    for (int c = 0; c < BN; c += 32) {
      uint32_t r[32];
      tmem_load32(tmem + ((uint32_t)(32 * warp) << 16) + c, r);
      // K = 0: no MMA ran and the accumulator was never written; the result is zero.
#pragma unroll
      for (int j = 0; j < 32; ++j)
        r[j] = kTiles == 0 ? 0u : __float_as_uint(__uint_as_float(r[j]) * scale);
      // The tcgen05.ld above stays warp-uniform; rows past M only skip their stores.
#pragma unroll
      for (int g = 0; g < 4 && row < M; ++g) {
        const int col = n0 + c + 8 * g;
        const float *f = reinterpret_cast<const float *>(&r[8 * g]);
        if (vec_ok && col + 8 <= N) {
          uint4 v;
          v.x = pack_bf16x2(f[0], f[1]);
          v.y = pack_bf16x2(f[2], f[3]);
          v.z = pack_bf16x2(f[4], f[5]);
          v.w = pack_bf16x2(f[6], f[7]);
          *reinterpret_cast<uint4 *>(crow + col) = v;
        } else {
#pragma unroll
          for (int j = 0; j < 8; ++j)
            if (col + j < N)
              crow[col + j] = __float2bfloat16(f[j]);
        }
      }
    }
  }

  // Every tcgen05.ld has completed (wait::ld) before this barrier; the MMAs completed before
  // `done` flipped. Only then may warp 0 free the columns.
  tc_fence_before();
  __syncthreads();
  if (warp == 0) {
    tc_fence_after();
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tmem),
                 "n"(TMEM_COLS)
                 : "memory");
  }
}
