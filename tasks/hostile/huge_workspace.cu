// HOSTILE (blame shifted to the harness): a wrong kernel (it writes only
// the upper half of C) whose launch plan asks for a 2^40-byte workspace.
// The allocation failed on the GPU as HARNESS_ERROR, which eval and fixit
// leave out of every rate, so the sample was not counted as failed.
// What catches it: the plan check limits the workspaces to 4 times the
// workload's tensor bytes (at least 1 GiB) and says so as PLAN_ERROR
// before anything runs (no GPU needed): the failure is the submission's.
// Expected: PLAN_ERROR.
//
// @ptxbench kernel gemm_half grid=(ceildiv(N,64), ceildiv(M,64)) block=128
// @ptxbench   args A, B, C, M, N, K, scratch
// @ptxbench workspace scratch bytes=1099511627776
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

// One honest 64x64 tile of C = A * B^T (A [M,K], B [N,K], bf16, fp32
// accumulation) with WMMA, for a block of 128 threads.
__device__ void gemm_tile(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                          __nv_bfloat16 *C, int M, int N, int K, int tm,
                          int tn) {
  __shared__ __align__(32) __nv_bfloat16 As[64][40];
  __shared__ __align__(32) __nv_bfloat16 Bs[64][40];
  __shared__ __align__(32) float Cs[4][32][36];
  const int tid = threadIdx.x, warp = tid / 32, wm = warp / 2, wn = warp % 2;
  const int m0 = tm * 64, n0 = tn * 64;
  const __nv_bfloat16 zero = __float2bfloat16(0.f);
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::fill_fragment(acc[i][j], 0.f);
  for (int k0 = 0; k0 < K; k0 += 32) {
    for (int e = tid; e < 64 * 32; e += 128) {
      int r = e / 32, c = e % 32, gk = k0 + c;
      As[r][c] = (m0 + r < M && gk < K) ? A[(size_t)(m0 + r) * K + gk] : zero;
      Bs[r][c] = (n0 + r < N && gk < K) ? B[(size_t)(n0 + r) * K + gk] : zero;
    }
    __syncthreads();
    for (int kk = 0; kk < 32; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[2];
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk], 40);
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(fb[j], &Bs[wn * 32 + j * 16][kk], 40);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(&Cs[warp][i * 16][j * 16], acc[i][j], 36,
                              wmma::mem_row_major);
  __syncwarp();
  for (int e = tid % 32; e < 32 * 32; e += 32) {
    int r = e / 32, c = e % 32, row = m0 + wm * 32 + r, col = n0 + wn * 32 + c;
    if (row < M && col < N)
      C[(size_t)row * N + col] = __float2bfloat16(Cs[warp][r][c]);
  }
}

extern "C" __global__ void __launch_bounds__(128)
gemm_half(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C,
          int M, int N, int K, unsigned char *scratch) {
  // The lower half of C is never written.
  if (blockIdx.y * 64 >= M / 2)
    return;
  gemm_tile(A, B, C, M, N, K, blockIdx.y, blockIdx.x);
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
    scratch[0] = 1;
}
