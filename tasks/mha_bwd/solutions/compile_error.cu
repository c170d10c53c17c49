// Broken on purpose: ffma.cu with the warp reduction of the Delta kernel
// written __shfl_xor_sync(sum, off), without the lane mask that the _sync
// shuffles take first. Expected: NVRTC rejects it (no overload matches),
// status COMPILE_ERROR.
//
// @ptxbench kernel mha_bwd_delta_ffma grid=ceildiv(B*H*S, 8) block=256
// @ptxbench   args O, dO, delta, B*H*S
// @ptxbench kernel mha_bwd_dkdv_ffma grid=(ceildiv(S, 64), B*H) block=256 smem=165888
// @ptxbench   args Q, K, V, dO, LSE, delta, dK, dV, S, CAUSAL
// @ptxbench kernel mha_bwd_dq_ffma grid=(ceildiv(S, 64), B*H) block=256 smem=165888
// @ptxbench   args Q, K, V, dO, LSE, delta, dQ, S, CAUSAL
// @ptxbench workspace delta bytes=4*B*H*S
#include <cuda_bf16.h>

#define HEAD_DIM 128
#define TILE 64          // queries per query tile, keys per key tile
#define LD (HEAD_DIM + 1) // padded fp32 row: column reads by 16 rows hit 16 banks
#define LDT (TILE + 1)
#define THREADS 256

// 1/sqrt(HEAD_DIM).
#define SOFTMAX_SCALE 0.08838834764831845f

// Shared-memory layout of both main kernels (floats): four [TILE][LD] tiles
// (rows of Q, dO, K, V), two [TILE][LDT] score tiles (P, dS), and the LSE
// and Delta of the current query tile. 165888 bytes, as in the plan.
#define SMEM_FLOATS (4 * TILE * LD + 2 * TILE * LDT + 2 * TILE)
static_assert(SMEM_FLOATS * 4 == 165888, "update smem= in the launch plan");

struct Smem {
  float *q, *dO, *k, *v, *p, *ds, *lse, *delta;
  __device__ explicit Smem(float *base)
      : q(base), dO(base + TILE * LD), k(base + 2 * TILE * LD),
        v(base + 3 * TILE * LD), p(base + 4 * TILE * LD),
        ds(base + 4 * TILE * LD + TILE * LDT),
        lse(base + 4 * TILE * LD + 2 * TILE * LDT),
        delta(base + 4 * TILE * LD + 2 * TILE * LDT + TILE) {}
};

// Delta[r] = dot(dO[r,:], O[r,:]) for rows r of the flattened [B*H*S, D]
// tensors; each lane takes 4 of the 128 columns.
extern "C" __global__ void __launch_bounds__(THREADS)
mha_bwd_delta_ffma(const __nv_bfloat16 *__restrict__ O,
                   const __nv_bfloat16 *__restrict__ dO,
                   float *__restrict__ delta, int rows) {
  const int row = blockIdx.x * (THREADS / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const size_t base = (size_t)row * HEAD_DIM + 4 * lane;
  float sum = 0.f;
#pragma unroll
  for (int e = 0; e < 4; ++e)
    sum += __bfloat162float(O[base + e]) * __bfloat162float(dO[base + e]);
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    sum += __shfl_xor_sync(sum, off);
  if (lane == 0)
    delta[row] = sum;
}

// Copies rows [row0, row0 + TILE) of one head's [S, D] bf16 matrix into a
// padded fp32 tile; rows past S become zeros.
__device__ __forceinline__ void load_tile(float *dst,
                                          const __nv_bfloat16 *__restrict__ src,
                                          int row0, int S) {
  for (int idx = threadIdx.x; idx < TILE * HEAD_DIM / 2; idx += THREADS) {
    const int r = idx / (HEAD_DIM / 2), c = 2 * (idx % (HEAD_DIM / 2));
    float2 v = make_float2(0.f, 0.f);
    if (row0 + r < S)
      v = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(
          src + (size_t)(row0 + r) * HEAD_DIM + c));
    dst[r * LD + c] = v.x;
    dst[r * LD + c + 1] = v.y;
  }
}

