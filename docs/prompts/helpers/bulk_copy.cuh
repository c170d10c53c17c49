// bulk_copy.cuh - one-thread bulk copies global -> shared without a tensor map (sm_90a, sm_100a).
// Pair with mbarrier_tx.cuh: the barrier must expect the copied bytes.
#ifndef PTXBENCH_HELPER_BULK_COPY
#define PTXBENCH_HELPER_BULK_COPY
#include <cstdint>

// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from `src` to
// `dst` and completes them on `bar`. One thread issues it.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
      :: "r"(static_cast<uint32_t>(__cvta_generic_to_shared(dst))),
         "l"(reinterpret_cast<uint64_t>(src)), "r"(bytes),
         "r"(static_cast<uint32_t>(__cvta_generic_to_shared(bar)))
      : "memory");
}
#endif
