// Ampere-style GEMM, C[M,N] = A[M,K] * B[N,K]^T (bf16 in, f32 out): a
// two-stage cp.async pipeline into shared memory, ldmatrix fragments and
// mma.sync.m16n8k16, __syncthreads between stages. It compiles and runs on
// sm_90a, but it is the generic fallback of wgmma + TMA + mbarriers.
// Block tile 64x64x32, 4 warps in a 2x2 grid of 32x32 warp tiles.
#include <cuda/std/cstdint>
using cuda::std::uint16_t;
using cuda::std::uint32_t;

constexpr int BM = 64, BN = 64, BK = 32, PAD = 8, LDS = BK + PAD;

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s),
               "l"(gmem));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, "
               "[%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4],
                                         uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0),
                 "r"(b1));
}

extern "C" __global__ void __launch_bounds__(128)
mma_sync_gemm(const uint16_t* __restrict__ A, const uint16_t* __restrict__ B,
              float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) uint16_t As[2][BM][LDS];
  __shared__ __align__(16) uint16_t Bs[2][BN][LDS];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int ktiles = K / BK;

  // 64 rows x 4 chunks of 8 bf16 per operand: two 16-byte copies a thread.
  auto load_stage = [&](int stage, int kt) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      int chunk = tid + i * 128, r = chunk / 4, c = (chunk % 4) * 8;
      cp_async16(&As[stage][r][c], A + size_t(m0 + r) * K + kt * BK + c);
      cp_async16(&Bs[stage][r][c], B + size_t(n0 + r) * K + kt * BK + c);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };

  float acc[2][4][4] = {};
  load_stage(0, 0);
  for (int kt = 0; kt < ktiles; ++kt) {
    int stage = kt % 2;
    if (kt + 1 < ktiles) {
      load_stage(stage ^ 1, kt + 1);
      asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t a[2][4], b[2][4];
#pragma unroll
      for (int i = 0; i < 2; ++i)
        ldmatrix_x4(a[i], &As[stage][wm + 16 * i + lane % 16][kk + (lane / 16) * 8]);
#pragma unroll
      for (int j = 0; j < 2; ++j)
        ldmatrix_x4(b[j], &Bs[stage][wn + 16 * j + (lane % 8) + (lane / 16) * 8]
                               [kk + ((lane / 8) % 2) * 8]);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          mma_bf16(acc[i][j], a[i], b[j / 2][(j % 2) * 2],
                   b[j / 2][(j % 2) * 2 + 1]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int row = m0 + wm + 16 * i + lane / 4;
      int col = n0 + wn + 8 * j + 2 * (lane % 4);
      if (row < M && col + 1 < N) {
        C[size_t(row) * N + col] = acc[i][j][0];
        C[size_t(row) * N + col + 1] = acc[i][j][1];
      }
      if (row + 8 < M && col + 1 < N) {
        C[size_t(row + 8) * N + col] = acc[i][j][2];
        C[size_t(row + 8) * N + col + 1] = acc[i][j][3];
      }
    }
}
