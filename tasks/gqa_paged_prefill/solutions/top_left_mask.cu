// GQA prefill over a paged KV cache, broken: ffma.cu with the causal mask
// aligned to the top left, as for self-attention without a cached prefix:
// query i of the S new ones sees keys t <= i instead of t <= P + i (and the
// CTA stops after key q0 + 15). Right when P = 0 (dev-b4-s2048-p0); wrong
// wherever P > 0 (dev-b8-s512-p1536): a query sees the sequence's first i + 1
// tokens, all of them cached ones, instead of the prefix and its own new ones.
//
// @ptxbench kernel gqa_prefill_ffma grid=(ceildiv(S, 16), HQ, B) block=128 smem=(80*D+32)*4
// @ptxbench   args Q, k_cache, v_cache, kv_indices, O, LSE, S, P, HQ, HKV, PS
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define D 128
#define DC (D / 32)     // head-dim columns per lane
#define ROWS_PER_WARP 4
#define BR 16           // query rows per CTA (4 warps x 4 rows)
#define BKEY 32         // keys per shared-memory tile (one per lane)
#define NEG_INF __int_as_float(0xff800000)

__device__ __forceinline__ float bf(uint16_t v) {
  return __uint_as_float(((uint32_t)v) << 16);
}
__device__ __forceinline__ uint16_t tobf(float f) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
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

extern "C" __global__ void __launch_bounds__(128)
gqa_prefill_ffma(const uint16_t *__restrict__ Q, const uint16_t *__restrict__ kc,
                 const uint16_t *__restrict__ vc, const int *__restrict__ idx,
                 uint16_t *__restrict__ O, float *__restrict__ LSE, int S, int P, int HQ,
                 int HKV, int PS) {
  extern __shared__ float smem[];
  float *sQ = smem;                // [BR][D], pre-scaled by 1/sqrt(D)
  float *sK = sQ + BR * D;         // [BKEY][D + 1]
  float *sV = sK + BKEY * (D + 1); // [BKEY][D]
  const int q0 = blockIdx.x * BR, h = blockIdx.y, b = blockIdx.z;
  const int g = h / (HQ / HKV); // the KV head of query head h
  const int L = P + S, pagesPerSeq = (L + PS - 1) / PS;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const float scale = rsqrtf((float)D);

  for (int i = tid; i < BR * D; i += 128) {
    const int row = q0 + i / D;
    sQ[i] = row < S ? bf(Q[(((uint64_t)b * S + row) * HQ + h) * D + i % D]) * scale : 0.f;
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
  const int row_base = q0 + warp * ROWS_PER_WARP; // query index among the S new ones
  // The CTA's last query, q0 + BR - 1, sees keys up to q0 + BR - 1.
  const int kv_end = min(L, q0 + BR);

  for (int k0 = 0; k0 < kv_end; k0 += BKEY) {
    __syncthreads(); // the previous tile is no longer read (and sQ is written, first time)
    for (int i = tid; i < BKEY * D; i += 128) {
      const int j = i / D, d = i % D, key = k0 + j;
      float kv = 0.f, vv = 0.f;
      if (key < L) {
        const int page = idx[(uint64_t)b * pagesPerSeq + key / PS];
        const uint64_t krow = ((uint64_t)page * PS + key % PS) * HKV + g;
        kv = bf(kc[krow * D + d]);
        vv = bf(vc[krow * D + d]);
      }
      sK[j * (D + 1) + d] = kv;
      sV[j * D + d] = vv;
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
      if (key >= L || key > row_base + r) // causal mask
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
    const uint64_t out = ((uint64_t)b * S + row) * HQ + h;
    const float inv = 1.f / l[r]; // every query sees key 0: l > 0
#pragma unroll
    for (int c = 0; c < DC; ++c)
      O[out * D + lane + 32 * c] = tobf(o[r][c] * inv);
    if (lane == 0)
      LSE[out] = m[r] + logf(l[r]);
  }
}
