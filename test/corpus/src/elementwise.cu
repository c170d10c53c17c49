// corpus-archs: sm_75 sm_80 sm_86 sm_89 sm_90a sm_100a sm_120
// corpus-variants: lineinfo G
// Elementwise kernels: saxpy, grid-stride loops, float4 vector loads/stores,
// __ldg/__ldcs/__stcs cache hints, fast-math intrinsics, integer bit ops
// (popc/clz/brev/funnel shift/byte perm), selects, double math,
// __launch_bounds__ (-> .maxntid/.minnctapersm).
#include <cstdint>

extern "C" __global__ void __launch_bounds__(256, 2)
saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void __launch_bounds__(128)
vec4_scale(int n4, float s, const float4* __restrict__ in, float4* __restrict__ out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 v = __ldg(&in[i]);
    v.x = v.x * s + 1.0f;
    v.y = fmaxf(v.y * s, 0.0f);
    v.z = __fdividef(v.z, s + 2.0f);
    v.w = rsqrtf(fabsf(v.w) + 1e-6f);
    __stcs(&out[i], v);
  }
}

extern "C" __global__ void transcendental(int n, const float* in, float* out, double* dout) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = __ldcs(&in[i]);
  float r = __expf(v) + __sinf(v) * __cosf(v) + __logf(fabsf(v) + 1.0f);
  r += sqrtf(fabsf(v)) + exp2f(v) + tanhf(v) + erff(v);
  r = fminf(r, 1.0e30f);
  r = copysignf(r, v);
  out[i] = __saturatef(r) + truncf(v) + floorf(v) + ceilf(v) + rintf(v);
  double d = (double)v;
  dout[i] = sqrt(fabs(d)) + d * 0.3333333333333333 + exp(d) + log1p(fabs(d)) + (double)__double2int_rn(d);
}

extern "C" __global__ void bitops(int n, const uint32_t* a, const uint64_t* b, uint32_t* o, uint64_t* o64) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t x = a[i];
  uint64_t y = b[i];
  uint32_t r = __popc(x) + __clz(x) + __brev(x) + __ffs(x);
  r ^= __funnelshift_l(x, r, x & 31) + __funnelshift_rc(x, r, 7);
  r += __byte_perm(x, r, 0x5410);
  r += __umulhi(x, r) + __usad(x, r, 3) + __vabsdiffu4(x, r);
  r = (x & 1) ? r : ~r;
  int s = (int)x;
  s = max(s, -17) + min(s, 99) + abs(s) + (s >> 3) + (s / 7) + (s % 13);
  o[i] = r + (uint32_t)s + (x << 5) + (x >> 27) + (x * 0x9E3779B9u);
  o64[i] = __popcll(y) + __clzll(y) + __brevll(y) + (y >> 13) + y / 1000003ull + __umul64hi(y, y) + (y % 97ull);
}

extern "C" __global__ void conversions(int n, const double* d, const int64_t* l, float* f, int* ii, unsigned short* us, int8_t* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = d[i];
  int64_t w = l[i];
  f[i] = (float)v + (float)w + __int_as_float(0x3f800000) + __uint2float_rz((unsigned)w);
  ii[i] = (int)v + __float2int_rd((float)v) + __float_as_int((float)v) + (int)(w >> 32);
  us[i] = (unsigned short)(v * 3.0);
  c[i] = (int8_t)w;
}
