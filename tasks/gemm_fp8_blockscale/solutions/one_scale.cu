// Block-scaled fp8 GEMM, BROKEN: the scales of the first k-block are taken for all of them
// (one scale per row and column tile, applied in the epilogue, as for per-tensor scales): wrong
// wherever a row's scales differ between k-blocks, which the inputs' scales in [0.25, 1] make
// everywhere. Otherwise wgmma_tma.cu: the per-tensor fp8 GEMM of
// tasks/gemm_fp8_e4m3/solutions/wgmma_tma.cu with its promotion step doing the block scaling.
// One 128x128 output tile per CTA; thread 0 issues TMA loads of 128x128-byte tiles of a and b
// (128B swizzle) into a 4-stage ring on transaction-count mbarriers; two warpgroups issue
// m64n64k32 e4m3 wgmmas from shared memory. A stage is one 128-wide k-block, exactly one scale
// block: each warpgroup accumulates it in scratch registers, then adds it into its fp32
// accumulators times a_scale of the row (each thread holds two rows) and b_scale of the tile's
// 128 columns (one value per CTA and k-block): the fp32 promotion DeepGEMM does. Correct for
// any M, N and K with K % 16 == 0; a partial last k-block is zero-filled by TMA.
//
// @ptxbench kernel gemm_fp8_blockscale_one_scale grid=(ceildiv(N,128), ceildiv(M,128)) block=256 smem=4*(128+128)*128+1024
// @ptxbench   args tmA, tmB, a_scale, b_scale, c, M, N, K
// @ptxbench tensormap tmA tensor=a box=(128, 128) swizzle=128B
// @ptxbench tensormap tmB tensor=b box=(128, 128) swizzle=128B
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// The driver's CUtensorMap (cuda.h), declared here so the file needs no host headers.
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 128
#define BK 128 // fp8 elements = bytes
#define STAGES 4
#define TILE_A_BYTES (BM * BK) // 16 KiB
#define TILE_B_BYTES (BN * BK) // 16 KiB
#define STAGE_BYTES (TILE_A_BYTES + TILE_B_BYTES)

// Descriptor of a K-major tile with 128-byte rows, 128B-swizzled, 1024-byte aligned
// (docs/arch/sm_90a.md): LBO unused (1), SBO = 8 rows * 128 B.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

#define ACC8(d, i)                                                                              \
  "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]),     \
      "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])

// D[64x64] (+)= A[64x32] * B[32x64], e4m3, both K-major in shared memory. scale_d = 0 starts a
// fresh sum (the old D is ignored).
__device__ __forceinline__ void wgmma_m64n64k32(float (&d)[32], uint64_t da, uint64_t db,
                                                int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1;\n}\n"
               : ACC8(d, 0), ACC8(d, 8), ACC8(d, 16), ACC8(d, 24)
               : "l"(da), "l"(db), "r"(scale_d));
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

// Thread 0: arm the stage's barrier for both tiles, then start both loads. Coordinates are
// innermost first: (k, row).
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

extern "C" __global__ void __launch_bounds__(256, 1)
gemm_fp8_blockscale_one_scale(const __grid_constant__ TensorMap tmA,
                          const __grid_constant__ TensorMap tmB,
                          const float *__restrict__ a_scale, const float *__restrict__ b_scale,
                          __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t full[STAGES];
  // Swizzled tiles must start on a 1024-byte boundary.
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t bar0 = (uint32_t)__cvta_generic_to_shared(&full[0]);
  const int tid = threadIdx.x, wg = tid / 128;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int kTiles = (K + BK - 1) / BK; // = the scales' k-blocks
  // The two rows of a this thread's accumulators hold (see the layout at the epilogue).
  const int w_ = (tid % 128) / 32, l_ = tid % 32;
  const int r0 = m0 + wg * 64 + 16 * w_ + l_ / 4, r1 = r0 + 8;
  const float *sa0 = a_scale + (size_t)min(r0, M - 1) * kTiles;
  const float *sa1 = a_scale + (size_t)min(r1, M - 1) * kTiles;
  const float *sb = b_scale + (size_t)(n0 / 128) * kTiles;

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB) : "memory");
    for (int s = 0; s < STAGES; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * s) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (tid == 0)
    for (int s = 0; s < STAGES && s < kTiles; ++s)
      load_stage(&tmA, &tmB, base + s * STAGE_BYTES, base + s * STAGE_BYTES + TILE_A_BYTES,
                 bar0 + 8 * s, s * BK, m0, n0);

  float acc[64];   // the warpgroup's 64x128 fp32 result
  float scr[2][32]; // one stage of columns 0..63 (scr[0]) and 64..127 (scr[1])
#pragma unroll
  for (int i = 0; i < 64; ++i)
    acc[i] = 0.f;

  for (int kt = 0; kt < kTiles; ++kt) {
    const int s = kt % STAGES;
    mbar_wait(bar0 + 8 * s, (kt / STAGES) & 1);
    // This warpgroup's 64 rows of A start 64 * 128 B = 8 KiB into the tile; B's columns 64..127
    // are rows 64..127 of the B tile, 8 KiB in.
    const uint32_t sA = base + s * STAGE_BYTES + wg * 8192;
    const uint32_t sB = base + s * STAGE_BYTES + TILE_A_BYTES;
    // Orders the previous stage's reads of scr before these wgmmas overwrite it.
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int k = 0; k < BK / 32; ++k)
        wgmma_m64n64k32(scr[h], desc_sw128(sA + 32 * k), desc_sw128(sB + h * 8192 + 32 * k),
                        k > 0 ? 1 : 0);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    }
    // The k-block's scales: rows r0 and r1 of a, the tile's 128 columns of b.
    const float bs = __ldg(sb); // the bug: block 0's scales for every k-block
    const float s0 = __ldg(sa0) * bs, s1 = __ldg(sa1) * bs;
    // Half 1 is still running while half 0 is promoted.
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
#pragma unroll
    for (int i = 0; i < 32; ++i)
      acc[i] += scr[0][i] * (((i >> 1) & 1) ? s1 : s0);
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
    for (int i = 0; i < 32; ++i)
      acc[32 + i] += scr[1][i] * (((i >> 1) & 1) ? s1 : s0);
    // Both warpgroups are done with stage s: refill it with k-tile kt + STAGES.
    __syncthreads();
    if (tid == 0 && kt + STAGES < kTiles)
      load_stage(&tmA, &tmB, base + s * STAGE_BYTES, base + s * STAGE_BYTES + TILE_A_BYTES,
                 bar0 + 8 * s, (kt + STAGES) * BK, m0, n0);
  }

  // Accumulator layout (warp w of the warpgroup, lane l; half h = i / 32 covers columns 64h..):
  // acc[i] is row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1).
  const float scale = 1.f; // applied per k-block above
  const int w = w_, l = l_;
#pragma unroll
  for (int i = 0; i < 64; i += 2) {
    const int row = m0 + wg * 64 + 16 * w + l / 4 + 8 * ((i >> 1) & 1);
    const int col = n0 + 8 * (i >> 2) + 2 * (l % 4);
    if (row >= M)
      continue;
    const float v0 = acc[i] * scale, v1 = acc[i + 1] * scale;
    __nv_bfloat16 *out = C + (size_t)row * N + col;
    if (col + 1 < N && (N % 2) == 0) {
      *reinterpret_cast<__nv_bfloat162 *>(out) = __floats2bfloat162_rn(v0, v1);
    } else {
      if (col < N)
        out[0] = __float2bfloat16(v0);
      if (col + 1 < N)
        out[1] = __float2bfloat16(v1);
    }
  }
}
