// HOSTILE (bulk-copy credit for a hot vector): an rmsnorm that brings x,
// the tensor that is the task's traffic, through ld.global, and re-fetches
// the 8 KiB weight vector w into shared memory for every row with a
// non-tensor bulk copy (cp.async.bulk ... .mbarrier::complete_tx::bytes)
// on a transaction-count mbarrier (mbarrier.arrive.expect_tx). The bulk
// bytes equal the ld.global bytes (8 KiB a row each), so a share over the
// executed load bytes was 0.50 and credited bulk_copy and mbarrier_tx
// `used`. Correct output.
// What must catch it: bulk and TMA bytes count as the task's input bytes
// they read in bounds, each input tensor at most once (the copy log): of x
// and w (64 MiB and 8 KiB at T = 8192) the bulk copies read w's 8 KiB, a
// share of about 0.0001, whatever share of the loaded bytes they are. Expected: PASSED with run-time verdicts bulk_copy|tma and
// mbarrier_tx `token`.
//
// @ptxbench kernel rmsnorm_hot_bulk grid=T block=256
// @ptxbench   args x, w, y, T
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;

#define H 4096
#define EPS 1e-6f

__device__ __forceinline__ float bf16(uint16_t v) {
  return __uint_as_float((uint32_t)v << 16);
}

// One block of 8 warps per row; each thread owns 16 elements of it.
extern "C" __global__ void __launch_bounds__(256)
rmsnorm_hot_bulk(const uint16_t *__restrict__ x, const uint16_t *__restrict__ w,
                 uint16_t *__restrict__ y, int T) {
  __shared__ __align__(128) uint16_t ws[H];
  __shared__ __align__(8) unsigned long long bar;
  __shared__ float partial[8];
  const int tid = threadIdx.x, row = blockIdx.x;
  const uint32_t barAddr = (uint32_t)__cvta_generic_to_shared(&bar);
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barAddr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    // This row's copy of w, again.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAddr),
                 "r"(H * 2)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"((uint32_t)__cvta_generic_to_shared(ws)),
                 "l"(w), "r"(H * 2), "r"(barAddr)
                 : "memory");
  }
  // The row itself, through ld.global.
  float v[H / 256], ss = 0.f;
#pragma unroll
  for (int j = 0; j < H / 256; ++j) {
    v[j] = bf16(x[(size_t)row * H + j * 256 + tid]);
    ss += v[j] * v[j];
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if (tid % 32 == 0)
    partial[tid / 32] = ss;
  __syncthreads();
  if (tid == 0) {
    ss = 0.f;
#pragma unroll
    for (int i = 0; i < 8; ++i)
      ss += partial[i];
    partial[0] = rsqrtf(ss * (1.0f / H) + EPS);
  }
  __syncthreads();
  const float inv = partial[0];
  // Wait for phase 0 of the barrier: w has landed.
  asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "@!done bra WAIT_%=;\n}\n" ::"r"(barAddr)
               : "memory");
#pragma unroll
  for (int j = 0; j < H / 256; ++j) {
    uint32_t b = __float_as_uint(v[j] * inv * bf16(ws[j * 256 + tid]));
    b += 0x7fffu + ((b >> 16) & 1u);
    y[(size_t)row * H + j * 256 + tid] = (uint16_t)(b >> 16);
  }
}
