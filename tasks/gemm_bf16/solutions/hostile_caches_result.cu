// Hostile: computes C on the first call only and remembers that in a
// .global variable; later calls (fresh inputs) do nothing.
// Expected status: INCORRECT (trial 2 finds C unwritten).
// @ptxbench kernel cached grid=(ceildiv(N,16), ceildiv(M,16)) block=(16,16)
// @ptxbench args A, B, C, M, N, K
#include <cuda_bf16.h>
__device__ float dot(const __nv_bfloat16 *A, const __nv_bfloat16 *B, int r,
                     int c, int N, int K) {
  float acc = 0.f;
  for (int k = 0; k < K; ++k)
    acc = fmaf(__bfloat162float(A[(size_t)r * K + k]),
               __bfloat162float(B[(size_t)k * N + c]), acc);
  return acc;
}
__device__ int computed_once;
extern "C" __global__ void cached(const __nv_bfloat16 *A,
                                  const __nv_bfloat16 *B, __nv_bfloat16 *C,
                                  int M, int N, int K) {
  if (computed_once > gridDim.x * gridDim.y)
    return;
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  if (r < M && c < N)
    C[(size_t)r * N + c] = __float2bfloat16(dot(A, B, r, c, N, K));
  if (threadIdx.x == 0 && threadIdx.y == 0)
    atomicAdd(&computed_once, 1);
}