// LSE and Delta of queries [q0, q0 + TILE) of one head (zeros past S; those
// rows are masked anyway).
__device__ __forceinline__ void load_row_stats(Smem &sm,
                                               const float *__restrict__ lse,
                                               const float *__restrict__ delta,
                                               int q0, int S) {
  for (int r = threadIdx.x; r < TILE; r += THREADS) {
    const bool in = q0 + r < S;
    sm.lse[r] = in ? lse[q0 + r] : 0.f;
    sm.delta[r] = in ? delta[q0 + r] : 0.f;
  }
}

// For the tile pair (queries q0.., keys k0..) already in shared memory:
// P[i][j] = exp(scale * q_i.k_j - LSE_i) and dS[i][j] = P * (dO_i.v_j -
// Delta_i) into sm.p / sm.ds, zero where the pair is masked or out of range.
// Thread (tx, ty) owns queries ty + 16a and keys tx + 16b.
__device__ __forceinline__ void scores(Smem &sm, int q0, int k0, int S,
                                       int causal) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float s[4][4], dp[4][4];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b)
      s[a][b] = dp[a][b] = 0.f;
  for (int d = 0; d < HEAD_DIM; ++d) {
    float q[4], o[4], k[4], v[4];
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      q[a] = sm.q[(ty + 16 * a) * LD + d];
      o[a] = sm.dO[(ty + 16 * a) * LD + d];
    }
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      k[b] = sm.k[(tx + 16 * b) * LD + d];
      v[b] = sm.v[(tx + 16 * b) * LD + d];
    }
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        s[a][b] = fmaf(q[a], k[b], s[a][b]);
        dp[a][b] = fmaf(o[a], v[b], dp[a][b]);
      }
  }
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int i = ty + 16 * a, j = tx + 16 * b;
      const int qi = q0 + i, kj = k0 + j;
      const bool live = qi < S && kj < S && (!causal || kj <= qi);
      const float p = live ? expf(SOFTMAX_SCALE * s[a][b] - sm.lse[i]) : 0.f;
      sm.p[i * LDT + j] = p;
      sm.ds[i * LDT + j] = p * (dp[a][b] - sm.delta[i]);
    }
}

// dK and dV of one 64-key tile: loops over the query tiles.
extern "C" __global__ void __launch_bounds__(THREADS)
mha_bwd_dkdv_ffma(const __nv_bfloat16 *__restrict__ Q,
                  const __nv_bfloat16 *__restrict__ K,
                  const __nv_bfloat16 *__restrict__ V,
                  const __nv_bfloat16 *__restrict__ dO,
                  const float *__restrict__ LSE,
                  const float *__restrict__ delta, __nv_bfloat16 *__restrict__ dK,
                  __nv_bfloat16 *__restrict__ dV, int S, int causal) {
  extern __shared__ float smem_f[];
  Smem sm(smem_f);
  const size_t head = (size_t)blockIdx.y * S; // first row of this (b, h)
  const int k0 = blockIdx.x * TILE;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  Q += head * HEAD_DIM;
  K += head * HEAD_DIM;
  V += head * HEAD_DIM;
  dO += head * HEAD_DIM;
  LSE += head;
  delta += head;

  load_tile(sm.k, K, k0, S);
  load_tile(sm.v, V, k0, S);
  // Thread owns keys ty + 16a and head-dimension columns tx + 16c.
  float dk[4][8], dv[4][8];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int c = 0; c < 8; ++c)
      dk[a][c] = dv[a][c] = 0.f;

  // Causal: queries before k0 see none of these keys.
  const int firstTile = causal ? blockIdx.x : 0;
  const int numTiles = (S + TILE - 1) / TILE;
  for (int t = firstTile; t < numTiles; ++t) {
    const int q0 = t * TILE;
    load_tile(sm.q, Q, q0, S);
    load_tile(sm.dO, dO, q0, S);
    load_row_stats(sm, LSE, delta, q0, S);
    __syncthreads();
    scores(sm, q0, k0, S, causal);
    __syncthreads();
    for (int i = 0; i < TILE; ++i) {
      float p[4], ds[4], o[8], q[8];
#pragma unroll
      for (int a = 0; a < 4; ++a) {
        p[a] = sm.p[i * LDT + ty + 16 * a];
        ds[a] = sm.ds[i * LDT + ty + 16 * a];
      }
#pragma unroll
      for (int c = 0; c < 8; ++c) {
        o[c] = sm.dO[i * LD + tx + 16 * c];
        q[c] = sm.q[i * LD + tx + 16 * c];
      }
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int c = 0; c < 8; ++c) {
          dv[a][c] = fmaf(p[a], o[c], dv[a][c]);
          dk[a][c] = fmaf(ds[a], q[c], dk[a][c]);
        }
    }
    __syncthreads(); // the next tile overwrites Q, dO, P and dS
  }

