// corpus-archs: sm_80 sm_90a sm_100a
// corpus-variants: G
// Reductions: warp shuffles (shfl.sync up/down/xor/idx), vote (ballot/any/all),
// match.any, redux.sync (__reduce_add_sync), shared-memory tree reduction,
// float/double/int atomics (atom/red), atomicCAS loops, __syncthreads_count/or.
#include <cstdint>
#include <cuda_fp16.h>

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ double atomic_max_double(double* addr, double val) {
  unsigned long long* p = reinterpret_cast<unsigned long long*>(addr);
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    if (__longlong_as_double(assumed) >= val) break;
    old = atomicCAS(p, assumed, __double_as_longlong(val));
  } while (assumed != old);
  return __longlong_as_double(old);
}

extern "C" __global__ void block_reduce(int n, const float* in, float* out, double* dmax, int* counter) {
  __shared__ float smem[32];
  int tid = threadIdx.x;
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) v += in[i];
  v = warp_sum(v);
  if ((tid & 31) == 0) smem[tid >> 5] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < (blockDim.x >> 5) ? smem[tid] : 0.0f;
    v = warp_sum(v);
    if (tid == 0) {
      atomicAdd(out, v);
      atomic_max_double(dmax, (double)v);
      atomicAdd(counter, 1);
    }
  }
}

extern "C" __global__ void shuffles(const int* in, int* out, unsigned* masks) {
  int lane = threadIdx.x & 31;
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int up = __shfl_up_sync(0xffffffffu, v, 1);
  int dn = __shfl_down_sync(0xffffffffu, v, 2, 16);
  int bc = __shfl_sync(0xffffffffu, v, 5);
  unsigned b = __ballot_sync(0xffffffffu, v > 0);
  int any = __any_sync(0xffffffffu, v == 7);
  int all = __all_sync(0xffffffffu, v != 3);
  unsigned m = __match_any_sync(0xffffffffu, v & 7);
  unsigned s = __reduce_add_sync(0xffffffffu, (unsigned)v);
  int mn = __reduce_min_sync(0xffffffffu, v);
  unsigned x = __reduce_xor_sync(0xffffffffu, (unsigned)v);
  int cnt = __syncthreads_count(v > 10);
  int orr = __syncthreads_or(v < -10);
  unsigned active = __activemask();
  __syncwarp();
  out[blockIdx.x * blockDim.x + threadIdx.x] = up + dn + bc + any + all + (int)s + mn + cnt + orr;
  if (lane == 0) masks[blockIdx.x] = b ^ m ^ x ^ active;
  unsigned lt; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  masks[gridDim.x + blockIdx.x] = lt;
}

extern "C" __global__ void atomics(int* i32, unsigned* u32, unsigned long long* u64, float* f32, double* f64, __half2* h2) {
  int t = threadIdx.x;
  atomicAdd(f64, (double)t);
  atomicAdd(f32 + 1, 1.5f);
  atomicSub(i32, t);
  atomicMax(i32 + 1, t);
  atomicMin(i32 + 2, -t);
  atomicAnd(u32, ~(1u << (t & 31)));
  atomicOr(u32 + 1, 1u << (t & 31));
  atomicXor(u32 + 2, (unsigned)t);
  atomicInc(u32 + 3, 100u);
  atomicDec(u32 + 4, 100u);
  unsigned long long old = atomicExch(u64, (unsigned long long)t);
  atomicAdd(u64 + 1, old);
  atomicMax(u64 + 2, old);
  float fo = atomicExch(f32 + 2, (float)t);
  int prev = atomicCAS(i32 + 3, t, t + 1);
  atomicAdd_block(i32 + 4, 1);
  atomicAdd_system(i32 + 5, 1);
  atomicAdd(h2, __floats2half2_rn(1.0f, 2.0f));
  if (prev == 0 || fo > 1.0f) i32[6] = prev;
}
