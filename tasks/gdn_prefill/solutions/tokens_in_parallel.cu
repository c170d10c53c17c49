// Gated delta net prefill, broken: every token treated as a decode step
// from the prompt's initial state, so the tokens run in parallel.
// The mistake of reading the recurrence as independent steps: token t's
// output and update use state[b, h] instead of the state the t tokens
// before it left. One CTA of 128 threads per (token, value head); thread j
// owns column j of the initial state, applies the token's decay and delta
// rule to it and reads o_j. new_state is the last token's single step.
// Right for T = 1 (decode), wrong for every longer prompt.
//
// @ptxbench kernel gdn_prefill_tokens grid=(T, HV, B) block=128
// @ptxbench   args q, k, v, alpha, beta, state, o, new_state, T, HQK, HV
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define D 128

__device__ __forceinline__ float widen(uint16_t v) {
  return __uint_as_float(((uint32_t)v) << 16);
}
__device__ __forceinline__ uint16_t narrow(float f) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}

extern "C" __global__ void __launch_bounds__(D)
gdn_prefill_tokens(const uint16_t *__restrict__ q,
                   const uint16_t *__restrict__ k,
                   const uint16_t *__restrict__ v,
                   const float *__restrict__ alpha,
                   const float *__restrict__ beta,
                   const float *__restrict__ state, uint16_t *__restrict__ o,
                   float *__restrict__ newState, int T, int HQK, int HV) {
  __shared__ float qs[D], ks[D];
  const int t = blockIdx.x, h = blockIdx.y, b = blockIdx.z, j = threadIdx.x;
  const uint64_t token = (uint64_t)b * T + t;
  const uint64_t head = (uint64_t)b * HV + h;
  const int keyHead = h / (HV / HQK);
  qs[j] = widen(q[(token * HQK + keyHead) * D + j]);
  ks[j] = widen(k[(token * HQK + keyHead) * D + j]);
  __syncthreads();
  const float *column = state + head * D * D + j;
  const float a = alpha[token * HV + h];
  float predicted = 0.f;
  for (int r = 0; r < D; ++r)
    predicted += column[(uint64_t)r * D] * ks[r];
  const float delta = beta[token * HV + h] *
                      (widen(v[(token * HV + h) * D + j]) - a * predicted);
  float out = 0.f;
  const bool last = t == T - 1;
  for (int r = 0; r < D; ++r) {
    const float s = a * column[(uint64_t)r * D] + ks[r] * delta;
    out += s * qs[r];
    if (last)
      newState[head * D * D + (uint64_t)r * D + j] = s;
  }
  o[(token * HV + h) * D + j] = narrow(out * rsqrtf((float)D));
}
