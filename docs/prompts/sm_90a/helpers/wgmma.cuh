// wgmma.cuh - warpgroup MMA on sm_90a: descriptors, fences, groups, one bf16 tile shape.
// All 128 threads of the warpgroup execute every call (no divergence inside it).
#ifndef PTXBENCH_HELPER_WGMMA
#define PTXBENCH_HELPER_WGMMA
#include <cstdint>

// Descriptor of a K-major tile as TMA writes it with CU_TENSOR_MAP_SWIZZLE_128B
// (rows of 128 bytes = 64 bf16, 8-row groups 1024 bytes apart, tile 1024-byte aligned).
// Advance one k16 step by adding 32 bytes to `smem_byte_addr`.
__device__ __forceinline__ uint64_t wgmma_desc_k128b(uint32_t smem_byte_addr) {
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((smem_byte_addr & 0x3FFFF) >> 4);  // start address
  desc |= static_cast<uint64_t>(1) << 16;                          // LBO (unused here)
  desc |= static_cast<uint64_t>(1024 >> 4) << 32;                  // SBO: 8 rows x 128 B
  desc |= static_cast<uint64_t>(1) << 62;                          // 128B swizzle
  return desc;
}

// Before the first wgmma, and after anything else wrote the accumulators.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most N groups are in flight (N = 1 keeps one overlapping).
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory");
}

// d[64x64] (+)= A[64x16] * B[16x64], bf16 in, f32 accumulators; A and B K-major in
// shared memory. accumulate = 0 overwrites d. Thread layout of d: warp w, lane l:
// d[i] is row 16*w + l/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(l%4) + (i&1).
__device__ __forceinline__ void wgmma_m64n64k16_bf16(float (&d)[32], uint64_t a_desc,
                                                     uint64_t b_desc, int accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a_desc), "l"(b_desc), "r"(accumulate));
}
#endif
