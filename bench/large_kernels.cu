// large_kernels.cu - our own source for large PTX files, used only by the
// import benchmark (bench/import-throughput.py). Each instance is a heavily
// unrolled kernel mixing FFMA chains, shared-memory tiles, predicated code,
// shuffles and inline-asm scopes, the way generated GEMM-like kernels look.
// -DINSTANCES and -DUNROLL scale the output.
#include <cstdint>

#ifndef INSTANCES
#define INSTANCES 8
#endif
#ifndef UNROLL
#define UNROLL 16
#endif

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

template <int V>
__global__ void __launch_bounds__(256) big_kernel(float *out, const float *in,
                                                  int n) {
  __shared__ float tile[2][32][33];
  __shared__ alignas(8) unsigned long long bar;
  float acc[16];
#pragma unroll
  for (int i = 0; i < 16; ++i)
    acc[i] = in[(threadIdx.x + i * 256) % n] * (V + 1);
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem_addr(&bar)),
                 "r"(256));
  __syncthreads();
#pragma unroll
  for (int k = 0; k < UNROLL; ++k) {
    tile[k & 1][threadIdx.x / 32][threadIdx.x % 32] =
        in[(blockIdx.x * 1024 + k * 256 + threadIdx.x) % n];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 16; ++i)
      acc[i] = fmaf(acc[i], tile[k & 1][i][(threadIdx.x + k) % 32],
                    acc[(i + k) & 15]);
    if (acc[k & 15] > V)
      acc[(k + 1) & 15] += __shfl_xor_sync(0xffffffff, acc[k & 15], 1);
    asm volatile("{\n\t.reg .pred p;\n\t.reg .b64 st;\n\t"
                 "mbarrier.arrive.shared.b64 st, [%0];\n\t}" ::"r"(
                     smem_addr(&bar)));
  }
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < 16; ++i)
    sum += acc[i];
  out[blockIdx.x * 256 + threadIdx.x] = sum;
}

template <int... Vs> struct Instances {
  static void *all[sizeof...(Vs)];
};
template <int... Vs>
void *Instances<Vs...>::all[sizeof...(Vs)] = {(void *)&big_kernel<Vs>...};

template <int... Is>
constexpr auto makeInstances(int (*)[sizeof...(Is)]) -> Instances<Is...>;

#define SEQ_8(b) b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7
#if INSTANCES <= 8
template struct Instances<SEQ_8(0)>;
#elif INSTANCES <= 32
template struct Instances<SEQ_8(0), SEQ_8(8), SEQ_8(16), SEQ_8(24)>;
#else
template struct Instances<SEQ_8(0), SEQ_8(8), SEQ_8(16), SEQ_8(24), SEQ_8(32),
                          SEQ_8(40), SEQ_8(48), SEQ_8(56), SEQ_8(64),
                          SEQ_8(72), SEQ_8(80), SEQ_8(88), SEQ_8(96),
                          SEQ_8(104), SEQ_8(112), SEQ_8(120)>;
#endif
