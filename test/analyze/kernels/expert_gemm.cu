// Expert-style Hopper GEMM, C[M,N] = A[M,K] * B[N,K]^T (bf16 in, f32 out):
// - one producer warpgroup moves A and B tiles with TMA
//   (cp.async.bulk.tensor) onto transaction-count mbarriers (expect_tx);
// - two consumer warpgroups run wgmma.mma_async (m64n64k16) straight from
//   shared-memory descriptors (128-byte swizzle), keeping one wgmma group in
//   flight (wait_group 1) while the next stage's TMA lands;
// - warp specialization with setmaxnreg under __launch_bounds__(384, 1).
// Block tile 128x64x64, 4 stages; launch with 3 * 128 threads and
// STAGES * 24 KiB of dynamic shared memory.
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

constexpr int BM = 128, BN = 64, BK = 64, STAGES = 4;
constexpr uint32_t A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2;
constexpr uint32_t STAGE_BYTES = A_BYTES + B_BYTES;

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// A K-major shared-memory matrix descriptor with 128-byte swizzling:
// 8-row core groups 1024 bytes apart (SBO), start address in 16-byte units.
__device__ __forceinline__ uint64_t make_desc(const void* smem) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  uint64_t desc = (addr & 0x3FFFF) >> 4;
  desc |= uint64_t(1) << 16;            // leading byte offset (unused, 16 B)
  desc |= uint64_t(1024 >> 4) << 32;    // stride byte offset
  desc |= uint64_t(1) << 62;            // 128-byte swizzle
  return desc;
}

// Keep the compiler from moving accumulator registers across wgmma.
__device__ __forceinline__ void fence_operands(float (&d)[32]) {
#pragma unroll
  for (int i = 0; i < 32; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

// One 64x64x64 step: wgmma.fence, then four k16 wgmmas on descriptors that
// advance 32 bytes (2 units) along K, then commit the group.
__device__ __forceinline__ void wgmma_k64(float (&d)[32], uint64_t da,
                                          uint64_t db) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int k = 0; k < BK / 16; ++k) {
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
        : "l"(da + 2 * k), "l"(db + 2 * k));
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

extern "C" __global__ void __launch_bounds__(384, 1)
expert_gemm(const __grid_constant__ CUtensorMap tmapA,
            const __grid_constant__ CUtensorMap tmapB, float* C, int M,
            int N, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];

  const int warpgroup = threadIdx.x / 128;
  const int tid = threadIdx.x % 128;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int ktiles = K / BK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], 2); // one arrival per consumer warpgroup
    }
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();

  if (warpgroup == 0) {
    // Producer: few registers, one thread issues the copies.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (tid == 0) {
      for (int kt = 0; kt < ktiles; ++kt) {
        int s = kt % STAGES;
        if (kt >= STAGES)
          wait_parity(&empty[s], ((kt / STAGES) - 1) & 1);
        unsigned char* a = smem + s * STAGE_BYTES;
        unsigned char* b = a + A_BYTES;
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta,
                                       ptx::space_shared, &full[s],
                                       uint32_t{STAGE_BYTES});
        const int32_t ca[2] = {kt * BK, m0};
        const int32_t cb[2] = {kt * BK, n0};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, a,
                                  &tmapA, ca, &full[s]);
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, b,
                                  &tmapB, cb, &full[s]);
      }
    }
  } else {
    // Consumers: the registers the producer gave up hold the accumulators.
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int row0 = (warpgroup - 1) * 64; // this warpgroup's 64 rows of A
    float acc[32];
#pragma unroll
    for (int i = 0; i < 32; ++i)
      acc[i] = 0.f;
    for (int kt = 0; kt < ktiles; ++kt) {
      int s = kt % STAGES;
      wait_parity(&full[s], (kt / STAGES) & 1);
      unsigned char* a = smem + s * STAGE_BYTES + row0 * BK * 2;
      unsigned char* b = smem + s * STAGE_BYTES + A_BYTES;
      fence_operands(acc);
      wgmma_k64(acc, make_desc(a), make_desc(b));
      fence_operands(acc);
      // Keep this group in flight; the previous one is done, so its stage
      // goes back to the producer.
      wgmma_wait<1>();
      if (kt > 0 && tid == 0)
        ptx::mbarrier_arrive(&empty[(kt - 1) % STAGES]);
    }
    wgmma_wait<0>();
    fence_operands(acc);
    // Accumulator layout of m64nNk16: warp w owns rows 16w..16w+15; thread
    // lane holds rows lane/4 and lane/4+8, columns 8j + 2(lane%4) + {0,1}.
    const int warp = tid / 32, lane = tid % 32;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      int col = n0 + 8 * j + 2 * (lane % 4);
      int row = m0 + row0 + 16 * warp + lane / 4;
      if (row < M && col + 1 < N) {
        C[size_t(row) * N + col] = acc[4 * j + 0];
        C[size_t(row) * N + col + 1] = acc[4 * j + 1];
      }
      if (row + 8 < M && col + 1 < N) {
        C[size_t(row + 8) * N + col] = acc[4 * j + 2];
        C[size_t(row + 8) * N + col + 1] = acc[4 * j + 3];
      }
    }
  }
}
