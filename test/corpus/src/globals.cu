// corpus-archs: sm_80 sm_90a
// Module-scope variables: __constant__ arrays with initializers (scalars,
// structs, float/double/half), __device__ globals holding pointers to other
// globals (generic(sym) and sym+offset initializers), zero-initialized and
// uninitialized globals, static __shared__ arrays, extern __shared__ dynamic
// shared memory, __managed__ variables, string literals in .global .b8 arrays.
#include <cstdint>
#include <cuda_fp16.h>

struct Coeffs { float a; int b; double c; short d[3]; };

__constant__ float c_weights[8] = {0.5f, -1.25f, 3.0f, 1e-7f, -0.0f, 65504.0f, 1.0f / 3.0f, 2.5e10f};
__constant__ double c_dconst[3] = {3.141592653589793, -2.718281828459045, 1e300};
__constant__ int c_ints[5] = {1, -2, 0x7fffffff, (int)0x80000000, 42};
__constant__ Coeffs c_coeffs = {1.5f, -7, 0.125, {1, 2, 3}};
__constant__ uint8_t c_bytes[6] = {0, 1, 2, 254, 255, 128};
__constant__ int64_t c_long = -1234567890123LL;
__constant__ float c_uninit[16];

__device__ int g_counter = 0;
__device__ int g_array[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
__device__ float g_zero[32];
__device__ int* g_ptr = &g_array[3];
__device__ int* g_ptrs[3] = {&g_array[0], &g_counter, g_array + 9};
__device__ const char* g_msg = "hello corpus";
__device__ float* g_fptr = g_zero;
__device__ __half g_half = __half_raw{0x3c00};
__device__ unsigned long long g_u64[2] = {0xdeadbeefcafebabeull, 1ull};
__managed__ int m_value = 17;
static __device__ int s_internal[4] = {1, 2, 3, 4};

extern __shared__ float dyn_smem[];

extern "C" __global__ void use_constants(int n, float* out, double* dout) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float v = c_weights[t & 7] * c_coeffs.a + (float)c_coeffs.b + c_uninit[t & 15];
  v += (float)c_bytes[t % 6] + (float)c_ints[t % 5] + (float)c_coeffs.d[t % 3];
  out[t] = v;
  dout[t] = c_dconst[t % 3] * c_coeffs.c + (double)c_long;
}

extern "C" __global__ void use_globals(int* out, char* sout) {
  int t = threadIdx.x;
  atomicAdd(&g_counter, 1);
  int v = *g_ptr + *g_ptrs[t % 3] + g_array[t % 10] + s_internal[t & 3] + m_value;
  g_fptr[t & 31] = (float)v + __half2float(g_half);
  out[t] = v + (int)(g_u64[t & 1] >> 7);
  sout[t] = g_msg[t % 12];
}

extern "C" __global__ void use_shared(int n, const float* in, float* out) {
  __shared__ float s_tile[128];
  __shared__ int s_flag;
  int t = threadIdx.x;
  if (t == 0) s_flag = 0;
  s_tile[t & 127] = in[t];
  dyn_smem[t] = in[t] * 2.0f;
  __syncthreads();
  if (s_tile[(t + 1) & 127] > 0.0f) atomicOr(&s_flag, 1);
  __syncthreads();
  out[t] = dyn_smem[(t + 7) % n] + s_tile[127 - (t & 127)] + (float)s_flag;
}
