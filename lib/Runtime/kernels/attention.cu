//===- attention.cu - The fp32 attention references -----------------------===//
//
// The harness's fp32 reference kernels for multi-head attention forward
// (O and the natural-log LSE) and backward (Delta, dQ, dK, dV), and the
// fp32 -> bf16 conversion that turns the forward reference's O into the
// backward task's bf16 input. Compiled with NVRTC at run time, only by the
// workers of attention tasks, from the copy the build embeds in the
// runtime (AttentionKernels.h).
//
// Not a translation unit of its own: it is compiled after builtin.cu, in
// the same unit (attentionKernelsUnit()), and uses its u16/u32/u64 typedefs
// and bf16ToF/fToBf16. It includes no headers, and not builtin.cu either:
// the compile path's include check refuses any header outside the toolkit.
//
// Layout: Q, K, V, O, dO are row-major [BH, S, D] (bf16 as u16 bits; the
// forward's O and the gradients are fp32), LSE and Delta are [BH, S] fp32,
// scale = 1/sqrt(D) is passed in, and the causal mask is top-left aligned
// (query i sees keys j <= i). S and D are arbitrary (partial tiles and
// head-dim slices are zero-padded or masked).
//
// Scheme (all three matrix kernels): a block of 256 threads (16 x 16) owns
// one 64-row tile of one (batch, head) and walks the 64-row tiles of the
// other side. Phase 1 computes 64 x 64 score tiles (Q K^T, and dO V^T in
// the backward) from 16-column slices of the head dimension staged in
// shared memory as fp32; each thread owns a 4 x 4 sub-tile (rows
// ty + 16a, columns tx + 16b), so a row's 64 scores live in 16 adjacent
// lanes and row reductions are four shuffles. Phase 2 multiplies the 64 x 64
// tile (P or dS, written to shared memory) by the other side's rows, staged
// 16 rows at a time, into a 4 x (columns/16) register accumulator per
// thread. A block accumulates at most 128 head-dim columns: grid.z picks
// the column group (a head wider than 128 recomputes phase 1 per group),
// and a template parameter sizes the accumulators for 64 or 128 columns.
// A launch whose grid.z does not cover D writes NaN to the outputs, so a
// check fails loudly instead of reading stale memory. Static shared memory
// only (33,280 bytes per block), no spills on sm_90a or sm_100a.
//
//===----------------------------------------------------------------------===//

