// corpus-archs: sm_89 sm_90a sm_100a
// Low-precision formats: FP8 (e4m3/e5m2) via <cuda_fp8.h> conversions
// (cvt.rn.satfinite.e4m3x2.f32, e5m2x2.f16x2, back to f16x2), mma.sync with
// e4m3 operands (sm_89+), packed f16x2/bf16x2 atomics (red.global.add.noftz),
// and FP4/FP6 conversions via <cuda_fp4.h>/<cuda_fp6.h> when the arch has them.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>
#include <cstdint>

extern "C" __global__ void fp8_convert(int n, const float2* in, __nv_fp8x2_e4m3* o8, __nv_fp8x2_e5m2* o5, __half2* back) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 v = in[i];
  __nv_fp8x2_e4m3 a(v);
  __nv_fp8x2_e5m2 b(__float22half2_rn(v));
  o8[i] = a;
  o5[i] = b;
  __half2 h = __half2(a) + __half2(b);
  __nv_fp8_e4m3 s(v.x * 2.0f);
  back[i] = h + __half2half2(__half(s));
}

extern "C" __global__ void fp8_mma(const uint32_t* A, const uint32_t* B, float* C) {
  int lane = threadIdx.x & 31;
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(A[lane]), "r"(A[lane + 32]), "r"(A[lane + 64]), "r"(A[lane + 96]), "r"(B[lane]), "r"(B[lane + 32]));
  for (int k = 0; k < 4; ++k) C[lane * 4 + k] = c[k];
}

extern "C" __global__ void packed_atomics(__half2* h2, __nv_bfloat162* b2, __half* h, __nv_bfloat16* b, float2* f2, float4* f4) {
  int t = threadIdx.x;
  atomicAdd(h2, __floats2half2_rn(0.5f, (float)t));
  atomicAdd(b2, __floats2bfloat162_rn(1.0f, (float)t));
  atomicAdd(h + (t & 7), __float2half(1.0f));
  atomicAdd(b + (t & 7), __float2bfloat16(2.0f));
#if __CUDA_ARCH__ >= 900
  atomicAdd(f2 + (t & 3), make_float2(1.0f, 2.0f));
  atomicAdd(f4 + (t & 3), make_float4(1.0f, 2.0f, 3.0f, 4.0f));
#endif
}

extern "C" __global__ void fp4_fp6_convert(int n, const float2* in, __nv_fp4x2_e2m1* o4, __nv_fp6x2_e2m3* o6, float2* back) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 v = in[i];
  __nv_fp4x2_e2m1 a(v);
  __nv_fp6x2_e2m3 b(v);
  o4[i] = a;
  o6[i] = b;
  back[i] = float2(a);
}
