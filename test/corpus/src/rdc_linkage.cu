// corpus-archs: sm_80
// corpus-flags: -rdc=true
// Separate-compilation (relocatable device code) PTX: .visible .func for
// external device functions, .weak .func for template/inline functions,
// extern "C" device functions, .visible .global/.const variables with and
// without initializers, .weak globals from inline variables, static (internal)
// functions and variables, templates instantiated for several types.
#include <cstdint>

__device__ int rdc_counter;
__device__ float rdc_table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__constant__ int rdc_const[3] = {7, 8, 9};
__device__ int* rdc_ptr = &rdc_counter;
static __device__ int rdc_static = 5;
__device__ inline int rdc_inline_var = 11;

template <typename T>
__device__ __noinline__ T tmpl_mad(T a, T b, T c) { return a * b + c; }

__device__ __noinline__ int visible_helper(int x) { return x * 3 + rdc_static; }

static __device__ __noinline__ int static_helper(int x) { return x ^ 0x55; }

extern "C" __device__ __noinline__ float c_linkage_helper(float x) { return x * 0.5f + rdc_table[1]; }

__device__ __noinline__ void out_params(int x, int* a, float* b) {
  *a = x + 1;
  *b = (float)x * 2.0f;
}

extern "C" __global__ void rdc_kernel(int* out, float* fout, double* dout) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int a;
  float b;
  out_params(t, &a, &b);
  out[t] = visible_helper(t) + static_helper(t) + tmpl_mad<int>(t, t, 1) + *rdc_ptr + rdc_const[t % 3] + rdc_inline_var + a;
  fout[t] = c_linkage_helper((float)t) + tmpl_mad<float>(b, 2.0f, 1.0f);
  dout[t] = tmpl_mad<double>((double)t, 0.5, 0.25);
  atomicAdd(&rdc_counter, 1);
}
