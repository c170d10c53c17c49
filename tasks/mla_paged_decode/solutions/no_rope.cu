// MLA paged decode, broken: bulk_mbarrier.cu with the scores taken over the
// 512 latent dimensions only. The rope rows are still copied (the same bulk
// copies on the same transaction-count mbarriers), but q_pe . kpe never
// enters a score: the positional half of the key is lost, so the softmax
// weights and O and LSE are wrong wherever the rope dimensions matter.
//
// @ptxbench kernel mla_decode_no_rope grid=B block=512 smem=2*32*(512+64)*2
// @ptxbench   args q_nope, q_pe, ckv_cache, kpe_cache, kv_indices, O, LSE, L, PS
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define H 16
#define DC 512 // latent (key and value) dimensions
#define DR 64  // rope dimensions of the key
#define CH 32  // tokens per stage

__device__ __forceinline__ float bf(uint32_t v) {
  return __uint_as_float(v << 16);
}
__device__ __forceinline__ uint16_t tobf(float f) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
__device__ __forceinline__ void unpack8(uint4 w, float *out) {
  const uint32_t words[4] = {w.x, w.y, w.z, w.w};
  for (int i = 0; i < 4; ++i) {
    out[2 * i] = bf(words[i] & 0xffff);
    out[2 * i + 1] = bf(words[i] >> 16);
  }
}
__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void bulkCopy(const void *dst, const void *src,
                                         uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1], %2, [%3];" ::"r"(smemAddr(dst)),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

extern "C" __global__ void __launch_bounds__(512)
mla_decode_no_rope(const uint16_t *__restrict__ qn, const uint16_t *__restrict__ qp,
                const uint16_t *__restrict__ ckv, const uint16_t *__restrict__ kpe,
                const int *__restrict__ idx, uint16_t *__restrict__ O,
                float *__restrict__ LSE, int L, int PS) {
  extern __shared__ __align__(128) uint16_t tiles[]; // [stage][CH][DC], then [stage][CH][DR]
  __shared__ __align__(8) unsigned long long bars[2];
  uint16_t *latent = tiles, *rope = tiles + 2 * CH * DC;
  const int b = blockIdx.x, h = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int P = (L + PS - 1) / PS, chunks = (L + CH - 1) / CH;
  const float scale = 0.07216878364870323f; // 1/sqrt(128 + 64)
  const uint64_t head = (uint64_t)b * H + h;

  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smemAddr(&bars[s]))
                   : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  // Thread 0: chunk c into stage c % 2.
  auto issue = [&](int c) {
    const int s = c & 1, t0 = c * CH, n = min(CH, L - t0);
    const uint32_t bar = smemAddr(&bars[s]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                 "r"((uint32_t)(n * (DC + DR) * 2))
                 : "memory");
    for (int i = 0; i < n; ++i) {
      const int t = t0 + i;
      const uint64_t row = (uint64_t)idx[(uint64_t)b * P + t / PS] * PS + t % PS;
      bulkCopy(latent + (s * CH + i) * DC, ckv + row * DC, DC * 2, bar);
      bulkCopy(rope + (s * CH + i) * DR, kpe + row * DR, DR * 2, bar);
    }
  };
  if (threadIdx.x == 0) {
    issue(0);
    if (chunks > 1)
      issue(1);
  }

  float q[16], r[2], acc[16];
  unpack8(*reinterpret_cast<const uint4 *>(qn + head * DC + lane * 8), q);
  unpack8(*reinterpret_cast<const uint4 *>(qn + head * DC + 256 + lane * 8), q + 8);
  const uint32_t qr = *reinterpret_cast<const uint32_t *>(qp + head * DR + lane * 2);
  r[0] = bf(qr & 0xffff) * scale;
  r[1] = bf(qr >> 16) * scale;
  for (int e = 0; e < 16; ++e) {
    q[e] *= scale;
    acc[e] = 0.f;
  }
  float m = -__int_as_float(0x7f800000), l = 0.f;

  for (int c = 0; c < chunks; ++c) {
    const int s = c & 1, n = min(CH, L - c * CH);
    const uint32_t bar = smemAddr(&bars[s]);
    uint32_t done = 0;
    while (!done)
      asm volatile("{\n.reg .pred p;\n"
                   "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                   "selp.u32 %0, 1, 0, p;\n}\n"
                   : "=r"(done)
                   : "r"(bar), "r"((c >> 1) & 1)
                   : "memory");
    for (int i = 0; i < n; ++i) {
      const uint16_t *lr = latent + (s * CH + i) * DC;
      float cv[16];
      unpack8(*reinterpret_cast<const uint4 *>(lr + lane * 8), cv);
      unpack8(*reinterpret_cast<const uint4 *>(lr + 256 + lane * 8), cv + 8);
      float dot = 0.f; // the rope term q_pe . kpe, dropped
      for (int e = 0; e < 16; ++e)
        dot += q[e] * cv[e];
      for (int o = 16; o > 0; o >>= 1)
        dot += __shfl_xor_sync(0xffffffffu, dot, o);
      const float mNew = fmaxf(m, dot);
      const float corr = __expf(m - mNew), p = __expf(dot - mNew);
      l = l * corr + p;
      for (int e = 0; e < 16; ++e)
        acc[e] = acc[e] * corr + p * cv[e];
      m = mNew;
    }
    __syncthreads(); // every warp is done with stage s
    if (threadIdx.x == 0 && c + 2 < chunks) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      issue(c + 2);
    }
  }

  uint16_t *op = O + head * DC;
  for (int e = 0; e < 8; ++e) {
    op[lane * 8 + e] = tobf(acc[e] / l);
    op[256 + lane * 8 + e] = tobf(acc[8 + e] / l);
  }
  if (lane == 0)
    LSE[head] = m + __logf(l);
}
