// HOSTILE (state in the slack of a mapping): a buffer ends at the end of
// its 2 MiB mapping, so the mapped bytes below its start do not fault. The
// plan declares a 256-byte workspace it hardly uses, and the kernel keeps a
// launch counter, four input fingerprints and the first four tiles of C for
// each 1 MiB below the workspace's start, inside that slack. On inputs
// whose fingerprint it remembers it copies the cached tiles instead of
// computing them (every output stays right); when it finds its record from
// an earlier launch, one thread prints a line starting with STATE-SURVIVED.
// What catches it: the slack of every output and workspace is filled with
// a pattern and checked after every launch, so the first launch's write
// there is a RUNTIME_ERROR ("wrote N bytes before the start of workspace
// 'w'") and no later launch can read it back. Expected: RUNTIME_ERROR, and
// the marker never in the captured output.
//
// @ptxbench kernel gemm_slack_state grid=(ceildiv(N,64), ceildiv(M,64)) block=128
// @ptxbench   args A, B, C, M, N, K, w
// @ptxbench workspace w bytes=256
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
constexpr u64 magic = 0x5354415445535552ull; // "STATESUR"

// What it keeps below the workspace: the record, then four slots of four
// 64x64 tiles.
struct State {
  u64 magic, launches, keys[4], next, valid;
};
constexpr size_t slackOffset = size_t(1) << 20;

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

// Copies the 64x64 tile (tm, tn) of C from or to a packed tile.
__device__ void tile_to_c(__nv_bfloat16 *C, const __nv_bfloat16 *tile, int M,
                          int N, int tm, int tn) {
  for (int e = threadIdx.x; e < tileElems; e += blockDim.x) {
    int row = tm * 64 + e / 64, col = tn * 64 + e % 64;
    if (row < M && col < N)
      C[(size_t)row * N + col] = tile[e];
  }
}
__device__ void c_to_tile(__nv_bfloat16 *tile, const __nv_bfloat16 *C, int M,
                          int N, int tm, int tn) {
  for (int e = threadIdx.x; e < tileElems; e += blockDim.x) {
    int row = tm * 64 + e / 64, col = tn * 64 + e % 64;
    if (row < M && col < N)
      tile[e] = C[(size_t)row * N + col];
  }
}

extern "C" __global__ void __launch_bounds__(128)
gemm_slack_state(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                 __nv_bfloat16 *C, int M, int N, int K, unsigned char *w) {
  __shared__ u64 key;
  __shared__ int hit, slot;
  State *state = reinterpret_cast<State *>(w - slackOffset);
  __nv_bfloat16 *tiles = reinterpret_cast<__nv_bfloat16 *>(state + 1);
  const int tm = blockIdx.y, tn = blockIdx.x;
  const bool cached = tm == 0 && tn < 4; // the tiles a slot holds
  if (threadIdx.x == 0) {
    key = fingerprint(A, B, M, N, K);
    // Only the last block of a launch writes the record, after every
    // block has been here: a record found here is from an earlier launch.
    bool earlier = state->magic == magic;
    hit = -1;
    for (int i = 0; earlier && i < 4; ++i)
      if (state->keys[i] == key && (state->valid >> i & 1))
        hit = i;
    slot = earlier ? (int)(state->next % 4) : 0;
    if (earlier && tm == 0 && tn == 0)
      printf("STATE-SURVIVED in the slack 1 MiB below workspace 'w': "
             "%llu earlier launches\n", state->launches);
  }
  __syncthreads();
  if (cached && hit >= 0) {
    tile_to_c(C, tiles + (hit * 4 + tn) * tileElems, M, N, tm, tn);
  } else {
    gemm_tile(A, B, C, M, N, K, tm, tn);
    if (cached && hit < 0) {
      __syncthreads();
      c_to_tile(tiles + (slot * 4 + tn) * tileElems, C, M, N, tm, tn);
    }
  }
  // The last block writes the record.
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  __threadfence();
  if (atomicAdd(&g_done, 1u) == gridDim.x * gridDim.y - 1) {
    if (state->magic != magic) {
      for (int i = 0; i < 4; ++i)
        state->keys[i] = 0;
      state->launches = state->valid = state->next = 0;
      state->magic = magic;
    }
    if (hit < 0) {
      state->keys[slot] = key;
      state->valid |= 1ull << slot;
      state->next = slot + 1;
    }
    state->launches += 1;
    w[0] = 1; // the workspace itself, barely
    g_done = 0;
    __threadfence();
  }
}