namespace attnref {
constexpr int kTile = 64;     // rows of a query or key tile
constexpr int kThreads = 256; // 16 x 16; each thread owns 4 x 4 of a tile
constexpr int kChunk = 16;    // head-dim columns (phase 1) or rows (phase 2)
                              // staged per step
constexpr int kPad = kTile + 1; // odd row stride: transposed stores and
                                // column reads hit distinct banks

// Head-dim columns one block accumulates (grid.z picks the group): 4 x 8
// accumulators per thread and output. Whole-head accumulators for D = 256
// pushed dK/dV past 250 registers for every D.
constexpr int kGroupCols = 128;
// The staging area holds either up to four transposed 16 x 64 head-dim
// slices (phase 1) or 16 rows of up to kGroupCols columns (phase 2).
constexpr int kSlice = kChunk * kPad;
constexpr int kStageFloats = 4 * kSlice > kChunk * kGroupCols
                                 ? 4 * kSlice
                                 : kChunk * kGroupCols;

typedef float Slice[kPad];

// -inf without <math.h> (NVRTC compiles this with no headers).
__device__ __forceinline__ float negInf() {
  return __int_as_float(0xff800000);
}

// dst[c][r] = src[row0 + r][d0 + c] as fp32 for a 64-row, 16-column slice
// of a [S, D] matrix; zero outside the matrix, so padded rows and columns
// add nothing to a dot product.
__device__ __forceinline__ void stageSlice(Slice *dst, const u16 *src,
                                           int row0, int S, int d0, int D) {
  for (int e = threadIdx.x; e < kTile * kChunk; e += kThreads) {
    int r = e / kChunk, c = e % kChunk;
    int gr = row0 + r, gc = d0 + c;
    dst[c][r] = (gr < S && gc < D) ? bf16ToF(src[(u64)gr * D + gc]) : 0.f;
  }
}

// acc[a][b] += sum_k A[k][ty + 16a] * B[k][tx + 16b] over one staged slice.
// The k loops here and in rowsProduct unroll by 4, not fully: full
// unrolling made the PTX 60% larger and NVRTC plus the driver's JIT about
// two seconds slower each time the harness starts.
__device__ __forceinline__ void sliceProduct(float (&acc)[4][4],
                                             const Slice *A, const Slice *B,
                                             int ty, int tx) {
#pragma unroll 4
  for (int k = 0; k < kChunk; ++k) {
    float a[4], b[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      a[i] = A[k][ty + 16 * i];
      b[i] = B[k][tx + 16 * i];
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

// dst[r][c] = src[row0 + r][c0 + c] as fp32 for 16 rows and 16 * NC
// columns; zero outside the matrix.
template <int NC>
__device__ __forceinline__ void stageRows(float (*dst)[16 * NC],
                                          const u16 *src, int row0, int S,
                                          int c0, int D) {
  for (int e = threadIdx.x; e < kChunk * 16 * NC; e += kThreads) {
    int r = e / (16 * NC), c = e % (16 * NC);
    int gr = row0 + r, gc = c0 + c;
    dst[r][c] = (gr < S && gc < D) ? bf16ToF(src[(u64)gr * D + gc]) : 0.f;
  }
}

// acc[a][c] += sum_k W[ty + 16a][k0 + k] * R[k][tx + 16c] over 16 staged rows.
template <int NC>
__device__ __forceinline__ void rowsProduct(float (&acc)[4][NC],
                                            const Slice *W, int k0,
                                            const float (*R)[16 * NC],
                                            int ty, int tx) {
#pragma unroll 4
  for (int k = 0; k < kChunk; ++k) {
    float w[4];
#pragma unroll
    for (int a = 0; a < 4; ++a) w[a] = W[ty + 16 * a][k0 + k];
#pragma unroll
    for (int c = 0; c < NC; ++c) {
      float r = R[k][tx + 16 * c];
#pragma unroll
      for (int a = 0; a < 4; ++a) acc[a][c] = fmaf(w[a], r, acc[a][c]);
    }
  }
}

// acc += W (64 x 64, in shared memory) @ src[row0 .. row0 + 63][c0 ..
// c0 + 16 NC - 1], the rows staged 16 at a time. Starts with a barrier, so
// callers may have just written W or still be reading the staging area.
template <int NC>
__device__ __forceinline__ void tileTimesRows(float (&acc)[4][NC],
                                              const Slice *W, const u16 *src,
                                              int row0, int S, int c0, int D,
                                              float *stage, int ty, int tx) {
  float(*rows)[16 * NC] = reinterpret_cast<float(*)[16 * NC]>(stage);
  for (int k0 = 0; k0 < kTile; k0 += kChunk) {
    __syncthreads();
    stageRows<NC>(rows, src, row0 + k0, S, c0, D);
    __syncthreads();
    rowsProduct<NC>(acc, W, k0, rows, ty, tx);
  }
}

// Reductions over the 16 lanes (tx = 0..15) that hold one tile row.
__device__ __forceinline__ float rowMax(float v) {
#pragma unroll
  for (int o = 8; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float rowSum(float v) {
#pragma unroll
  for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Writes NaN to rows [row0, row0 + 64) of a [S, D] fp32 output: the
// kernels' answer to a launch whose grid.z does not cover D, so that the
// check fails loudly instead of reading stale memory.
__device__ __forceinline__ void poisonRows(float *out, int row0, int S,
                                           int D) {
  if (!out || D < 1) return;
  for (int e = threadIdx.x; e < kTile * D; e += kThreads) {
    int r = row0 + e / D;
    if (r < S) out[(u64)r * D + e % D] = __int_as_float(0x7fc00000);
  }
}

// O and LSE for the query tile at q0, output columns [c0, c0 + 16 NC):
// online softmax over the key tiles with fp32 running max and sum.
template <int NC>
__device__ void forward(const u16 *Q, const u16 *K, const u16 *V, float *O,
                        float *LSE, int S, int D, float scale, int causal,
                        int q0, int c0, float *stage, Slice *pTile) {
  int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  Slice *qs = reinterpret_cast<Slice *>(stage);
  Slice *ks = qs + kChunk;
  float acc[4][NC] = {};
  // Running max m of the scaled scores of each owned row, and this
  // thread's share of the row's sum of exp(s - m) (summed over the 16 lanes
  // only at the end; every lane rescales by the same row max).
  float m[4], l[4];
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    m[a] = negInf();
    l[a] = 0.f;
  }
  int kEnd = causal ? min(S, q0 + kTile) : S;
  for (int k0 = 0; k0 < kEnd; k0 += kTile) {
    float s[4][4] = {};
    for (int d0 = 0; d0 < D; d0 += kChunk) {
      __syncthreads();
      stageSlice(qs, Q, q0, S, d0, D);
      stageSlice(ks, K, k0, S, d0, D);
      __syncthreads();
      sliceProduct(s, qs, ks, ty, tx);
    }
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      int i = q0 + ty + 16 * a;
      float tileMax = negInf();
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        int j = k0 + tx + 16 * b;
        bool live = j < S && (!causal || j <= i);
        s[a][b] = live ? s[a][b] * scale : negInf();
        tileMax = fmaxf(tileMax, s[a][b]);
      }
      float mNew = fmaxf(m[a], rowMax(tileMax));
      // With no live score yet the row max is -inf; subtracting 0 instead
      // keeps exp(-inf - -inf) = NaN out (every term is then exp(-inf) = 0).
      float ref = mNew == negInf() ? 0.f : mNew;
      float alpha = expf(m[a] - ref);
      m[a] = mNew;
      l[a] *= alpha;
#pragma unroll
      for (int c = 0; c < NC; ++c) acc[a][c] *= alpha;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        float p = expf(s[a][b] - ref);
        l[a] += p;
        pTile[ty + 16 * a][tx + 16 * b] = p;
      }
    }
    tileTimesRows<NC>(acc, pTile, V, k0, S, c0, D, stage, ty, tx);
  }
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    float rowL = rowSum(l[a]);
    int i = q0 + ty + 16 * a;
    if (i >= S) continue;
    float inv = 1.f / rowL;
#pragma unroll
    for (int c = 0; c < NC; ++c) {
      int col = c0 + tx + 16 * c;
      if (col < D) O[(u64)i * D + col] = acc[a][c] * inv;
    }
    if (tx == 0 && c0 == 0) LSE[i] = m[a] + logf(rowL);
  }
}

// dQ for one query tile: dQ = scale * dS K with dS = P * (dO V^T - Delta).
template <int NC>
__device__ void backwardDq(const u16 *Q, const u16 *K, const u16 *V,
                           const u16 *dO, const float *LSE,
                           const float *Delta, float *dQ, int S, int D,
                           float scale, int causal, int q0, int c0,
                           float *stage, Slice *dsTile) {
  int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  Slice *qs = reinterpret_cast<Slice *>(stage);
  Slice *ks = qs + kChunk, *dos = qs + 2 * kChunk, *vs = qs + 3 * kChunk;
  float lse[4], delta[4];
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    int i = q0 + ty + 16 * a;
    lse[a] = i < S ? LSE[i] : 0.f;
    delta[a] = i < S ? Delta[i] : 0.f;
  }
  float acc[4][NC] = {};
  int kEnd = causal ? min(S, q0 + kTile) : S;
  for (int k0 = 0; k0 < kEnd; k0 += kTile) {
    float s[4][4] = {}, dp[4][4] = {};
    for (int d0 = 0; d0 < D; d0 += kChunk) {
      __syncthreads();
      stageSlice(qs, Q, q0, S, d0, D);
      stageSlice(ks, K, k0, S, d0, D);
      stageSlice(dos, dO, q0, S, d0, D);
      stageSlice(vs, V, k0, S, d0, D);
      __syncthreads();
      sliceProduct(s, qs, ks, ty, tx);
      sliceProduct(dp, dos, vs, ty, tx);
    }
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      int i = q0 + ty + 16 * a;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        int j = k0 + tx + 16 * b;
        bool live = i < S && j < S && (!causal || j <= i);
        float p = live ? expf(s[a][b] * scale - lse[a]) : 0.f;
        dsTile[ty + 16 * a][tx + 16 * b] = p * (dp[a][b] - delta[a]);
      }
    }
    tileTimesRows<NC>(acc, dsTile, K, k0, S, c0, D, stage, ty, tx);
  }
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    int i = q0 + ty + 16 * a;
    if (i >= S) continue;
