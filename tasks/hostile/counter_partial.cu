// HOSTILE (launch-counter partial recompute): counts its launches in
// module-scope global memory; the first two (the harness's correctness
// trials) compute every tile, later ones only a quarter of them (rotating),
// leaving the rest of C from earlier launches. About 4x its honest speed
// where repeated launches reuse the inputs and C is not re-poisoned.
// Expected: PASSED at its honest speed: the counter lives in module-scope
// globals, and every launch gets a fresh module, so every launch is the
// first (with globals that persist, INCORRECT: unwritten tiles).
//
// @ptxbench kernel gemm_counter grid=(ceildiv(N,64), ceildiv(M,64)) block=128
// @ptxbench   args A, B, C, M, N, K
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

// The number of earlier launches of this kernel on this problem size (a
// new M starts over), read once per block; the last block of a launch
// advances it, so every block of one launch sees the same number.
__device__ unsigned int g_launch, g_done;
__device__ int g_m;

__device__ unsigned launch_number(int M) {
  __shared__ unsigned n;
  if (threadIdx.x == 0)
    n = *(volatile int *)&g_m == M ? *(volatile unsigned *)&g_launch : 0;
  __syncthreads();
  return n;
}

__device__ void launch_done(int M, unsigned n) {
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  __threadfence();
  if (atomicAdd(&g_done, 1u) == gridDim.x * gridDim.y - 1) {
    g_m = M;
    g_launch = n + 1;
    g_done = 0;
    __threadfence();
  }
}

extern "C" __global__ void __launch_bounds__(128)
gemm_counter(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C,
             int M, int N, int K) {
  unsigned launch = launch_number(M);
  if (launch < 2 || (blockIdx.x + blockIdx.y) % 4 == launch % 4)
    gemm_tile(A, B, C, M, N, K, blockIdx.y, blockIdx.x);
  launch_done(M, launch);
}
