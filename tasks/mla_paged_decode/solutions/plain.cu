// MLA paged decode, fallback: no bulk copies, no mbarriers, no tensor cores.
// A block of 16 warps owns one sequence, a warp per head. Every warp walks
// the sequence's tokens, looks each page up in kv_indices and reads the
// token's compressed KV row (512 latent dimensions, 16 per lane) and its
// rope row (64 dimensions, 2 per lane) straight from global memory with
// plain 16- and 4-byte loads, keeping an online softmax in registers. The
// 16 warps read the same rows (the cache serves the repeats). Correct, at
// any page size; the two products are FFMA dot products.
//
// @ptxbench kernel mla_decode_plain grid=B block=512
// @ptxbench   args q_nope, q_pe, ckv_cache, kpe_cache, kv_indices, O, LSE, L, PS
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define H 16
#define DC 512 // latent (key and value) dimensions
#define DR 64  // rope dimensions of the key

__device__ __forceinline__ float bf(uint32_t v) {
  return __uint_as_float(v << 16);
}
__device__ __forceinline__ uint16_t tobf(float f) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
// Eight bf16 of a 16-byte word into floats.
__device__ __forceinline__ void unpack8(uint4 w, float *out) {
  const uint32_t words[4] = {w.x, w.y, w.z, w.w};
  for (int i = 0; i < 4; ++i) {
    out[2 * i] = bf(words[i] & 0xffff);
    out[2 * i + 1] = bf(words[i] >> 16);
  }
}

extern "C" __global__ void __launch_bounds__(32 * H)
mla_decode_plain(const uint16_t *__restrict__ qn, const uint16_t *__restrict__ qp,
                 const uint16_t *__restrict__ ckv, const uint16_t *__restrict__ kpe,
                 const int *__restrict__ idx, uint16_t *__restrict__ O,
                 float *__restrict__ LSE, int L, int PS) {
  const int b = blockIdx.x, h = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int P = (L + PS - 1) / PS;
  const float scale = 0.07216878364870323f; // 1/sqrt(128 + 64)
  const uint64_t head = (uint64_t)b * H + h;

  // This lane's query dimensions: latent lane*8.. and 256 + lane*8.., rope
  // lane*2..; scaled once.
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

  for (int t = 0; t < L; ++t) {
    const int page = idx[(uint64_t)b * P + t / PS];
    const uint64_t row = (uint64_t)page * PS + t % PS;
    float c[16];
    unpack8(*reinterpret_cast<const uint4 *>(ckv + row * DC + lane * 8), c);
    unpack8(*reinterpret_cast<const uint4 *>(ckv + row * DC + 256 + lane * 8), c + 8);
    const uint32_t kr = *reinterpret_cast<const uint32_t *>(kpe + row * DR + lane * 2);
    float dot = r[0] * bf(kr & 0xffff) + r[1] * bf(kr >> 16);
    for (int e = 0; e < 16; ++e)
      dot += q[e] * c[e];
    for (int o = 16; o > 0; o >>= 1)
      dot += __shfl_xor_sync(0xffffffffu, dot, o);
    const float mNew = fmaxf(m, dot);
    const float corr = __expf(m - mNew), p = __expf(dot - mNew);
    l = l * corr + p;
    for (int e = 0; e < 16; ++e)
      acc[e] = acc[e] * corr + p * c[e];
    m = mNew;
  }

  uint16_t *op = O + head * DC;
  for (int e = 0; e < 8; ++e) {
    op[lane * 8 + e] = tobf(acc[e] / l);
    op[256 + lane * 8 + e] = tobf(acc[8 + e] / l);
  }
  if (lane == 0)
    LSE[head] = m + __logf(l);
}
