// corpus-archs: sm_80 sm_100a
// Shared-memory tiled SGEMM with register blocking (long FFMA chains,
// unrolled loops, 2D shared arrays, bounds checks) and a double-precision DGEMM.
#define TS 32
#define RB 4

extern "C" __global__ void __launch_bounds__(256)
sgemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  __shared__ float As[TS][TS + 1];
  __shared__ float Bs[TS][TS];
  int tx = threadIdx.x % 8, ty = threadIdx.x / 8;  // 8x32 threads, each 4 rows
  int row0 = blockIdx.y * TS + ty;
  int col = blockIdx.x * TS + tx * RB;
  float acc[RB][RB] = {};
  for (int k0 = 0; k0 < K; k0 += TS) {
    for (int i = threadIdx.x; i < TS * TS; i += blockDim.x) {
      int r = i / TS, c = i % TS;
      int ar = blockIdx.y * TS + r, ac = k0 + c;
      As[r][c] = (ar < M && ac < K) ? A[ar * K + ac] : 0.0f;
      int br = k0 + r, bc = blockIdx.x * TS + c;
      Bs[r][c] = (br < K && bc < N) ? B[br * N + bc] : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TS; ++k) {
      float b[RB];
#pragma unroll
      for (int j = 0; j < RB; ++j) b[j] = Bs[k][tx * RB + j];
#pragma unroll
      for (int i = 0; i < RB; ++i) {
        float a = As[(ty + i * 8) % TS][k];
#pragma unroll
        for (int j = 0; j < RB; ++j) acc[i][j] = fmaf(a, b[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < RB; ++i) {
    int r = (row0 + i * 8);
#pragma unroll
    for (int j = 0; j < RB; ++j) {
      int c = col + j;
      if (r < M && c < N) C[r * N + c] = alpha * acc[i][j] + beta * C[r * N + c];
    }
  }
}

extern "C" __global__ void dgemm_naive(int M, int N, int K, const double* A, const double* B, double* C) {
  __shared__ double As[16][16], Bs[16][16];
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  double acc = 0.0;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[threadIdx.y][threadIdx.x] = A[r * K + k0 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + c];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc = fma(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
    __syncthreads();
  }
  C[r * N + c] = acc;
}
