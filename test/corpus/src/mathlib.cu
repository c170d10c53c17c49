// corpus-archs: sm_80 sm_120
// CUDA math library expansions (non-fast-math): sinf/cosf/tanf/powf/sin/pow/
// lgamma/erfinv/cbrt/hypot/fmod/remquo/sincos. These inline large code bodies with
// slow paths that use module-scope constant tables (e.g. __cudart_i2opi_f),
// local arrays, many labels, and double-precision FMA chains.
#include <cmath>

extern "C" __global__ void math_float(int n, const float* x, float* y, int* q) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float s, c;
  sincosf(v, &s, &c);
  int quo;
  float r = tanf(v) + powf(fabsf(v), 1.7f) + lgammaf(v) + erfinvf(v * 0.5f) + cbrtf(v);
  r += hypotf(s, c) + fmodf(v, 0.3f) + remquof(v, 1.1f, &quo) + atan2f(s, c) + asinhf(v) + expm1f(v);
  y[i] = r + s * c;
  q[i] = quo + ilogbf(v);
}

extern "C" __global__ void math_double(int n, const double* x, double* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  y[i] = sin(v) + cos(v) + pow(v, 2.5) + log(v) + atan(v) + erfc(v) + tgamma(v) + j0(v) + rhypot(v, 1.0) + norm3d(v, v, 1.0);
}
