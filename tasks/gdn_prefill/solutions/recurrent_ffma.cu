// Gated delta net prefill, fallback: the recurrence token by token on the
// CUDA cores, no tensor cores, no TMA, no mbarrier.
// A warp owns 32 columns of one (sequence, value head)'s state, one column
// per lane, held in 128 registers for the whole prompt: column j of S is
// all the delta rule needs besides k (S^T k)_j and q. Per token the warp
// stages q and k in shared memory (four values per lane), every lane forms
// (S^T k)_j, the correction beta (v_j - alpha (S^T k)_j), updates its
// column S[:, j] = alpha S[:, j] + k delta and reads o_j = S[:, j] . q /
// sqrt(D) in the same pass. T dependent steps of 3 D FMAs per lane: correct
// for any T, and as slow as the chained form must be (the chunked form
// turns the same work into matrix products).
//
// @ptxbench kernel gdn_prefill_recurrent grid=(D/32, HV, B) block=32
// @ptxbench   args q, k, v, alpha, beta, state, o, new_state, T, HQK, HV
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define D 128
#define COLUMNS 32 // value columns per warp

__device__ __forceinline__ float bf16ToFloat(uint16_t v) {
  return __uint_as_float(((uint32_t)v) << 16);
}
__device__ __forceinline__ uint16_t floatToBf16(float f) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}

extern "C" __global__ void __launch_bounds__(COLUMNS)
gdn_prefill_recurrent(const uint16_t *__restrict__ q,
                      const uint16_t *__restrict__ k,
                      const uint16_t *__restrict__ v,
                      const float *__restrict__ alpha,
                      const float *__restrict__ beta,
                      const float *__restrict__ state,
                      uint16_t *__restrict__ o, float *__restrict__ newState,
                      int T, int HQK, int HV) {
  __shared__ float qTile[D], kTile[D];
  const int lane = threadIdx.x;
  const int column = blockIdx.x * COLUMNS + lane;
  const int h = blockIdx.y, b = blockIdx.z;
  const int keyHead = h / (HV / HQK);
  const uint64_t head = (uint64_t)b * HV + h;

  float s[D]; // column `column` of S, rows 0..D-1
  const float *in = state + head * D * D + column;
#pragma unroll
  for (int r = 0; r < D; ++r)
    s[r] = in[(uint64_t)r * D];

  const float scale = rsqrtf((float)D);
  for (int t = 0; t < T; ++t) {
    const uint64_t token = (uint64_t)b * T + t;
    const uint16_t *qRow = q + (token * HQK + keyHead) * D;
    const uint16_t *kRow = k + (token * HQK + keyHead) * D;
    __syncwarp(); // every lane is done with the previous token's q and k
#pragma unroll
    for (int i = lane; i < D; i += COLUMNS) {
      qTile[i] = bf16ToFloat(qRow[i]);
      kTile[i] = bf16ToFloat(kRow[i]);
    }
    __syncwarp();
    const float decay = alpha[token * HV + h];
    const float strength = beta[token * HV + h];
    const float value = bf16ToFloat(v[(token * HV + h) * D + column]);
    float predicted = 0.f;
#pragma unroll
    for (int r = 0; r < D; ++r)
      predicted = fmaf(s[r], kTile[r], predicted);
    const float correction = strength * (value - decay * predicted);
    float out = 0.f;
#pragma unroll
    for (int r = 0; r < D; ++r) {
      s[r] = fmaf(decay, s[r], kTile[r] * correction);
      out = fmaf(s[r], qTile[r], out);
    }
    o[(token * HV + h) * D + column] = floatToBf16(out * scale);
  }

  float *outState = newState + head * D * D + column;
#pragma unroll
  for (int r = 0; r < D; ++r)
    outState[(uint64_t)r * D] = s[r];
}
