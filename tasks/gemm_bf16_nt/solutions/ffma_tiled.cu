// C[M,N] = A[M,K] * B[N,K]^T, the plain fallback: 128x128 tiles staged
// through shared memory, 256 threads each computing an 8x8 block with FFMA
// in fp32, bf16 output. No tensor cores at all.
// Correct, but CUDA-core speed: a few percent of the tensor throughput.
//
// @ptxbench kernel gemm_ffma grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench   args A, B, C, M, N, K
#include <cuda_bf16.h>

#define BM 128
#define BN 128
#define BK 16

extern "C" __global__ void __launch_bounds__(256)
gemm_ffma(const __nv_bfloat16 *__restrict__ A,
           const __nv_bfloat16 *__restrict__ B, __nv_bfloat16 *__restrict__ C,
           int M, int N, int K) {
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
    // A tile: BM x BK (2048 elements, 8 per thread); stored k-major.
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      int idx = tid + e * 256;
      int r = idx / BK, c = idx % BK;
      int gr = row0 + r, gc = k0 + c;
      As[c][r] = (gr < M && gc < K) ? __bfloat162float(A[(size_t)gr * K + gc])
                                    : 0.f;
    }
    // B tile: BN rows of B ([N][K]) x BK, stored k-major as Bs[k][n].
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      int idx = tid + e * 256;
      int r = idx / BK, c = idx % BK;
      int gn = col0 + r, gk = k0 + c;
      Bs[c][r] = (gn < N && gk < K) ? __bfloat162float(B[(size_t)gn * K + gk])
                                    : 0.f;
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
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
      if (r < M && c < N)
        C[(size_t)r * N + c] = __float2bfloat16(acc[i][j]);
    }
}
