// Broken on purpose: ffma_naive.cu with a typo in the kernel's dispatch (`casual` for `causal`,
// not declared). Expected: NVRTC rejects it, status COMPILE_ERROR.
//
// @ptxbench kernel mha_fwd_ffma grid=(ceildiv(S, 16), H, B) block=128 smem=(80*D+32)*4
// @ptxbench   args Q, K, V, O, LSE, B, H, S, D, CAUSAL
#include <cuda_bf16.h>

#define ROWS_PER_WARP 4
#define BR 16   // query rows per CTA (4 warps x 4 rows)
#define BKEY 32 // keys per shared-memory tile (one per lane)
#define NEG_INF __int_as_float(0xff800000)

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <int D>
__device__ __forceinline__ void attention_rows(const __nv_bfloat16 *__restrict__ Qg,
                                               const __nv_bfloat16 *__restrict__ Kg,
                                               const __nv_bfloat16 *__restrict__ Vg,
                                               __nv_bfloat16 *__restrict__ Og,
                                               float *__restrict__ LSEg, int S, int q0,
                                               bool causal, float *smem) {
  constexpr int DC = D / 32; // head-dim columns per lane
  float *sQ = smem;                  // [BR][D], pre-scaled by 1/sqrt(D)
  float *sK = sQ + BR * D;           // [BKEY][D + 1]
  float *sV = sK + BKEY * (D + 1);   // [BKEY][D]
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const float scale = 1.f / sqrtf((float)D);

  for (int i = tid; i < BR * D; i += 128) {
    const int r = i / D, row = q0 + r;
    sQ[i] = row < S ? __bfloat162float(Qg[(size_t)row * D + i % D]) * scale : 0.f;
  }

  float o[ROWS_PER_WARP][DC], m[ROWS_PER_WARP], l[ROWS_PER_WARP];
#pragma unroll
  for (int r = 0; r < ROWS_PER_WARP; ++r) {
    m[r] = NEG_INF;
    l[r] = 0.f;
#pragma unroll
    for (int c = 0; c < DC; ++c)
      o[r][c] = 0.f;
  }
  const int row_base = q0 + warp * ROWS_PER_WARP;
  const int kv_end = causal ? min(S, q0 + BR) : S;

  for (int k0 = 0; k0 < kv_end; k0 += BKEY) {
    __syncthreads(); // the previous tile is no longer read (and sQ is written, first time)
    for (int i = tid; i < BKEY * D; i += 128) {
      const int j = i / D, d = i % D, key = k0 + j;
      const bool valid = key < S;
      sK[j * (D + 1) + d] = valid ? __bfloat162float(Kg[(size_t)key * D + d]) : 0.f;
      sV[j * D + d] = valid ? __bfloat162float(Vg[(size_t)key * D + d]) : 0.f;
    }
    __syncthreads();

    // Lane = key: scores of the warp's rows against key k0 + lane.
    float sc[ROWS_PER_WARP] = {};
    const float *krow = sK + lane * (D + 1);
    const float *qrows = sQ + warp * ROWS_PER_WARP * D;
#pragma unroll 8
    for (int d = 0; d < D; ++d) {
      const float kd = krow[d];
#pragma unroll
      for (int r = 0; r < ROWS_PER_WARP; ++r)
        sc[r] = fmaf(qrows[r * D + d], kd, sc[r]);
    }
    const int key = k0 + lane;
#pragma unroll
    for (int r = 0; r < ROWS_PER_WARP; ++r) {
      if (key >= S || (causal && key > row_base + r))
        sc[r] = NEG_INF;
      const float m_new = fmaxf(m[r], warp_max(sc[r]));
      const float m_use = m_new == NEG_INF ? 0.f : m_new; // nothing visible yet: p = 0
      const float corr = expf(m[r] - m_use);
      const float p = expf(sc[r] - m_use);
      l[r] = l[r] * corr + warp_sum(p);
      m[r] = m_new;
#pragma unroll
      for (int c = 0; c < DC; ++c)
        o[r][c] *= corr;
      sc[r] = p;
    }
    // O += P V: broadcast each key's p, lane owns columns lane + 32c.
    for (int j = 0; j < BKEY; ++j) {
      float v[DC];
#pragma unroll
      for (int c = 0; c < DC; ++c)
        v[c] = sV[j * D + lane + 32 * c];
#pragma unroll
      for (int r = 0; r < ROWS_PER_WARP; ++r) {
        const float p = __shfl_sync(0xffffffffu, sc[r], j);
#pragma unroll
        for (int c = 0; c < DC; ++c)
          o[r][c] = fmaf(p, v[c], o[r][c]);
      }
    }
  }

#pragma unroll
  for (int r = 0; r < ROWS_PER_WARP; ++r) {
    const int row = row_base + r;
    if (row >= S)
      continue;
    const float inv = l[r] > 0.f ? 1.f / l[r] : 0.f;
#pragma unroll
    for (int c = 0; c < DC; ++c)
      Og[(size_t)row * D + lane + 32 * c] = __float2bfloat16(o[r][c] * inv);
    if (lane == 0)
      LSEg[row] = m[r] + logf(l[r]);
  }
}

extern "C" __global__ void __launch_bounds__(128)
mha_fwd_ffma(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K,
             const __nv_bfloat16 *__restrict__ V, __nv_bfloat16 *__restrict__ O,
             float *__restrict__ LSE, int B, int H, int S, int D, int CAUSAL) {
  extern __shared__ float smem[];
  const size_t bh = (size_t)blockIdx.z * H + blockIdx.y;
  const size_t off = bh * S * D;
  const int q0 = blockIdx.x * BR;
  const bool causal = CAUSAL != 0;
  if (D == 64)
    attention_rows<64>(Q + off, K + off, V + off, O + off, LSE + bh * S, S, q0, causal, smem);
  else if (D == 128)
    attention_rows<128>(Q + off, K + off, V + off, O + off, LSE + bh * S, S, q0, casual, smem);
  else if (D == 256)
    attention_rows<256>(Q + off, K + off, V + off, O + off, LSE + bh * S, S, q0, causal, smem);
}
