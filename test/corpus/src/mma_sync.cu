// corpus-archs: sm_80 sm_90a
// Tensor-core warp MMA via inline asm: ldmatrix (x1/x2/x4, .trans),
// mma.sync m16n8k16 f16/bf16 -> f32, m16n8k8 tf32, m16n8k32 s8, m8n8k4 f64,
// plus movmatrix; asm with vector operands and "+f" in/out constraints.
#include <cstdint>
#include <cuda_fp16.h>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void mma_f16_bf16(const __half* A, const __half* B, float* C, float* D2) {
  __shared__ __align__(128) __half sa[16 * 16];
  __shared__ __align__(128) __half sb[16 * 8];
  int lane = threadIdx.x;
  for (int i = lane; i < 256; i += 32) sa[i] = A[i];
  for (int i = lane; i < 128; i += 32) sb[i] = B[i];
  __syncwarp();
  uint32_t a[4], b[2];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(smem_u32(&sa[(lane % 16) * 16 + (lane / 16) * 8])));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(b[0]), "=r"(b[1])
               : "r"(smem_u32(&sb[(lane % 16) * 8])));
  uint32_t one;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(one) : "r"(smem_u32(&sb[(lane % 8) * 8])));
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  float d[4];
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(one), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  uint32_t h[2];
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};\n"
               : "=r"(h[0]), "=r"(h[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(0u), "r"(0u));
  uint32_t mv;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(mv) : "r"(h[0]));
#pragma unroll
  for (int i = 0; i < 4; ++i) C[lane * 4 + i] = c[i];
#pragma unroll
  for (int i = 0; i < 4; ++i) D2[lane * 4 + i] = d[i] + __half2float(__ushort_as_half((unsigned short)(h[1] ^ mv)));
}

extern "C" __global__ void mma_tf32_int8_f64(const float* A, const int* Bi, const double* Ad, float* C, int* Ci, double* Cd) {
  int lane = threadIdx.x;
  uint32_t a[4], b[2];
#pragma unroll
  for (int i = 0; i < 4; ++i) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a[i]) : "f"(A[lane * 4 + i]));
#pragma unroll
  for (int i = 0; i < 2; ++i) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(b[i]) : "f"(A[128 + lane * 2 + i]));
  float c[4] = {1.f, 2.f, 3.f, 4.f};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  int ci[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+r"(ci[0]), "+r"(ci[1]), "+r"(ci[2]), "+r"(ci[3])
               : "r"(Bi[lane]), "r"(Bi[lane + 32]), "r"(Bi[lane + 64]), "r"(Bi[lane + 96]), "r"(Bi[lane + 128]), "r"(Bi[lane + 160]));
  double cd[2] = {0.0, 0.0};
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(cd[0]), "+d"(cd[1])
               : "d"(Ad[lane]), "d"(Ad[lane + 32]));
#pragma unroll
  for (int i = 0; i < 4; ++i) { C[lane * 4 + i] = c[i]; Ci[lane * 4 + i] = ci[i]; }
  Cd[lane * 2] = cd[0];
  Cd[lane * 2 + 1] = cd[1];
}
