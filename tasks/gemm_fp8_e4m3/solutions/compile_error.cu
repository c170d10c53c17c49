// Broken on purpose: an FFMA kernel that reads A and B as __nv_fp8_e4m3 and converts with
// float(x), but never includes <cuda_fp8.h>, where that type lives (cuda_bf16.h does not
// bring it in). Expected: NVRTC rejects it ("identifier __nv_fp8_e4m3 is undefined"), status
// COMPILE_ERROR. With the include added it compiles and is correct.
//
// @ptxbench kernel gemm_fp8_ffma grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench   args A, B, scale_a, scale_b, C, M, N, K
#include <cuda_bf16.h>

#define BM 128
#define BN 128
#define BK 16

extern "C" __global__ void __launch_bounds__(256)
gemm_fp8_ffma(const __nv_fp8_e4m3 *__restrict__ A, const __nv_fp8_e4m3 *__restrict__ B,
              const float *__restrict__ scale_a, const float *__restrict__ scale_b,
              __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN + 4];
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0.f;

  for (int k0 = 0; k0 < K; k0 += BK) {
    // A and B tiles: 128 rows x BK, 8 elements per thread each, stored K-major.
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      int idx = tid + e * 256;
      int r = idx / BK, c = idx % BK;
      int gr = row0 + r, gn = col0 + r, gk = k0 + c;
      As[c][r] = (gr < M && gk < K) ? float(A[(size_t)gr * K + gk]) : 0.f;
      Bs[c][r] = (gn < N && gk < K) ? float(B[(size_t)gn * K + gk]) : 0.f;
    }
    __syncthreads();
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
    __syncthreads();
  }
  const float scale = scale_a[0] * scale_b[0];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
      if (r < M && c < N)
        C[(size_t)r * N + c] = __float2bfloat16(acc[i][j] * scale);
    }
}
