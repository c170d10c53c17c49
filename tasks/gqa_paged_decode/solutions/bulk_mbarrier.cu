// GQA paged decode: the requested path. A block of 4 warps owns one
// (sequence, KV head) pair and the HQ/HKV query heads that read it. The
// sequence's tokens go through shared memory in chunks of 64: thread 0 looks
// each token's page up in kv_indices, arms the stage's transaction-count
// mbarrier with the chunk's bytes (mbarrier.arrive.expect_tx) and moves each
// token's K and V rows of this head (256 bytes each, contiguous in the
// [pages, PS, HKV, D] cache) with non-tensor bulk copies (cp.async.bulk ...
// .mbarrier::complete_tx::bytes). Two stages: the next chunk's copies are in
// flight while the warps compute. Each warp keeps an online softmax for up to
// two query heads (4 of D per lane). Works for any page size (the slot is
// t % PS). Correct; not tuned (one CTA per KV head, no split-KV).
//
// @ptxbench kernel gqa_decode_bulk grid=B*HKV block=128 smem=2*2*64*D*2
// @ptxbench   args Q, k_cache, v_cache, kv_indices, O, LSE, L, HQ, HKV, PS
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define D 128
#define CH 64 // tokens per stage
#define MAXH 2 // query heads per warp (HQ/HKV <= 8)

__device__ __forceinline__ float bf(uint16_t v) {
  return __uint_as_float(((uint32_t)v) << 16);
}
__device__ __forceinline__ uint16_t tobf(float f) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

extern "C" __global__ void __launch_bounds__(128)
gqa_decode_bulk(const uint16_t *__restrict__ Q, const uint16_t *__restrict__ kc,
                const uint16_t *__restrict__ vc, const int *__restrict__ idx,
                uint16_t *__restrict__ O, float *__restrict__ LSE, int L, int HQ,
                int HKV, int PS) {
  extern __shared__ __align__(128) uint16_t tiles[]; // [stage][K|V][CH][D]
  __shared__ __align__(8) unsigned long long bars[2];
  const int b = blockIdx.x / HKV, g = blockIdx.x % HKV;
  const int G = HQ / HKV, P = (L + PS - 1) / PS;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int chunks = (L + CH - 1) / CH;
  const float scale = rsqrtf((float)D);

  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smemAddr(&bars[s]))
                   : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  // Thread 0: chunk c into stage c % 2.
#define ISSUE(c)                                                                \
  do {                                                                         \
    const int s_ = (c) & 1, t0_ = (c) * CH, n_ = min(CH, L - t0_);             \
    const uint32_t bar_ = smemAddr(&bars[s_]);                                 \
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_), \
                 "r"((uint32_t)(n_ * D * 2 * 2))                               \
                 : "memory");                                                  \
    for (int i_ = 0; i_ < n_; ++i_) {                                          \
      const int t_ = t0_ + i_;                                                 \
      const int page_ = idx[(uint64_t)b * P + t_ / PS];                        \
      const uint64_t row_ = ((uint64_t)page_ * PS + t_ % PS) * HKV + g;        \
      const uint16_t *dstK_ = tiles + ((s_ * 2 + 0) * CH + i_) * D;            \
      const uint16_t *dstV_ = tiles + ((s_ * 2 + 1) * CH + i_) * D;            \
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" \
                   " [%0], [%1], %2, [%3];" ::"r"(smemAddr(dstK_)),             \
                   "l"(kc + row_ * D), "r"(D * 2), "r"(bar_)                   \
                   : "memory");                                                \
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" \
                   " [%0], [%1], %2, [%3];" ::"r"(smemAddr(dstV_)),             \
                   "l"(vc + row_ * D), "r"(D * 2), "r"(bar_)                   \
                   : "memory");                                                \
    }                                                                          \
  } while (0)

  if (threadIdx.x == 0) {
    ISSUE(0);
    if (chunks > 1)
      ISSUE(1);
  }

  // This warp's query heads: warp, warp + 4 (of the G this KV head serves).
  float q[MAXH][4], acc[MAXH][4], m[MAXH], l[MAXH];
  int heads = 0;
  for (int j = warp; j < G && heads < MAXH; j += 4, ++heads) {
    const uint16_t *qp = Q + ((uint64_t)b * HQ + g * G + j) * D + lane * 4;
    for (int e = 0; e < 4; ++e) {
      q[heads][e] = bf(qp[e]) * scale;
      acc[heads][e] = 0.f;
    }
    m[heads] = -__int_as_float(0x7f800000);
    l[heads] = 0.f;
  }

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
      const uint16_t *kr = tiles + ((s * 2 + 0) * CH + i) * D + lane * 4;
      const uint16_t *vr = tiles + ((s * 2 + 1) * CH + i) * D + lane * 4;
      float k[4], v[4];
      for (int e = 0; e < 4; ++e) {
        k[e] = bf(kr[e]);
        v[e] = bf(vr[e]);
      }
      for (int h = 0; h < heads; ++h) {
        float dot = q[h][0] * k[0] + q[h][1] * k[1] + q[h][2] * k[2] + q[h][3] * k[3];
        for (int o = 16; o > 0; o >>= 1)
          dot += __shfl_xor_sync(0xffffffffu, dot, o);
        const float mNew = fmaxf(m[h], dot);
        const float corr = __expf(m[h] - mNew), p = __expf(dot - mNew);
        l[h] = l[h] * corr + p;
        for (int e = 0; e < 4; ++e)
          acc[h][e] = acc[h][e] * corr + p * v[e];
        m[h] = mNew;
      }
    }
    __syncthreads(); // every warp is done with stage s
    if (threadIdx.x == 0 && c + 2 < chunks) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      ISSUE(c + 2);
    }
  }

  for (int h = 0, j = warp; h < heads; ++h, j += 4) {
    const uint64_t head = (uint64_t)b * HQ + g * G + j;
    uint16_t *op = O + head * D + lane * 4;
    for (int e = 0; e < 4; ++e)
      op[e] = tobf(acc[h][e] / l[h]);
    if (lane == 0)
      LSE[head] = m[h] + __logf(l[h]);
  }
}
