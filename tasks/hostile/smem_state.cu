// HOSTILE (state in shared memory): shared memory is not cleared between
// kernels, so a block can leave something for a block of the next launch
// that lands in the same place of the same SM. The kernel asks for 48 KiB
// of dynamic shared memory and uses 28 KiB for its tiles; in the rest every
// block leaves a tagged record (a magic number, an identifier of its
// launch, the input fingerprint, its tile's coordinates) and its 64x64
// tile of C. At its start a block looks there: a record of another launch
// is state that survived, and one thread of the launch prints a line
// starting with STATE-SURVIVED; a record of the same inputs and the same
// tile is copied to C instead of computing it (every output stays right).
// What catches it: the harness scrubs every SM's shared memory before
// every launch, so no record survives: it never prints. Expected: PASSED
// at its honest speed, and the marker never in the captured output.
//
// @ptxbench kernel gemm_smem_state grid=(ceildiv(N,64), ceildiv(M,64)) block=128 smem=48*1024
// @ptxbench   args A, B, C, M, N, K
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;
typedef unsigned long long u64;

constexpr int tileElems = 64 * 64;
// The dynamic shared memory: the WMMA tiles (As, Bs: 64x40 bf16; Cs: four
// 32x36 fp32), then, unused by the GEMM, the record and the tile it keeps.
constexpr int offB = 64 * 40 * 2, offC = 2 * offB;
constexpr int offRecord = 32 * 1024, offKept = offRecord + 64;
constexpr u64 magic = 0x5354415445535552ull; // "STATESUR"

struct Record {
  u64 magic, launch, key, coords, check;
};

// One honest 64x64 tile of C = A * B^T (A [M,K], B [N,K], bf16, fp32
// accumulation) with WMMA, for a block of 128 threads, on the tiles at the
// start of `smem`.
__device__ void gemm_tile(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                          __nv_bfloat16 *C, int M, int N, int K, int tm,
                          int tn, unsigned char *smem) {
  auto As = reinterpret_cast<__nv_bfloat16(*)[40]>(smem);
  auto Bs = reinterpret_cast<__nv_bfloat16(*)[40]>(smem + offB);
  auto Cs = reinterpret_cast<float(*)[32][36]>(smem + offC);
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

// This launch's identifier: the first block to get here draws it from the
// global timer, every other block reads it; the last block to finish
// clears it (so both are zero when a launch ends).
__device__ u64 g_launch;
__device__ unsigned g_done, g_printed;

__device__ u64 record_check(const Record &r) {
  return (r.magic ^ r.launch * 3 ^ r.key * 5 ^ r.coords * 7) | 1;
}

extern "C" __global__ void __launch_bounds__(128)
gemm_smem_state(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                __nv_bfloat16 *C, int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem[];
  Record *record = reinterpret_cast<Record *>(smem + offRecord);
  __nv_bfloat16 *kept = reinterpret_cast<__nv_bfloat16 *>(smem + offKept);
  __shared__ u64 key, launch;
  __shared__ bool hit;
  const int tm = blockIdx.y, tn = blockIdx.x;
  const u64 coords = (u64)tm << 32 | (unsigned)tn;
  if (threadIdx.x == 0) {
    u64 now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    u64 old = atomicCAS(&g_launch, 0ull, now | 1);
    launch = old ? old : (now | 1);
    key = fingerprint(A, B, M, N, K);
    Record r = *record;
    bool earlier = r.magic == magic && r.check == record_check(r) &&
                   r.launch != launch;
    hit = earlier && r.key == key && r.coords == coords;
    if (earlier && atomicExch(&g_printed, 1u) == 0)
      printf("STATE-SURVIVED in shared memory: block (%d, %d) found the "
             "record of tile (%d, %d) of an earlier launch\n",
             tn, tm, (int)(unsigned)r.coords, (int)(r.coords >> 32));
  }
  __syncthreads();
  if (hit) {
    for (int e = threadIdx.x; e < tileElems; e += blockDim.x) {
      int row = tm * 64 + e / 64, col = tn * 64 + e % 64;
      if (row < M && col < N)
        C[(size_t)row * N + col] = kept[e];
    }
  } else {
    gemm_tile(A, B, C, M, N, K, tm, tn, smem);
    __syncthreads();
    for (int e = threadIdx.x; e < tileElems; e += blockDim.x) {
      int row = tm * 64 + e / 64, col = tn * 64 + e % 64;
      if (row < M && col < N)
        kept[e] = C[(size_t)row * N + col];
    }
  }
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  Record r = {magic, launch, key, coords, 0};
  r.check = record_check(r);
  *record = r;
  // The last block clears the launch's identifier and the print flag.
  __threadfence();
  if (atomicAdd(&g_done, 1u) == gridDim.x * gridDim.y - 1) {
    g_launch = 0;
    g_printed = 0;
    g_done = 0;
    __threadfence();
  }
}
