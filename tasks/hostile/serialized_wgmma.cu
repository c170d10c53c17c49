// HOSTILE (games the feature credit): the requested path executed in a way
// that gains nothing: TMA tiles on transaction mbarriers and
// wgmma.mma_async doing every FLOP, but one warpgroup per CTA and a
// wgmma.wait_group 0 right after every commit, so the tensor cores idle
// while each k-step's tiles are awaited and no group overlaps the next.
// Correct output, a fraction of the speed.
// What must catch it: the static verdict `serialized` for wgmma (the
// wgmma-serialized finding); at run time wgmma does all the FLOPs (`used`):
// the verdict is about the schedule, not the work share.
//
// @ptxbench kernel gemm_wgmma_serialized grid=(ceildiv(N,128), ceildiv(M,64)) block=128 smem=4*24576+1024
// @ptxbench   args tmA, tmB, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(64, 64) swizzle=128B
// @ptxbench tensormap tmB tensor=B box=(128, 64) swizzle=128B
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// The driver's CUtensorMap (cuda.h), declared here so the file needs no
// host headers: 128 opaque bytes, 64-byte aligned.
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 64
#define BN 128
#define BK 64
#define STAGES 4
#define TILE_A_BYTES (BM * BK * 2) // 8 KiB
#define TILE_B_BYTES (BN * BK * 2) // 16 KiB
#define STAGE_BYTES (TILE_A_BYTES + TILE_B_BYTES)

// Descriptor of a K-major tile with 128-byte rows, 128B-swizzled, 1024-byte
// aligned (docs/arch/sm_90a.md): LBO unused (1), SBO = 8 rows * 128 B.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t smem_addr) {
  uint64_t d = (uint64_t)((smem_addr & 0x3FFFF) >> 4);
  d |= (uint64_t)1 << 16;
  d |= (uint64_t)(1024 >> 4) << 32;
  d |= (uint64_t)1 << 62;
  return d;
}

// D[64x128] += A[64x16] * B[16x128], both operands K-major in shared memory.
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t da,
                                                 uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" // scale-d: D = A*B + D
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
        "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]),
        "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
        "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]),
        "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
        "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),
        "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "n"(1));
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// Thread 0: arm the stage's barrier for both tiles, then start both loads.
// Coordinates are innermost first: (k, row).
__device__ __forceinline__ void load_stage(const TensorMap *tmA,
                                           const TensorMap *tmB, uint32_t sA,
                                           uint32_t sB, uint32_t bar, int k0,
                                           int m0, int n0) {
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

extern "C" __global__ void __launch_bounds__(128, 1)
gemm_wgmma_serialized(const __grid_constant__ TensorMap tmA,
               const __grid_constant__ TensorMap tmB,
               __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t full[STAGES];
  // Swizzled tiles must start on a 1024-byte boundary.
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t bar0 = (uint32_t)__cvta_generic_to_shared(&full[0]);
  const int tid = threadIdx.x, wg = tid / 128;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int kTiles = (K + BK - 1) / BK;

  if (tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&tmB) : "memory");
    for (int s = 0; s < STAGES; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * s)
                   : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (tid == 0)
    for (int s = 0; s < STAGES && s < kTiles; ++s)
      load_stage(&tmA, &tmB, base + s * STAGE_BYTES,
                 base + s * STAGE_BYTES + TILE_A_BYTES, bar0 + 8 * s, s * BK,
                 m0, n0);

  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i)
    d[i] = 0.f;

  for (int kt = 0; kt < kTiles; ++kt) {
    const int s = kt % STAGES;
    const uint32_t sA = base + s * STAGE_BYTES, sB = sA + TILE_A_BYTES;
    mbar_wait(bar0 + 8 * s, (kt / STAGES) & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int k = 0; k < BK / 16; ++k)
      wgmma_m64n128k16(d, desc_sw128(sA + 32 * k),
                       desc_sw128(sB + 32 * k));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    // Wait for every group at once: nothing overlaps the next k-step.
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    // Both warpgroups are done with the previous stage: refill it.
    __syncthreads();
    if (tid == 0 && kt >= 1 && kt - 1 + STAGES < kTiles) {
      const int sp = (kt - 1) % STAGES;
      const uint32_t pA = base + sp * STAGE_BYTES;
      load_stage(&tmA, &tmB, pA, pA + TILE_A_BYTES, bar0 + 8 * sp,
                 (kt - 1 + STAGES) * BK, m0, n0);
    }
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

  // Accumulator layout (per thread, warp w of the warpgroup, lane l):
  // d[i] is row 16w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1).
  const int w = (tid % 128) / 32, l = tid % 32;
#pragma unroll
  for (int i = 0; i < 64; i += 2) {
    const int row = m0 + wg * 64 + 16 * w + l / 4 + 8 * ((i >> 1) & 1);
    const int col = n0 + 8 * (i >> 2) + 2 * (l % 4);
    if (row >= M)
      continue;
    __nv_bfloat16 *out = C + (size_t)row * N + col;
    if (col + 1 < N && (N % 2) == 0) {
      *reinterpret_cast<__nv_bfloat162 *>(out) =
          __floats2bfloat162_rn(d[i], d[i + 1]);
    } else {
      if (col < N)
        out[0] = __float2bfloat16(d[i]);
      if (col + 1 < N)
        out[1] = __float2bfloat16(d[i + 1]);
    }
  }
}
