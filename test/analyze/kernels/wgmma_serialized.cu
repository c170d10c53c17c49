// A Hopper GEMM tile that uses wgmma but gains nothing from it:
// C[M,N] = A[M,K] * B[N,K]^T (bf16 in, f32 out), one warpgroup, 64x64 tile,
// one shared-memory stage. Every k-tile: TMA load onto an expect_tx
// mbarrier, wait, wgmma.fence, four wgmma.mma_async, commit, and then
// wgmma.wait_group 0 at once, so no wgmma overlaps the next load or the
// next group: the tensor core idles while TMA runs and vice versa.
// Launch with 128 threads and 16 KiB of dynamic shared memory.
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

constexpr int BM = 64, BN = 64, BK = 64;
constexpr uint32_t A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2;

__device__ __forceinline__ uint64_t make_desc(const void* smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(1) << 16) |
         (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

__device__ __forceinline__ void mma_k16(float (&d)[32], uint64_t da,
                                        uint64_t db) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
      "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
      "%28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
        "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
        "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
        "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db));
}

extern "C" __global__ void __launch_bounds__(128)
wgmma_serialized(const __grid_constant__ CUtensorMap tmapA,
                 const __grid_constant__ CUtensorMap tmapB, float* C, int M,
                 int N, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) uint64_t bar;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  if (tid == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();

  float acc[32];
#pragma unroll
  for (int i = 0; i < 32; ++i)
    acc[i] = 0.f;
  for (int kt = 0; kt < K / BK; ++kt) {
    if (tid == 0) {
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta,
                                     ptx::space_shared, &bar,
                                     uint32_t{A_BYTES + B_BYTES});
      const int32_t ca[2] = {kt * BK, m0}, cb[2] = {kt * BK, n0};
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem,
                                &tmapA, ca, &bar);
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global,
                                smem + A_BYTES, &tmapB, cb, &bar);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, kt & 1)) {
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int k = 0; k < BK / 16; ++k)
      mma_k16(acc, make_desc(smem) + 2 * k, make_desc(smem + A_BYTES) + 2 * k);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    // Waits for the group just committed: nothing is ever in flight.
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads(); // the stage may be overwritten now
  }

#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    int row = m0 + 16 * warp + lane / 4, col = n0 + 8 * j + 2 * (lane % 4);
    if (row < M && col + 1 < N) {
      C[size_t(row) * N + col] = acc[4 * j];
      C[size_t(row) * N + col + 1] = acc[4 * j + 1];
    }
    if (row + 8 < M && col + 1 < N) {
      C[size_t(row + 8) * N + col] = acc[4 * j + 2];
      C[size_t(row + 8) * N + col + 1] = acc[4 * j + 3];
    }
  }
}
