// A Blackwell request answered with Ampere habits: C[M,N] = A[M,K] * B[K,N]
// (f32), 64x64 block tile, each of 256 threads computing a 4x4 micro-tile
// with FFMA, A and B k-tiles double-buffered in shared memory with
// cp.async and __syncthreads. No tcgen05, no tensor memory, no TMA, no
// mbarriers. Launch with 256 threads.
#include <cuda/std/cstdint>
using cuda::std::uint32_t;

constexpr int BM = 64, BN = 64, BK = 16;

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s),
               "l"(gmem));
}

extern "C" __global__ void __launch_bounds__(256)
ffma_sm100(const float* __restrict__ A, const float* __restrict__ B,
           float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float As[2][BK][BM]; // A transposed: k-major
  __shared__ __align__(16) float Bs[2][BK][BN];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int ktiles = K / BK;

  auto load = [&](int stage, int kt) {
    // B: 16 rows x 16 chunks of 4 floats, one 16-byte copy a thread.
    cp_async16(&Bs[stage][tid / 16][(tid % 16) * 4],
               B + size_t(kt * BK + tid / 16) * N + n0 + (tid % 16) * 4);
    // A: transposed on the way in, four 4-byte loads a thread.
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      int e = tid + 256 * i, r = e / BK, k = e % BK;
      As[stage][k][r] = A[size_t(m0 + r) * K + kt * BK + k];
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };

  float acc[4][4] = {};
  load(0, 0);
  for (int kt = 0; kt < ktiles; ++kt) {
    int s = kt % 2;
    if (kt + 1 < ktiles) {
      load(s ^ 1, kt + 1);
      asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = As[s][k][ty * 4 + i];
        b[i] = Bs[s][k][tx * 4 + i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (m0 + ty * 4 + i < M && n0 + tx * 4 + j < N)
        C[size_t(m0 + ty * 4 + i) * N + n0 + tx * 4 + j] = acc[i][j];
}