#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const int key = k0 + ty + 16 * a;
    if (key >= S)
      continue;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      const size_t at = (head + key) * HEAD_DIM + tx + 16 * c;
      dK[at] = __float2bfloat16(SOFTMAX_SCALE * dk[a][c]);
      dV[at] = __float2bfloat16(dv[a][c]);
    }
  }
}

// dQ of one 64-query tile: loops over the key tiles.
extern "C" __global__ void __launch_bounds__(THREADS)
mha_bwd_dq_ffma(const __nv_bfloat16 *__restrict__ Q,
                const __nv_bfloat16 *__restrict__ K,
                const __nv_bfloat16 *__restrict__ V,
                const __nv_bfloat16 *__restrict__ dO,
                const float *__restrict__ LSE, const float *__restrict__ delta,
                __nv_bfloat16 *__restrict__ dQ, int S, int causal) {
  extern __shared__ float smem_f[];
  Smem sm(smem_f);
  const size_t head = (size_t)blockIdx.y * S;
  const int q0 = blockIdx.x * TILE;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  Q += head * HEAD_DIM;
  K += head * HEAD_DIM;
  V += head * HEAD_DIM;
  dO += head * HEAD_DIM;
  LSE += head;
  delta += head;

  load_tile(sm.q, Q, q0, S);
  load_tile(sm.dO, dO, q0, S);
  load_row_stats(sm, LSE, delta, q0, S);
  // Thread owns queries ty + 16a and head-dimension columns tx + 16c.
  float dq[4][8];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int c = 0; c < 8; ++c)
      dq[a][c] = 0.f;

  // Causal: keys after the tile's last query are masked for all its rows.
  const int numTiles = causal ? blockIdx.x + 1 : (S + TILE - 1) / TILE;
  for (int t = 0; t < numTiles; ++t) {
    const int k0 = t * TILE;
    load_tile(sm.k, K, k0, S);
    load_tile(sm.v, V, k0, S);
    __syncthreads();
    scores(sm, q0, k0, S, causal);
    __syncthreads();
    for (int j = 0; j < TILE; ++j) {
      float ds[4], k[8];
#pragma unroll
      for (int a = 0; a < 4; ++a)
        ds[a] = sm.ds[(ty + 16 * a) * LDT + j];
#pragma unroll
      for (int c = 0; c < 8; ++c)
        k[c] = sm.k[j * LD + tx + 16 * c];
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int c = 0; c < 8; ++c)
          dq[a][c] = fmaf(ds[a], k[c], dq[a][c]);
    }
    __syncthreads(); // the next tile overwrites K, V, P and dS
  }

#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const int query = q0 + ty + 16 * a;
    if (query >= S)
      continue;
#pragma unroll
    for (int c = 0; c < 8; ++c)
      dQ[(head + query) * HEAD_DIM + tx + 16 * c] =
          __float2bfloat16(SOFTMAX_SCALE * dq[a][c]);
  }
}
