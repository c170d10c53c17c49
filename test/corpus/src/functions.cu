// corpus-archs: sm_80 sm_90a
// corpus-variants: lineinfo G
// Calls: __noinline__ device functions (.func with .param args and return
// values, call.uni), recursion, function pointers and virtual functions
// (.callprototype + indirect call), large switch statements (jump tables /
// brx.idx), struct by-value params and returns (.param .align N .b8 x[K]),
// run-time indexed local arrays (ld.local/st.local, %SP/%SPL), printf
// (vprintf), __grid_constant__ kernel params, alloca-like big locals.
#include <cstdio>
#include <cstdint>

struct Params {
  float scale;
  int n;
  double bias;
  int table[6];
};

struct Vec3 { float x, y, z; };

__device__ __noinline__ float poly(float x, float a, float b, float c) { return (a * x + b) * x + c; }

__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b) {
  return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

__device__ __noinline__ unsigned long long fib(int n) { return n < 2 ? (unsigned long long)n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ int ackermannish(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermannish(m - 1, 1);
  return ackermannish(m - 1, ackermannish(m, n - 1) & 7);
}

typedef float (*unary_fn)(float);
__device__ __noinline__ float f_sq(float x) { return x * x; }
__device__ __noinline__ float f_neg(float x) { return -x; }
__device__ __noinline__ float f_half(float x) { return 0.5f * x; }
__device__ __noinline__ float f_inc(float x) { return x + 1.0f; }
__device__ unary_fn g_fns[4] = {f_sq, f_neg, f_half, f_inc};

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual int sides() const { return 0; }
};
struct Square : Shape {
  float s;
  __device__ Square(float s) : s(s) {}
  __device__ float area() const override { return s * s; }
  __device__ int sides() const override { return 4; }
};
struct Circle : Shape {
  float r;
  __device__ Circle(float r) : r(r) {}
  __device__ float area() const override { return 3.14159265f * r * r; }
};

__device__ __noinline__ int classify(int op, int a, int b) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return b ? a / b : 0;
    case 4: return a & b;
    case 5: return a | b;
    case 6: return a ^ b;
    case 7: return a << (b & 31);
    case 8: return a >> (b & 31);
    case 9: return max(a, b);
    case 10: return min(a, b);
    case 11: return a == b;
    default: return -1;
  }
}

extern "C" __global__ void calls(const float* in, float* out, int* iout, unsigned long long* fout, Vec3* vout) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[t];
  float y = poly(x, 1.5f, -2.0f, 0.25f);
  unary_fn fp = g_fns[t & 3];
  y = fp(y);
  Vec3 a{x, y, 1.0f}, b{y, 2.0f, x};
  vout[t] = cross(a, b);
  out[t] = y;
  iout[t] = classify(t % 13, (int)x, t) + ackermannish(2, t & 3);
  fout[t] = fib(t & 15);
}

extern "C" __global__ void virtuals(const float* in, float* out, int* sides) {
  int t = threadIdx.x;
  Square sq(in[t]);
  Circle ci(in[t] + 1.0f);
  const Shape* s = (t & 1) ? static_cast<const Shape*>(&sq) : static_cast<const Shape*>(&ci);
  out[t] = s->area();
  sides[t] = s->sides();
}

extern "C" __global__ void byvalue(const __grid_constant__ Params p, Params q, float* out) {
  int t = threadIdx.x;
  float v = p.scale * (float)p.table[t % 6] + (float)p.bias;
  v += q.scale * (float)q.table[(t + 1) % 6];
  if (t < p.n) out[t] = v;
}

extern "C" __global__ void grid_const_addr(const __grid_constant__ Params p, const Params** out) {
  // Taking the address of a __grid_constant__ param yields cvta.param.
  if (threadIdx.x == 0) *out = &p;
}

extern "C" __global__ void local_arrays(const int* idx, const float* in, float* out) {
  float buf[64];
  int hist[16] = {};
  int t = threadIdx.x;
  for (int i = 0; i < 64; ++i) buf[i] = in[t * 64 + i];
  for (int i = 0; i < 64; ++i) hist[(int)buf[i] & 15]++;
  float s = 0.0f;
  for (int i = 0; i < 8; ++i) s += buf[idx[t * 8 + i] & 63];
  out[t] = s + (float)hist[idx[t] & 15];
}

extern "C" __global__ void printing(const float* in, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) printf("thread %d block %d value %f hex %x str %s long %lld\n", t, blockIdx.x, (double)in[t], t * 7, "ok", (long long)t << 40);
  if (t == 0) printf("done\n");
}

extern "C" __global__ void assertions(const int* in, int* out) {
  int v = in[threadIdx.x];
  if (v < 0) __trap();
  if (v == 12345) __brkpt();
  out[threadIdx.x] = v * 2;
}
