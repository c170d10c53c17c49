// GQA paged decode, fallback: no bulk copies, no mbarriers. A block of 4
// warps owns one (sequence, KV head) pair; each warp walks the sequence's
// tokens for up to two of its query heads, looking each page up in
// kv_indices and reading the K and V rows straight from global memory (8
// bytes per lane, plain ld.global), with an online softmax in registers.
// Correct; every warp reads the same K and V rows again.
//
// @ptxbench kernel gqa_decode_plain grid=B*HKV block=128
// @ptxbench   args Q, k_cache, v_cache, kv_indices, O, LSE, L, HQ, HKV, PS
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define D 128
#define MAXH 2

__device__ __forceinline__ float bf(uint16_t v) {
  return __uint_as_float(((uint32_t)v) << 16);
}
__device__ __forceinline__ uint16_t tobf(float f) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}

extern "C" __global__ void __launch_bounds__(128)
gqa_decode_plain(const uint16_t *__restrict__ Q, const uint16_t *__restrict__ kc,
                 const uint16_t *__restrict__ vc, const int *__restrict__ idx,
                 uint16_t *__restrict__ O, float *__restrict__ LSE, int L, int HQ,
                 int HKV, int PS) {
  const int b = blockIdx.x / HKV, g = blockIdx.x % HKV;
  const int G = HQ / HKV, P = (L + PS - 1) / PS;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float scale = rsqrtf((float)D);
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
  for (int t = 0; t < L; ++t) {
    const int page = idx[(uint64_t)b * P + t / PS];
    const uint64_t row = ((uint64_t)page * PS + t % PS) * HKV + g;
    const uint2 kw = *reinterpret_cast<const uint2 *>(kc + row * D + lane * 4);
    const uint2 vw = *reinterpret_cast<const uint2 *>(vc + row * D + lane * 4);
    const float k[4] = {bf(kw.x & 0xffff), bf(kw.x >> 16), bf(kw.y & 0xffff), bf(kw.y >> 16)};
    const float v[4] = {bf(vw.x & 0xffff), bf(vw.x >> 16), bf(vw.y & 0xffff), bf(vw.y >> 16)};
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
  for (int h = 0, j = warp; h < heads; ++h, j += 4) {
    const uint64_t head = (uint64_t)b * HQ + g * G + j;
    uint16_t *op = O + head * D + lane * 4;
    for (int e = 0; e < 4; ++e)
      op[e] = tobf(acc[h][e] / l[h]);
    if (lane == 0)
      LSE[head] = m[h] + __logf(l[h]);
  }
}
