// The textbook shared-memory tiled SGEMM, C[M,N] = A[M,K] * B[K,N] (f32):
// 32x32 tiles of A and B staged with plain loads and stores, each thread
// accumulating a 1x4 strip with FFMA. No tensor cores, no TMA, no
// mbarriers: the generic fallback of everything sm_90a offers.
// Launch with 256 threads (8x32) per 32x32 tile.
constexpr int TILE = 32;

extern "C" __global__ void __launch_bounds__(256)
ffma_gemm(const float* __restrict__ A, const float* __restrict__ B,
          float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];
  const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE; // ty: 0..7
  const int row0 = blockIdx.y * TILE, col = blockIdx.x * TILE + tx;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};

  for (int k0 = 0; k0 < K; k0 += TILE) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      int r = ty + 8 * i;
      As[r][tx] = A[size_t(row0 + r) * K + k0 + tx];
      Bs[r][tx] = B[size_t(k0 + r) * N + col];
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TILE; ++k) {
      float b = Bs[k][tx];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        acc[i] = fmaf(As[ty + 8 * i][k], b, acc[i]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (row0 + ty + 8 * i < M && col < N)
      C[size_t(row0 + ty + 8 * i) * N + col] = acc[i];
}
