// corpus-archs: sm_90a
// Hopper warpgroup MMA via inline asm: wgmma.fence, wgmma.mma_async with
// shared-memory descriptors (f16/bf16 -> f32 m64n64k16, register-A variant,
// e4m3 fp8 m64n32k32, s8 m64n16k32), immediate scale/negate operands and a
// predicate scale-d operand set up in a nested asm scope, commit_group,
// wait_group; stmatrix / ldmatrix; sparse-free epilogue through shared memory.
#include <cstdint>
#include <cuda_fp16.h>

__device__ __forceinline__ uint64_t make_desc(const void* smem) {
  uint64_t addr = static_cast<uint64_t>(__cvta_generic_to_shared(smem));
  uint64_t d = 0;
  d |= (addr & 0x3FFFF) >> 4;
  d |= (uint64_t)(16 >> 4) << 16;   // leading byte offset
  d |= (uint64_t)(1024 >> 4) << 32; // stride byte offset
  d |= (uint64_t)1 << 62;           // 128B swizzle
  return d;
}

extern "C" __global__ void __launch_bounds__(128)
wgmma_f16(const half* A, const half* B, float* C, int scale_d) {
  __shared__ alignas(1024) half sA[64 * 16];
  __shared__ alignas(1024) half sB[64 * 16];
  for (int i = threadIdx.x; i < 64 * 16; i += 128) { sA[i] = A[i]; sB[i] = B[i]; }
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  uint64_t da = make_desc(sA), db = make_desc(sB);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale_d));
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, -1, 1, 1, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da + 2), "l"(db + 2), "r"(1));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(0) : "memory");
#pragma unroll
  for (int i = 0; i < 32; ++i) C[threadIdx.x * 32 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(128)
wgmma_regA_fp8_int(const uint32_t* Areg, const uint8_t* B, float* C, int* Ci) {
  __shared__ alignas(1024) uint8_t sB[64 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += 128) sB[i] = B[i];
  __syncthreads();
  asm volatile("fence.proxy.async;" ::: "memory");
  uint64_t db = make_desc(sB);
  uint32_t a0 = Areg[threadIdx.x * 4 + 0], a1 = Areg[threadIdx.x * 4 + 1], a2 = Areg[threadIdx.x * 4 + 2], a3 = Areg[threadIdx.x * 4 + 3];
  float d[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) d[i] = 0.0f;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  // A from registers (f16), B from shared memory.
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "{%16, %17, %18, %19}, %20, 1, 1, 1, 1;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db));
  // fp8 e4m3 x e5m2, both from shared memory descriptors.
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e5m2 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, 1, 1, -1;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(db), "l"(db + 64));
  int di[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8.satfinite "
      "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 0;\n"
      : "+r"(di[0]), "+r"(di[1]), "+r"(di[2]), "+r"(di[3]), "+r"(di[4]), "+r"(di[5]), "+r"(di[6]), "+r"(di[7])
      : "l"(db), "l"(db + 128));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
  for (int i = 0; i < 16; ++i) C[threadIdx.x * 16 + i] = d[i];
#pragma unroll
  for (int i = 0; i < 8; ++i) Ci[threadIdx.x * 8 + i] = di[i];
}

extern "C" __global__ void stmatrix_ldmatrix(const uint32_t* in, uint32_t* out) {
  __shared__ alignas(128) uint16_t s[4 * 8 * 8];
  int lane = threadIdx.x & 31;
  uint32_t r0 = in[lane], r1 = in[lane + 32], r2 = in[lane + 64], r3 = in[lane + 96];
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(&s[(lane % 32) * 8]));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r0 ^ r3), "r"(r1 ^ r2) : "memory");
  asm volatile("stmatrix.sync.aligned.x1.m8n8.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r2) : "memory");
  __syncwarp();
  uint32_t o0, o1, o2, o3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(o0), "=r"(o1), "=r"(o2), "=r"(o3) : "r"(addr));
  out[lane] = o0 + o1 * 3 + o2 * 5 + o3 * 7;
}
