// tcgen05.cuh - the fifth-generation tensor core MMA on sm_100a, issued by one thread.
// Pair with tmem.cuh (the accumulator's columns) and mbarrier_tx.cuh (the commit barrier).
#ifndef PTXBENCH_HELPER_TCGEN05
#define PTXBENCH_HELPER_TCGEN05
#include <cstdint>

// Instruction descriptor: bf16 x bf16 -> f32, both operands K-major, M x N
// (M = 128: N a multiple of 16 up to 256).
__host__ __device__ constexpr uint32_t tcgen05_idesc_bf16_f32(uint32_t m, uint32_t n) {
  return (1u << 4) | (1u << 7) | (1u << 10) | ((n >> 3) << 17) | ((m >> 4) << 24);
}

// Shared-memory descriptor of a K-major tile as TMA writes it with
// CU_TENSOR_MAP_SWIZZLE_128B (128-byte rows, 8-row groups 1024 bytes apart, tile
// 1024-byte aligned). Blackwell's layout: version bits 46-48 = 0b001, swizzle
// field 61-63 = 2 for 128B. Advance one k16 step by adding 32 bytes.
__device__ __forceinline__ uint64_t tcgen05_desc_k128b(uint32_t smem_byte_addr) {
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((smem_byte_addr & 0x3FFFF) >> 4);  // start address
  desc |= static_cast<uint64_t>(1) << 16;                          // LBO (unused here)
  desc |= static_cast<uint64_t>(1024 >> 4) << 32;                  // SBO: 8 rows x 128 B
  desc |= static_cast<uint64_t>(1) << 46;                          // version
  desc |= static_cast<uint64_t>(2) << 61;                          // 128B swizzle
  return desc;
}

// D[tmem] (+)= A[smem] * B[smem], K = 16 per instruction. One thread issues it;
// accumulate = 0 overwrites D.
__device__ __forceinline__ void tcgen05_mma_bf16(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                                 uint32_t idesc, int accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n"
      "}\n"
      :: "r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate) : "memory");
}

// The barrier gets one arrival when every tcgen05 operation this thread issued so
// far has completed: commit to a stage's empty barrier to release its shared
// memory, or to an accumulator's full barrier before the epilogue reads it.
__device__ __forceinline__ void tcgen05_commit(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
               :: "r"(static_cast<uint32_t>(__cvta_generic_to_shared(bar))) : "memory");
}
#endif
