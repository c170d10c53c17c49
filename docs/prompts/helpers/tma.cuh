// tma.cuh - TMA tile loads through a CUtensorMap kernel parameter (sm_90a, sm_100a).
// Pair with mbarrier_tx.cuh: the destination barrier must expect the box's bytes.
#ifndef PTXBENCH_HELPER_TMA
#define PTXBENCH_HELPER_TMA
#include <cuda.h>
#include <cstdint>

// Pulls the tensor map into the cache ahead of the first copy (one thread).
__device__ __forceinline__ void tma_prefetch(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// Loads the box at element coordinates (x = innermost, y) into `dst` (1024-byte
// aligned for 128B swizzle); completes `bytes` on `bar`. Out-of-range elements are
// zero-filled and still count toward the bytes. One thread issues it.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar,
                                            int32_t x, int32_t y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];"
      :: "r"(static_cast<uint32_t>(__cvta_generic_to_shared(dst))),
         "l"(reinterpret_cast<uint64_t>(map)),
         "r"(static_cast<uint32_t>(__cvta_generic_to_shared(bar))), "r"(x), "r"(y)
      : "memory");
}

// Stores a shared-memory box to global memory; after the writing threads'
// tma_store_fence() and a barrier, one thread issues it, then commit and wait.
__device__ __forceinline__ void tma_store_fence() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int32_t x,
                                             int32_t y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(reinterpret_cast<uint64_t>(map)),
                  "r"(static_cast<uint32_t>(__cvta_generic_to_shared(src))), "r"(x), "r"(y)
               : "memory");
}
__device__ __forceinline__ void tma_store_commit_and_wait() {
  asm volatile("cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;" ::: "memory");
}
#endif
