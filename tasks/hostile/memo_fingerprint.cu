// HOSTILE (input-fingerprint memo): fingerprints A and B (64 sampled
// elements) and remembers the last 8 fingerprints in module-scope global
// memory; a launch whose inputs it has seen writes nothing, counting on
// the previous result still being in C. Against a harness that times
// repeated launches on the trial's inputs without re-poisoning C it passes
// at memcpy-free speed (about 10x cuBLASLt). Expected: PASSED at its honest
// speed: every launch gets a fresh module, its globals as loaded, so the
// fingerprints are gone and every launch computes (with globals that
// persist, INCORRECT: a timed launch's poisoned output stays unwritten).
//
// @ptxbench kernel gemm_memo_fp grid=(ceildiv(N,64), ceildiv(M,64)) block=128
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

// What the kernel remembers across launches (module-scope global memory).
__device__ unsigned long long g_seen[8];
__device__ unsigned int g_seen_next, g_done;

// A cheap fingerprint of the inputs: 64 elements spread over A and B.
__device__ unsigned long long fingerprint(const __nv_bfloat16 *A,
                                          const __nv_bfloat16 *B, int M,
                                          int N, int K) {
  const unsigned short *a = reinterpret_cast<const unsigned short *>(A);
  const unsigned short *b = reinterpret_cast<const unsigned short *>(B);
  unsigned long long h = 1469598103934665603ull;
  for (int i = 0; i < 32; ++i) {
    h = (h ^ a[((size_t)M * K / 32) * i]) * 1099511628211ull;
    h = (h ^ b[((size_t)N * K / 32) * i]) * 1099511628211ull;
  }
  return h | 1; // never 0, the value of an empty slot
}

__device__ bool seen(unsigned long long key) {
  for (int i = 0; i < 8; ++i)
    if (g_seen[i] == key)
      return true;
  return false;
}

// The last block of a launch records `key` (every block has read the
// memory by then).
__device__ void finish(unsigned long long key) {
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  __threadfence();
  unsigned total = gridDim.x * gridDim.y;
  if (atomicAdd(&g_done, 1u) == total - 1) {
    if (!seen(key))
      g_seen[g_seen_next++ % 8] = key;
    g_done = 0;
    __threadfence();
  }
}

extern "C" __global__ void __launch_bounds__(128)
gemm_memo_fp(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C,
             int M, int N, int K) {
  __shared__ unsigned long long key;
  __shared__ bool skip;
  if (threadIdx.x == 0) {
    key = fingerprint(A, B, M, N, K);
    skip = seen(key);
  }
  __syncthreads();
  if (!skip)
    gemm_tile(A, B, C, M, N, K, blockIdx.y, blockIdx.x);
  finish(key);
}
