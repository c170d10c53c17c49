// corpus-archs: sm_80 sm_90a sm_100a sm_120
// fp16/bf16 arithmetic: __half/__half2/__nv_bfloat16/__nv_bfloat162 math,
// fma/relu/min/max/abs, comparisons, conversions (cvt.rn.f16x2.f32,
// cvt.rn.bf16.f32, f16->f64), hexp/hsqrt, packing via mov.b32 {a,b}.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half_ops(int n, const __half2* a, const __half2* b, __half2* o, __half* os, float* of) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = a[i], y = b[i];
  __half2 r = __hfma2(x, y, __float2half2_rn(0.5f));
  r = __hadd2(r, __hmul2(x, x));
  r = __hsub2(r, __h2div(y, __float2half2_rn(3.0f)));
  r = __hmax2(r, __hmin2(x, y));
  r = __hfma2_relu(r, y, x);
  r = __habs2(r);
  r = h2exp(r) + h2sqrt(__habs2(y)) + h2rcp(x);
  __half lo = __low2half(r), hi = __high2half(r);
  __half s = __hfma(lo, hi, __float2half(1.0f));
  s = __hgt(s, hi) ? s : __hneg(hi);
  o[i] = __halves2half2(hi, s);
  os[i] = hsin(s) + hlog(__habs(s));
  float2 f = __half22float2(r);
  of[i] = f.x * f.y + __half2float(s) + (float)(double)__half2float(lo);
}

extern "C" __global__ void bf16_ops(int n, const __nv_bfloat162* a, const __nv_bfloat162* b, __nv_bfloat162* o, __nv_bfloat16* os, float* of) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat162 x = a[i], y = b[i];
  __nv_bfloat162 r = __hfma2(x, y, __float2bfloat162_rn(0.25f));
  r = __hmul2(r, y) + x;
  r = __hmax2(r, __hmin2(x, y));
  r = __hfma2_relu(r, x, y);
  __nv_bfloat16 lo = __low2bfloat16(r), hi = __high2bfloat16(r);
  __nv_bfloat16 s = __hfma(lo, hi, __float2bfloat16(2.0f));
  s = __hlt(s, lo) ? __hneg(s) : s;
  o[i] = __halves2bfloat162(s, hi);
  os[i] = __float2bfloat16_rz(__bfloat162float(s) * 3.0f);
  float2 f = __bfloat1622float2(r);
  of[i] = f.x - f.y + __bfloat162float(__habs(s));
}

extern "C" __global__ void mixed_convert(int n, const float* f, const double* d, __half* h, __nv_bfloat16* bh, int* q) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  h[i] = __double2half(d[i]) + __float2half_rz(f[i]);
  bh[i] = __double2bfloat16(d[i]);
  q[i] = __half2int_rn(h[i]) + __bfloat162int_rz(bh[i]) + __half_as_short(__float2half(f[i]));
}
