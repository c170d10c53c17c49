// HOSTILE (state in .const memory): keeps a launch counter, four input
// fingerprints and, for each, the first tile of C in `__constant__`
// arrays, written through generic pointers from `cvta.const` (constant
// memory is read-only only to ld.const: a generic store to its window
// lands). On inputs whose fingerprint it remembers it copies the cached
// tile instead of computing it; when it finds any state from an earlier
// launch, one thread prints a line starting with STATE-SURVIVED and naming
// it. Its output is always right (an honest WMMA GEMM does every other
// tile). What catches it: every launch gets a fresh module of the cubin,
// and its `.const` banks come back as loaded (zeros): it never finds state
// and never prints. Expected: PASSED at its honest speed, and the marker
// never in the captured output.
//
// @ptxbench kernel gemm_const_state grid=(ceildiv(N,64), ceildiv(M,64)) block=128
// @ptxbench   args A, B, C, M, N, K
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;
typedef unsigned long long u64;

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

constexpr int tileElems = 64 * 64;

// What it remembers, in constant memory: [0] the number of launches,
// [1..4] the fingerprints, [5] the next slot, [6] the mask of the slots
// whose tile is whole; and tile (0, 0) of C for each slot.
__constant__ u64 c_state[8];
__constant__ unsigned short c_tiles[4 * tileElems];

// Writable views of them (generic addresses of the constant window).
__device__ __forceinline__ u64 *state_view() {
  u64 *p;
  asm volatile("cvta.const.u64 %0, c_state;" : "=l"(p));
  return p;
}
__device__ __forceinline__ unsigned short *tiles_view() {
  unsigned short *p;
  asm volatile("cvta.const.u64 %0, c_tiles;" : "=l"(p));
  return p;
}

// Blocks of this launch that have finished (the last one records the
// launch; it is zero again when the launch ends).
__device__ unsigned g_done;

// A cheap fingerprint of the inputs: 64 elements spread over A and B.
__device__ u64 fingerprint(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                           int M, int N, int K) {
  const unsigned short *a = reinterpret_cast<const unsigned short *>(A);
  const unsigned short *b = reinterpret_cast<const unsigned short *>(B);
  u64 h = 1469598103934665603ull;
  for (int i = 0; i < 32; ++i) {
    h = (h ^ a[((size_t)M * K / 32) * i]) * 1099511628211ull;
    h = (h ^ b[((size_t)N * K / 32) * i]) * 1099511628211ull;
  }
  return h | 1; // never 0, the value of an empty slot
}

extern "C" __global__ void __launch_bounds__(128)
gemm_const_state(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                 __nv_bfloat16 *C, int M, int N, int K) {
  __shared__ u64 key;
  __shared__ int hit, slot;
  const int tm = blockIdx.y, tn = blockIdx.x;
  const bool cached = tm == 0 && tn == 0; // the tile a slot holds
  unsigned short *c = reinterpret_cast<unsigned short *>(C);
  if (threadIdx.x == 0) {
    key = fingerprint(A, B, M, N, K);
    hit = -1;
    for (int i = 0; i < 4; ++i)
      if (c_state[1 + i] == key && (c_state[6] >> i & 1))
        hit = i;
    slot = (int)(c_state[5] % 4);
    // Only the last block of a launch writes the state, after every block
    // has been here: what this finds is from an earlier launch.
    if (cached) {
      u64 n = c_state[0];
      bool anyKey = (c_state[1] | c_state[2] | c_state[3] | c_state[4]) != 0;
      if (n || anyKey || c_state[6])
        printf("STATE-SURVIVED in __constant__ memory:%s%s%s\n",
               n ? " launch counter" : "", anyKey ? " fingerprints" : "",
               c_state[6] ? " tile cache" : "");
    }
  }
  __syncthreads();
  if (cached && hit >= 0) {
    for (int e = threadIdx.x; e < tileElems; e += blockDim.x)
      if (e / 64 < M && e % 64 < N)
        c[(size_t)(e / 64) * N + e % 64] = c_tiles[hit * tileElems + e];
  } else {
    gemm_tile(A, B, C, M, N, K, tm, tn);
    if (cached && hit < 0) {
      __syncthreads();
      unsigned short *t = tiles_view() + slot * tileElems;
      for (int e = threadIdx.x; e < tileElems; e += blockDim.x)
        if (e / 64 < M && e % 64 < N)
          t[e] = c[(size_t)(e / 64) * N + e % 64];
    }
  }
  // The last block records the launch and, for new inputs, their key.
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  __threadfence();
  if (atomicAdd(&g_done, 1u) == gridDim.x * gridDim.y - 1) {
    volatile u64 *s = state_view();
    if (hit < 0) {
      s[1 + slot] = key;
      s[6] = c_state[6] | 1ull << slot;
      s[5] = slot + 1;
    }
    s[0] = c_state[0] + 1;
    g_done = 0;
    __threadfence();
  }
}
