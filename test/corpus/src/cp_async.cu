// corpus-archs: sm_80 sm_90a
// Ampere async copies: multi-stage cp.async pipeline (inline asm cp.async.cg/.ca
// with src-size/zero-fill and L2 prefetch hints, commit_group/wait_group),
// the <cuda_pipeline.h> primitives, cp.async.mbarrier.arrive, and
// mbarrier arrive/test_wait on sm_80.
#include <cstdint>
#include <cuda_pipeline.h>

#define STAGES 3
#define TILE 256

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool pred) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  int sz = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(sz));
}

extern "C" __global__ void pipelined_sum(int ntiles, const float4* __restrict__ in, float* __restrict__ out) {
  __shared__ __align__(16) float4 buf[STAGES][TILE / 4];
  int t = threadIdx.x;  // blockDim.x == TILE/4
  float acc = 0.0f;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    cp_async16(&buf[s][t], &in[(size_t)s * (TILE / 4) + t], s < ntiles);
    asm volatile("cp.async.commit_group;\n" ::);
  }
  for (int k = 0; k < ntiles; ++k) {
    int nk = k + STAGES - 1;
    cp_async16(&buf[nk % STAGES][t], &in[(size_t)nk * (TILE / 4) + t], nk < ntiles);
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 1));
    __syncthreads();
    float4 v = buf[k % STAGES][(t + 1) % (TILE / 4)];
    acc += v.x + v.y + v.z + v.w;
    __syncthreads();
  }
  asm volatile("cp.async.wait_all;\n" ::);
  out[blockIdx.x * blockDim.x + t] = acc;
}

extern "C" __global__ void pipeline_primitives(const int* in, int* out) {
  __shared__ __align__(16) int s[2][128];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&s[0][t], &in[t], sizeof(int));
  __pipeline_commit();
  __pipeline_memcpy_async(&s[1][t], &in[128 + t], sizeof(int));
  __pipeline_commit();
  __pipeline_wait_prior(1);
  __syncthreads();
  int a = s[0][(t + 3) & 127];
  __pipeline_wait_prior(0);
  __syncthreads();
  out[t] = a + s[1][(t + 5) & 127];
}

extern "C" __global__ void cp_async_mbarrier(const int4* in, int4* out) {
  __shared__ __align__(16) int4 s[64];
  __shared__ __align__(8) uint64_t bar;
  int t = threadIdx.x;
  uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(b), "r"(blockDim.x));
  __syncthreads();
  uint32_t d = static_cast<uint32_t>(__cvta_generic_to_shared(&s[t]));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(&in[t]));
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(b));
  uint64_t state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];\n" : "=l"(state) : "r"(b));
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "WAIT_%=:\n"
      "  mbarrier.test_wait.shared.b64 done, [%0], %1;\n"
      "  @!done bra WAIT_%=;\n"
      "}\n" ::"r"(b), "l"(state));
  int4 v = s[63 - t];
  v.x += 1;
  out[t] = v;
  if (t == 0) asm volatile("mbarrier.inval.shared.b64 [%0];\n" ::"r"(b));
}
