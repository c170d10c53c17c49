// Gated delta net, recurrent steps: the requested path. A block of 128
// threads owns one (sequence, value head): thread 0 arms a transaction-count
// mbarrier with the state's 64 KiB and moves the [D, D] fp32 state into
// shared memory with ONE non-tensor bulk copy (cp.async.bulk ...
// .mbarrier::complete_tx::bytes) while the threads load the first token's
// q, k and v. Thread j then owns column j of the state (value dimension j):
// per token it forms (S^T k)_j, the delta-rule correction beta (v_j -
// alpha (S^T k)_j), updates its column S[:, j] = alpha S[:, j] + k * delta
// and reads o_j = S[:, j] . q / sqrt(D) in the same pass; new_state is
// written back column by column (consecutive threads, consecutive words).
// Correct for any T; not tuned (one CTA per head, a 64 KiB stage).
//
// @ptxbench kernel gdn_bulk grid=B*HV block=128 smem=D*D*4
// @ptxbench   args q, k, v, alpha, beta, state, o, new_state, T, HQK, HV
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define D 128

__device__ __forceinline__ float bf(uint16_t v) {
  return __uint_as_float(((uint32_t)v) << 16);
}
__device__ __forceinline__ uint16_t tobf(float f) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}

extern "C" __global__ void __launch_bounds__(128)
gdn_bulk(const uint16_t *__restrict__ q, const uint16_t *__restrict__ k,
         const uint16_t *__restrict__ v, const float *__restrict__ alpha,
         const float *__restrict__ beta, const float *__restrict__ state,
         uint16_t *__restrict__ o, float *__restrict__ newState, int T, int HQK,
         int HV) {
  extern __shared__ __align__(128) float S[]; // [D][D], key dimension first
  __shared__ float qs[D], ks[D];
  __shared__ __align__(8) unsigned long long bar;
  const int b = blockIdx.x / HV, h = blockIdx.x % HV, j = threadIdx.x;
  const int hk = h / (HV / HQK);
  const uint32_t barAddr = (uint32_t)__cvta_generic_to_shared(&bar);
  if (j == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barAddr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  const float *src = state + ((uint64_t)b * HV + h) * D * D;
  if (j == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAddr),
                 "r"((uint32_t)(D * D * 4))
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"((uint32_t)__cvta_generic_to_shared(S)),
                 "l"(src), "r"(D * D * 4), "r"(barAddr)
                 : "memory");
  }
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(barAddr), "r"(0)
                 : "memory");
  const float scale = rsqrtf((float)D);
  for (int t = 0; t < T; ++t) {
    const uint64_t tok = (uint64_t)b * T + t;
    __syncthreads(); // the previous token's q and k are no longer read
    qs[j] = bf(q[(tok * HQK + hk) * D + j]);
    ks[j] = bf(k[(tok * HQK + hk) * D + j]);
    __syncthreads();
    const float a = alpha[tok * HV + h], be = beta[tok * HV + h];
    const float vj = bf(v[(tok * HV + h) * D + j]);
    float pred = 0.f;
    for (int r = 0; r < D; ++r)
      pred += S[r * D + j] * ks[r];
    const float delta = be * (vj - a * pred);
    float out = 0.f;
    for (int r = 0; r < D; ++r) {
      const float s = a * S[r * D + j] + ks[r] * delta;
      S[r * D + j] = s;
      out += s * qs[r];
    }
    o[(tok * HV + h) * D + j] = tobf(out * scale);
  }
  float *dst = newState + ((uint64_t)b * HV + h) * D * D;
  for (int r = 0; r < D; ++r)
    dst[r * D + j] = S[r * D + j];
}
