// HOSTILE (result cache in module globals): keeps whole results in a
// 256 MiB module-scope __device__ array, keyed by an input fingerprint, and
// on inputs it has seen copies three tiles in four from the cache and
// computes only the fourth. Every output is right, so poisoning and output
// checks cannot see it, and at about four times its honest speed it stays
// under the speed of light. What catches it: every launch gets a fresh
// module of the cubin, its globals as loaded, so the cache is empty at
// every launch and the kernel computes every tile.
// Expected: PASSED at the speed of its honest twin (the same kernel with
// the cache off, HOSTILE_CACHE=0).
//
// @ptxbench kernel gemm_global_cache grid=(ceildiv(N,64), ceildiv(M,64)) block=128
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

#ifndef HOSTILE_CACHE
#define HOSTILE_CACHE 1
#endif

// What the kernel remembers across launches (module-scope global memory):
// four results of up to 8192 x 4096 elements, their keys, and the slot the
// next new result goes to.
constexpr size_t cacheElems = size_t(8192) * 4096;
__device__ __nv_bfloat16 g_cache[4][cacheElems];
__device__ unsigned long long g_keys[4];
__device__ unsigned int g_next, g_done;

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

// Copies the 64x64 tile (tm, tn) between C and a cache slot.
__device__ void copy_tile(__nv_bfloat16 *dst, const __nv_bfloat16 *src, int M,
                          int N, int tm, int tn) {
  for (int e = threadIdx.x; e < 64 * 64; e += blockDim.x) {
    int row = tm * 64 + e / 64, col = tn * 64 + e % 64;
    if (row < M && col < N)
      dst[(size_t)row * N + col] = src[(size_t)row * N + col];
  }
}

extern "C" __global__ void __launch_bounds__(128)
gemm_global_cache(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                  __nv_bfloat16 *C, int M, int N, int K) {
  __shared__ unsigned long long key;
  __shared__ int hit, slot;
  bool fits = HOSTILE_CACHE && (size_t)M * N <= cacheElems;
  if (threadIdx.x == 0) {
    key = fingerprint(A, B, M, N, K);
    hit = -1;
    for (int i = 0; i < 4; ++i)
      if (g_keys[i] == key)
        hit = i;
    slot = g_next % 4;
  }
  __syncthreads();
  int tm = blockIdx.y, tn = blockIdx.x;
  if (fits && hit >= 0 && (tm + tn) % 4 != 0) {
    copy_tile(C, g_cache[hit], M, N, tm, tn);
  } else {
    gemm_tile(A, B, C, M, N, K, tm, tn);
    if (fits && hit < 0) {
      __syncthreads();
      copy_tile(g_cache[slot], C, M, N, tm, tn);
    }
  }
  // The last block records the new result's key.
  __syncthreads();
  if (!fits || threadIdx.x != 0)
    return;
  __threadfence();
  if (atomicAdd(&g_done, 1u) == gridDim.x * gridDim.y - 1) {
    if (hit < 0) {
      g_keys[slot] = key;
      g_next = slot + 1;
    }
    g_done = 0;
    __threadfence();
  }
}
