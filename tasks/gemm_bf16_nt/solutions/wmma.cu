// C[M,N] = A[M,K] * B[N,K]^T with the CUDA C++ WMMA API (nvcuda::wmma, bf16
// 16x16x16 fragments, fp32 accumulation): tiles staged through shared memory
// with plain loads (zero past the edges), B read as a column-major fragment
// straight from its [N][K] rows. A fallback a model often writes; correct,
// compiles to mma.sync, far from Hopper's wgmma throughput.
//
// @ptxbench kernel gemm_wmma grid=(ceildiv(N,64), ceildiv(M,64)) block=128
// @ptxbench   args A, B, C, M, N, K
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define LDS (BK + 8)

extern "C" __global__ void __launch_bounds__(128)
gemm_wmma(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B,
          __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  __shared__ __align__(32) __nv_bfloat16 As[BM][LDS];
  __shared__ __align__(32) __nv_bfloat16 Bs[BN][LDS];
  __shared__ __align__(32) float Cs[4][32][32 + 4];
  const int tid = threadIdx.x, warp = tid / 32;
  const int wm = warp / 2, wn = warp % 2; // warp tile: 32 x 32
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const __nv_bfloat16 zero = __float2bfloat16(0.f);

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::fill_fragment(acc[i][j], 0.f);

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += 128) {
      int r = e / BK, c = e % BK, gk = k0 + c;
      As[r][c] = (m0 + r < M && gk < K) ? A[(size_t)(m0 + r) * K + gk] : zero;
      Bs[r][c] = (n0 + r < N && gk < K) ? B[(size_t)(n0 + r) * K + gk] : zero;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[2];
#pragma unroll
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk], LDS);
#pragma unroll
      for (int j = 0; j < 2; ++j) // B^T tile: element (k, n) at Bs[n][k]
        wmma::load_matrix_sync(fb[j], &Bs[wn * 32 + j * 16][kk], LDS);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
          wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(&Cs[warp][i * 16][j * 16], acc[i][j], 32 + 4,
                              wmma::mem_row_major);
  __syncwarp();
  const int lane = tid % 32;
  for (int e = lane; e < 32 * 32; e += 32) {
    int r = e / 32, c = e % 32;
    int row = m0 + wm * 32 + r, col = n0 + wn * 32 + c;
    if (row < M && col < N)
      C[(size_t)row * N + col] = __float2bfloat16(Cs[warp][r][c]);
  }
}