#pragma unroll
    for (int c = 0; c < NC; ++c) {
      int col = c0 + tx + 16 * c;
      if (col < D) dQ[(u64)i * D + col] = acc[a][c] * scale;
    }
  }
}

// dK and dV for one key tile: dV = P^T dO, dK = scale * dS^T Q. The tile's
// rows are keys and its columns queries, so LSE and Delta are per column.
template <int NC>
__device__ void backwardDkDv(const u16 *Q, const u16 *K, const u16 *V,
                             const u16 *dO, const float *LSE,
                             const float *Delta, float *dK, float *dV, int S,
                             int D, float scale, int causal, int k0, int c0,
                             float *stage, Slice *tile) {
  int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  Slice *ks = reinterpret_cast<Slice *>(stage);
  Slice *qs = ks + kChunk, *vs = ks + 2 * kChunk, *dos = ks + 3 * kChunk;
  float accK[4][NC] = {}, accV[4][NC] = {};
  // Query tiles wholly above the diagonal (all i < k0) see none of these
  // keys; tiles are aligned to kTile, so the first one that can is k0's.
  for (int q0 = causal ? k0 : 0; q0 < S; q0 += kTile) {
    float s[4][4] = {}, dp[4][4] = {};
    for (int d0 = 0; d0 < D; d0 += kChunk) {
      __syncthreads();
      stageSlice(ks, K, k0, S, d0, D);
      stageSlice(qs, Q, q0, S, d0, D);
      stageSlice(vs, V, k0, S, d0, D);
      stageSlice(dos, dO, q0, S, d0, D);
      __syncthreads();
      sliceProduct(s, ks, qs, ty, tx);
      sliceProduct(dp, vs, dos, ty, tx);
    }
    float lse[4], delta[4];
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      int i = q0 + tx + 16 * b;
      lse[b] = i < S ? LSE[i] : 0.f;
      delta[b] = i < S ? Delta[i] : 0.f;
    }
    // P^T into the tile (dV first); s keeps dS^T for the dK pass.
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      int j = k0 + ty + 16 * a;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        int i = q0 + tx + 16 * b;
        bool live = i < S && j < S && (!causal || j <= i);
        float p = live ? expf(s[a][b] * scale - lse[b]) : 0.f;
        tile[ty + 16 * a][tx + 16 * b] = p;
        s[a][b] = p * (dp[a][b] - delta[b]);
      }
    }
    tileTimesRows<NC>(accV, tile, dO, q0, S, c0, D, stage, ty, tx);
    __syncthreads(); // every thread is done reading P^T
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) tile[ty + 16 * a][tx + 16 * b] = s[a][b];
    tileTimesRows<NC>(accK, tile, Q, q0, S, c0, D, stage, ty, tx);
  }
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    int j = k0 + ty + 16 * a;
    if (j >= S) continue;
