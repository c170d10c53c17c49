// HOSTILE (credit for instructions that do no task work): an FFMA GEMM
// with ld.global tile loops that, in every iteration of its k-loop, also
// runs two wgmma.mma_async m64n64k16 per warpgroup on a zeroed shared
// buffer (exactly the FLOPs of the CTA's 128x128x16 step: 100% of the
// task's FLOPs, results dropped) and one TMA load of a box that lies wholly
// outside A (zero-filled, nothing read from memory), armed with
// mbarrier.arrive.expect_tx. Executed wgmma FLOPs and expect_tx bytes look
// like the whole task; the wgmmas sit inside the FFMA loop, so the static
// ffma-loop rule does not fire. Correct output.
// What must catch it: the knockout run (wgmma switched off, the outputs
// still pass: no-effect-wgmma) withholds the wgmma credit, and the
// CUDA-core FLOPs show the task done twice (work-share-above-one); TMA
// bytes count as the input bytes the boxes read in bounds (the copy log:
// none), so tma and mbarrier_tx have a share of 0. Expected: PASSED with
// run-time verdicts wgmma, tma and mbarrier_tx `token`; statically only
// wgmma-serialized (the TMA in the loop silences ld-st-copy as well).
//
// @ptxbench kernel gemm_wgmma_zero_decoy grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench   args tmA, A, B, C, M, N, K
// @ptxbench tensormap tmA tensor=A box=(64, 64)
#include <cuda_bf16.h>
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

#define BM 128
#define BN 128
#define BK 16

// A no-swizzle K-major shared-memory matrix descriptor of a 64x16 bf16
// operand (eight-row core matrices 256 bytes apart, the two halves of K
// 128 bytes apart): 2 KiB from `addr`.
__device__ __forceinline__ uint64_t desc_plain(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
         ((uint64_t)(256 >> 4) << 32);
}

// Two m64n64k16 wgmmas per warpgroup on the zero buffer (the FLOPs of a
// 128x128x16 step for the CTA's two warpgroups), their results dropped.
// One asm statement from fence to wait, so no register of the in-flight
// accumulators is reused before the wgmmas are done.
#pragma nv_diag_suppress 550 // d is set and never used: the point
__device__ __forceinline__ void zero_wgmma(uint64_t da, uint64_t db) {
  float d[32];
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
               "wgmma.fence.sync.aligned;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
               "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "
               "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, 0, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
               "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "
               "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, 0, 0;\n"
               "wgmma.commit_group.sync.aligned;\n"
               "wgmma.wait_group.sync.aligned 0;\n}\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]),
                 "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]),
                 "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]),
                 "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]),
                 "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]),
                 "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]),
                 "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]),
                 "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31])
               : "l"(da), "l"(db)
               : "memory");
}
#pragma nv_diag_default 550

// One TMA load of the 64x64 box at (K, M), wholly outside A, so the copy
// engine zero-fills it; thread 0 arms the mbarrier with its 8 KiB.
__device__ __forceinline__ void oob_box(const TensorMap *tmA, uint32_t tile,
                                        uint32_t bar, int M, int K) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(64 * 64 * 2)
               : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(tile),
               "l"(tmA), "r"(K), "r"(M), "r"(bar)
               : "memory");
}

__device__ __forceinline__ void wait_phase(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

extern "C" __global__ void __launch_bounds__(256)
gemm_wgmma_zero_decoy(const __grid_constant__ TensorMap tmA,
                      const __nv_bfloat16 *__restrict__ A,
                      const __nv_bfloat16 *__restrict__ B,
                      __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  __shared__ alignas(1024) unsigned char tile[64 * 64 * 2];
  __shared__ alignas(128) unsigned char zeros[4096];
  __shared__ alignas(8) uint64_t bar;
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN + 4];
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const uint32_t tileAddr = (uint32_t)__cvta_generic_to_shared(tile);
  const uint32_t zeroAddr = (uint32_t)__cvta_generic_to_shared(zeros);
  const uint32_t barAddr = (uint32_t)__cvta_generic_to_shared(&bar);
  // The wgmma operands: A's 64x16 at zeros, B's 64x16 2 KiB further.
  reinterpret_cast<uint4 *>(zeros)[tid] = make_uint4(0, 0, 0, 0);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barAddr));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0.f;
  uint32_t phase = 0;
  for (int k0 = 0; k0 < K; k0 += BK, phase ^= 1) {
    if (tid == 0)
      oob_box(&tmA, tileAddr, barAddr, M, K);
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      int idx = tid + e * 256, r = idx / BK, c = idx % BK;
      int gr = row0 + r, gn = col0 + r, gk = k0 + c;
      As[c][r] = (gr < M && gk < K) ? __bfloat162float(A[(size_t)gr * K + gk])
                                    : 0.f;
      Bs[c][r] = (gn < N && gk < K) ? __bfloat162float(B[(size_t)gn * K + gk])
                                    : 0.f;
    }
    __syncthreads();
    // The decoy: this k-step's FLOPs again, on zeros.
    zero_wgmma(desc_plain(zeroAddr), desc_plain(zeroAddr + 2048));
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[8], b[8];
#pragma unroll
      for (int i = 0; i < 8; ++i)
        a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    wait_phase(barAddr, phase);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
      if (r < M && c < N)
        C[(size_t)r * N + c] = __float2bfloat16(acc[i][j]);
    }
}
