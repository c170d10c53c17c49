// BROKEN on purpose (expected INCORRECT): plain.cu with eps and the mean
// mixed up: rsqrt(sum(x^2) + H*eps) instead of rsqrt(sum(x^2)/H + eps), as if
// the 1/H of the mean belonged to eps. That is rsqrt(H * (mean + eps)), so every
// row comes out sqrt(H) = 64 times too small. Otherwise identical to plain.cu
// (warp per row, 16-byte loads and stores, no bulk copies or mbarriers).
//
// @ptxbench kernel rmsnorm_wrong_eps grid=ceildiv(T, 8) block=256
// @ptxbench   args x, w, y, T
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;

#define H 4096
#define EPS 1e-6f

__device__ __forceinline__ float lo(uint32_t v) { return __uint_as_float(v << 16); }
__device__ __forceinline__ float hi(uint32_t v) { return __uint_as_float(v & 0xffff0000u); }
__device__ __forceinline__ uint32_t pack(float l, float h) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(h), "f"(l));
  return r;
}

extern "C" __global__ void __launch_bounds__(256)
rmsnorm_wrong_eps(const uint16_t *__restrict__ x, const uint16_t *__restrict__ w,
              uint16_t *__restrict__ y, int T) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = blockIdx.x * 8 + warp;
  if (row >= T)
    return;
  const uint4 *src = reinterpret_cast<const uint4 *>(x + (size_t)row * H);
  uint4 v[H / 256];
  float ss = 0.f;
#pragma unroll
  for (int j = 0; j < H / 256; ++j)
    v[j] = __ldg(src + j * 32 + lane);
#pragma unroll
  for (int j = 0; j < H / 256; ++j) {
    uint32_t e[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
#pragma unroll
    for (int k = 0; k < 4; ++k)
      ss += lo(e[k]) * lo(e[k]) + hi(e[k]) * hi(e[k]);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    ss += __shfl_xor_sync(0xffffffffu, ss, o);
  const float inv = rsqrtf(ss + EPS * H);
  const uint4 *wv = reinterpret_cast<const uint4 *>(w);
  uint4 *out = reinterpret_cast<uint4 *>(y + (size_t)row * H);
#pragma unroll
  for (int j = 0; j < H / 256; ++j) {
    const uint4 ww = __ldg(wv + j * 32 + lane);
    uint32_t e[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
    uint32_t f[4] = {ww.x, ww.y, ww.z, ww.w};
    uint32_t r[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      r[k] = pack(lo(e[k]) * inv * lo(f[k]), hi(e[k]) * inv * hi(f[k]));
    out[j * 32 + lane] = make_uint4(r[0], r[1], r[2], r[3]);
  }
}
