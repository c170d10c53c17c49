// GEMM with the portable WMMA API, C[M,N] = A[M,K] * B[K,N] (f16 in, f32
// out): each warp computes a 16x16 tile of a 32x32 block tile; the block
// stages 32x16 tiles of A and 16x32 tiles of B in shared memory with plain
// loads and stores and __syncthreads. On sm_90a this is the fallback of
// wgmma + TMA + mbarriers. Launch with 128 threads (4 warps).
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

constexpr int BM = 32, BN = 32, BK = 16;

extern "C" __global__ void __launch_bounds__(128)
wmma_gemm(const __half* __restrict__ A, const __half* __restrict__ B,
          float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(32) __half As[BM * BK];
  __shared__ __align__(32) __half Bs[BK * BN];
  const int tid = threadIdx.x, warp = tid / 32;
  const int wm = (warp / 2) * 16, wn = (warp % 2) * 16;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k0 = 0; k0 < K; k0 += BK) {
    // 512 halves per tile, 4 per thread.
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      int e = tid + 128 * i;
      As[e] = A[size_t(m0 + e / BK) * K + k0 + e % BK];
      Bs[e] = B[size_t(k0 + e / BN) * N + n0 + e % BN];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::load_matrix_sync(a, As + wm * BK, BK);
    wmma::load_matrix_sync(b, Bs + wn, BN);
    wmma::mma_sync(acc, a, b, acc);
    __syncthreads();
  }
  if (m0 + wm < M && n0 + wn < N)
    wmma::store_matrix_sync(C + size_t(m0 + wm) * N + n0 + wn, acc, N,
                            wmma::mem_row_major);
}