#pragma unroll
    for (int c = 0; c < NC; ++c) {
      int col = c0 + tx + 16 * c;
      if (col < D) {
        dK[(u64)j * D + col] = accK[a][c] * scale;
        dV[(u64)j * D + col] = accV[a][c];
      }
    }
  }
}

// Runs body(ColumnCount<NC>(), c0) for the head-dim column group
// blockIdx.z, columns [c0, c0 + 16 NC), with accumulators for 64 or 128
// columns as the group needs. False when grid.z does not cover D.
template <int N> struct ColumnCount {
  static constexpr int value = N;
};
template <typename Body>
__device__ __forceinline__ bool forColumnGroup(int D, Body body) {
  if (D < 1 || (long long)gridDim.z * kGroupCols < D) return false;
  int c0 = blockIdx.z * kGroupCols;
  if (c0 >= D) return true; // a surplus group: nothing to write
  if (D - c0 <= 64)
    body(ColumnCount<4>(), c0);
  else
    body(ColumnCount<8>(), c0);
  return true;
}
} // namespace attnref

// Forward: O[bh, i, :] (fp32) and LSE[bh, i] (fp32, natural log) for the
// query tile blockIdx.x (heaviest causal tiles first), head bh = blockIdx.y
// and head-dim column group blockIdx.z. Grid (ceil(S / 64), B * H,
// ceil(D / 128)), 256 threads.
extern "C" __global__ void __launch_bounds__(256)
ptxbench_attn_fwd_ref(const u16 *Q, const u16 *K, const u16 *V, float *O,
                      float *LSE, int S, int D, float scale, int causal) {
  using namespace attnref;
  __shared__ __align__(16) float stage[kStageFloats];
  __shared__ Slice pTile[kTile];
  int q0 = (gridDim.x - 1 - blockIdx.x) * kTile;
  u64 head = (u64)blockIdx.y * S * D;
  Q += head, K += head, V += head, O += head;
  LSE += (u64)blockIdx.y * S;
  bool covered = forColumnGroup(D, [&](auto cols, int c0) {
    forward<decltype(cols)::value>(Q, K, V, O, LSE, S, D, scale, causal, q0,
                                   c0, stage, pTile);
  });
  if (!covered) {
    poisonRows(O, q0, S, D);
    poisonRows(LSE, q0, S, 1);
  }
}

