// A tile transpose, out[N,M] = in[M,N]^T (f32), 32x32 tiles through shared
// memory, where the TMA path exists but can never run: it sits behind a
// "use TMA" switch that is a compile-time constant 0 inside the inline asm
// (setp on two immediates), so the PTX keeps the cp.async.bulk.tensor and
// its expect_tx, and the branch around them is always taken. The work is
// done by the plain ld.global -> st.shared loop and __syncthreads.
// Launch with 32x8 threads per 32x32 tile.
#include <cuda/ptx>
#include <cuda/std/cstdint>
#ifdef __CUDACC_RTC__
// NVRTC has no C library headers, so <cuda.h> cannot be included there; the
// driver's CUtensorMap is 128 opaque bytes aligned to 64.
struct alignas(64) CUtensorMap {
  unsigned long long opaque[16];
};
#else
#include <cuda.h>
#endif
using cuda::std::int32_t;
using cuda::std::uint32_t;
using cuda::std::uint64_t;

constexpr int TILE = 32;
constexpr int USE_TMA = 0; // the switch someone forgot to turn on

extern "C" __global__ void __launch_bounds__(256)
transpose_tma_dead(const __grid_constant__ CUtensorMap tmapIn,
                   const float* __restrict__ in, float* __restrict__ out,
                   int M, int N) {
  __shared__ __align__(128) float tile[TILE][TILE + 1];
  __shared__ __align__(8) uint64_t bar;
  const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;

  if (threadIdx.x == 0) {
    uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
    uint32_t t = static_cast<uint32_t>(__cvta_generic_to_shared(&tile[0][0]));
    asm volatile(
        "{\n"
        ".reg .pred use_tma;\n"
        ".reg .b64 state;\n"
        "setp.ne.b32 use_tma, %0, 0;\n"
        "@!use_tma bra.uni SKIP_TMA;\n"
        "mbarrier.init.shared::cta.b64 [%1], 1;\n"
        "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 state, [%1], "
        "4096;\n"
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
        "complete_tx::bytes [%2], [%3, {%4, %5}], [%1];\n"
        "SKIP_TMA:\n"
        "}\n" ::"n"(USE_TMA),
        "r"(b), "r"(t), "l"(&tmapIn), "r"(c0), "r"(r0)
        : "memory");
  }

  // What really runs: a coalesced load of the tile, then a transposed store.
#pragma unroll
  for (int i = 0; i < TILE; i += 8)
    if (r0 + ty + i < M && c0 + tx < N)
      tile[ty + i][tx] = in[size_t(r0 + ty + i) * N + c0 + tx];
  __syncthreads();
#pragma unroll
  for (int i = 0; i < TILE; i += 8)
    if (c0 + ty + i < N && r0 + tx < M)
      out[size_t(c0 + ty + i) * M + r0 + tx] = tile[tx][ty + i];
}
