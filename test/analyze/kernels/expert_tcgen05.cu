// Expert-style Blackwell GEMM tile, C[M,N] = A[M,K] * B[N,K]^T (bf16 in,
// f32 out), one 128x64 tile per CTA of 128 threads:
// - thread 0 (producer) loads A and B k-tiles with TMA onto
//   transaction-count mbarriers (expect_tx), two stages deep;
// - thread 32 (MMA issuer) runs tcgen05.mma (kind::f16, M=128, N=64, K=16)
//   from shared-memory descriptors into tensor memory and releases each
//   stage with tcgen05.commit on its "empty" mbarrier;
// - warp 0 allocates 64 TMEM columns; all four warps read the accumulator
//   back with tcgen05.ld (32 lanes each) and store it.
// Launch with 128 threads and 2 * 24 KiB of dynamic shared memory.
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
namespace ptx = cuda::ptx;

constexpr int BM = 128, BN = 64, BK = 64, STAGES = 2;
constexpr uint32_t A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2;
constexpr uint32_t STAGE_BYTES = A_BYTES + B_BYTES;
constexpr uint32_t TMEM_COLS = 64;

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// Shared-memory descriptor (sm_100 layout): K-major, 128-byte swizzle, 8-row
// groups 1024 bytes apart, descriptor version 1 in bits 46-47.
__device__ __forceinline__ uint64_t smem_desc(const void* smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  uint64_t desc = (addr & 0x3FFFF) >> 4;
  desc |= uint64_t(1) << 16;
  desc |= uint64_t(1024 >> 4) << 32;
  desc |= uint64_t(1) << 46;
  desc |= uint64_t(2) << 61; // 128-byte swizzle
  return desc;
}

// Instruction descriptor, kind::f16: D f32, A and B bf16, both K-major,
// N >> 3 in bits 17-22, M >> 4 in bits 24-28.
constexpr uint32_t IDESC = (1u << 4) | (1u << 7) | (1u << 10) |
                           (uint32_t(BN >> 3) << 17) |
                           (uint32_t(BM >> 4) << 24);

extern "C" __global__ void __launch_bounds__(128, 1)
expert_tcgen05(const __grid_constant__ CUtensorMap tmapA,
               const __grid_constant__ CUtensorMap tmapB, float* C, int M,
               int N, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES], done;
  __shared__ uint32_t tmem_base;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int ktiles = K / BK;

  if (warp == 0) {
    ptx::tcgen05_alloc(ptx::cta_group_1, &tmem_base, uint32_t{TMEM_COLS});
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);
  }
  if (threadIdx.x == 32) {
    for (int s = 0; s < STAGES; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], 1);
    }
    ptx::mbarrier_init(&done, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = tmem_base;

  if (threadIdx.x == 0) {
    // Producer.
    for (int kt = 0; kt < ktiles; ++kt) {
      int s = kt % STAGES;
      if (kt >= STAGES)
        wait_parity(&empty[s], ((kt / STAGES) - 1) & 1);
      unsigned char* a = smem + s * STAGE_BYTES;
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta,
                                     ptx::space_shared, &full[s],
                                     uint32_t{STAGE_BYTES});
      const int32_t ca[2] = {kt * BK, m0};
      const int32_t cb[2] = {kt * BK, n0};
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, a,
                                &tmapA, ca, &full[s]);
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global,
                                a + A_BYTES, &tmapB, cb, &full[s]);
    }
  } else if (threadIdx.x == 32) {
    // MMA issuer: one thread drives the tensor core.
    for (int kt = 0; kt < ktiles; ++kt) {
      int s = kt % STAGES;
      wait_parity(&full[s], (kt / STAGES) & 1);
      ptx::tcgen05_fence_after_thread_sync();
      const unsigned char* a = smem + s * STAGE_BYTES;
      uint64_t da = smem_desc(a), db = smem_desc(a + A_BYTES);
#pragma unroll
      for (int k = 0; k < BK / 16; ++k)
        ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem, da + 2 * k,
                         db + 2 * k, IDESC, kt > 0 || k > 0);
      ptx::tcgen05_commit(ptx::cta_group_1, &empty[s]);
    }
    ptx::tcgen05_commit(ptx::cta_group_1, &done);
  }

  // Epilogue: every warp reads its 32 TMEM lanes (rows), 16 columns a time.
  wait_parity(&done, 0);
  ptx::tcgen05_fence_after_thread_sync();
  const int row = m0 + 32 * warp + lane;
#pragma unroll
  for (int c = 0; c < BN; c += 16) {
    uint32_t v[16];
    ptx::tcgen05_ld_32x32b(v, tmem + (uint32_t(32 * warp) << 16) + c);
    ptx::tcgen05_wait_ld();
    if (row < M)
#pragma unroll
      for (int j = 0; j < 16; ++j)
        if (n0 + c + j < N)
          C[size_t(row) * N + n0 + c + j] = __uint_as_float(v[j]);
  }
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp == 0)
    ptx::tcgen05_dealloc(ptx::cta_group_1, tmem, uint32_t{TMEM_COLS});
}