// Delta[r] = sum_d O[r, d] * dO[r, d] in fp32; one warp per row, 8 rows per
// 256-thread block, grid ceil(rows / 8).
extern "C" __global__ void __launch_bounds__(256)
ptxbench_attn_bwd_delta(const u16 *O, const u16 *dO, float *Delta,
                        long long rows, int D) {
  long long r = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
  int lane = threadIdx.x & 31;
  if (r >= rows) return; // whole warps leave together
  const u16 *o = O + (u64)r * D, *g = dO + (u64)r * D;
  float sum = 0.f;
  for (int d = lane; d < D; d += 32)
    sum = fmaf(bf16ToF(o[d]), bf16ToF(g[d]), sum);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (lane == 0) Delta[r] = sum;
}

// dQ (fp32) for the query tile blockIdx.x (heaviest causal tiles first),
// head blockIdx.y and column group blockIdx.z. Grid (ceil(S / 64), B * H,
// ceil(D / 128)), 256 threads.
extern "C" __global__ void __launch_bounds__(256)
ptxbench_attn_bwd_dq_ref(const u16 *Q, const u16 *K, const u16 *V,
                         const u16 *dO, const float *LSE, const float *Delta,
                         float *dQ, int S, int D, float scale, int causal) {
  using namespace attnref;
  __shared__ __align__(16) float stage[kStageFloats];
  __shared__ Slice dsTile[kTile];
  int q0 = (gridDim.x - 1 - blockIdx.x) * kTile;
  u64 head = (u64)blockIdx.y * S * D, rowsAt = (u64)blockIdx.y * S;
  Q += head, K += head, V += head, dO += head, dQ += head;
  LSE += rowsAt, Delta += rowsAt;
  bool covered = forColumnGroup(D, [&](auto cols, int c0) {
    backwardDq<decltype(cols)::value>(Q, K, V, dO, LSE, Delta, dQ, S, D, scale,
                                      causal, q0, c0, stage, dsTile);
  });
  if (!covered) poisonRows(dQ, q0, S, D);
}

// dK and dV (fp32) for the key tile blockIdx.x (causal: low key tiles see
// the most queries, so they already come first), head blockIdx.y and
// column group blockIdx.z. Grid (ceil(S / 64), B * H, ceil(D / 128)),
// 256 threads.
extern "C" __global__ void __launch_bounds__(256)
ptxbench_attn_bwd_dkdv_ref(const u16 *Q, const u16 *K, const u16 *V,
                           const u16 *dO, const float *LSE,
                           const float *Delta, float *dK, float *dV, int S,
                           int D, float scale, int causal) {
  using namespace attnref;
  __shared__ __align__(16) float stage[kStageFloats];
  __shared__ Slice tile[kTile];
  int k0 = blockIdx.x * kTile;
  u64 head = (u64)blockIdx.y * S * D, rowsAt = (u64)blockIdx.y * S;
  Q += head, K += head, V += head, dO += head, dK += head, dV += head;
  LSE += rowsAt, Delta += rowsAt;
  bool covered = forColumnGroup(D, [&](auto cols, int c0) {
    backwardDkDv<decltype(cols)::value>(Q, K, V, dO, LSE, Delta, dK, dV, S, D,
                                        scale, causal, k0, c0, stage, tile);
  });
  if (!covered) {
    poisonRows(dK, k0, S, D);
    poisonRows(dV, k0, S, D);
  }
}

// out[i] = bf16(in[i]) (round to nearest even), grid-stride.
extern "C" __global__ void __launch_bounds__(256)
ptxbench_f32_to_bf16(const float *in, u16 *out, u64 n) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n;
       i += (u64)gridDim.x * blockDim.x)
    out[i] = fToBf16(in[i]);
}
