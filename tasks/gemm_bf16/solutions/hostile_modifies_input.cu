// Hostile: correct output, but scribbles on its input A afterwards.
// Expected status: INCORRECT (input modified).
// @ptxbench kernel scribble grid=(ceildiv(N,16), ceildiv(M,16)) block=(16,16)
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
extern "C" __global__ void scribble(__nv_bfloat16 *A, const __nv_bfloat16 *B,
                                    __nv_bfloat16 *C, int M, int N, int K) {
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  if (r < M && c < N)
    C[(size_t)r * N + c] = __float2bfloat16(dot(A, B, r, c, N, K));
  if (r == M - 1 && c == N - 1)
    A[(size_t)M * K - 1] = __float2bfloat16(1234.f); // read by nobody else
}
