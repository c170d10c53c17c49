// rmsnorm, H = 4096: the requested path. Each block of 4 warps owns 4 rows
// (32 KiB of bf16). Thread 0 arms a transaction-count mbarrier with the
// block's byte count (mbarrier.arrive.expect_tx) and moves the rows into
// shared memory with ONE non-tensor bulk copy (cp.async.bulk ...
// .mbarrier::complete_tx::bytes); every thread waits on the barrier's phase,
// then each warp reduces one row from shared memory in fp32 and writes y with
// 16-byte stores. Several blocks per SM (32 KiB each) keep the copies in
// flight. Correct; not tuned (no persistent double buffering yet).
//
// @ptxbench kernel rmsnorm_bulk grid=ceildiv(T, 4) block=128 smem=4*4096*2
// @ptxbench   args x, w, y, T
typedef unsigned short uint16_t; // no headers: NVRTC has no stdint.h
typedef unsigned int uint32_t;

#define H 4096
#define ROWS 4
#define EPS 1e-6f

__device__ __forceinline__ float lo(uint32_t v) { return __uint_as_float(v << 16); }
__device__ __forceinline__ float hi(uint32_t v) { return __uint_as_float(v & 0xffff0000u); }
__device__ __forceinline__ uint32_t pack(float l, float h) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(h), "f"(l));
  return r;
}

extern "C" __global__ void __launch_bounds__(128)
rmsnorm_bulk(const uint16_t *__restrict__ x, const uint16_t *__restrict__ w,
             uint16_t *__restrict__ y, int T) {
  extern __shared__ __align__(128) uint4 rows[]; // ROWS x H bf16
  __shared__ __align__(8) unsigned long long bar;
  const int row0 = blockIdx.x * ROWS;
  const int nrows = min(ROWS, T - row0);
  const uint32_t barAddr = (uint32_t)__cvta_generic_to_shared(&bar);
  const uint32_t dst = (uint32_t)__cvta_generic_to_shared(rows);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barAddr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t bytes = (uint32_t)nrows * H * 2;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAddr),
                 "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(x + (size_t)row0 * H), "r"(bytes), "r"(barAddr)
                 : "memory");
  }
  // Wait for phase 0 of the barrier: all bytes have landed.
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(barAddr), "r"(0)
                 : "memory");

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= nrows)
    return;
  const uint4 *src = rows + warp * (H / 8);
  uint4 v[H / 256];
  float ss = 0.f;
#pragma unroll
  for (int j = 0; j < H / 256; ++j) {
    v[j] = src[j * 32 + lane];
    uint32_t e[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
#pragma unroll
    for (int k = 0; k < 4; ++k)
      ss += lo(e[k]) * lo(e[k]) + hi(e[k]) * hi(e[k]);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    ss += __shfl_xor_sync(0xffffffffu, ss, o);
  const float inv = rsqrtf(ss * (1.0f / H) + EPS);
  const uint4 *wv = reinterpret_cast<const uint4 *>(w);
  uint4 *out = reinterpret_cast<uint4 *>(y + (size_t)(row0 + warp) * H);
#pragma unroll
  for (int j = 0; j < H / 256; ++j) {
    const uint4 ww = __ldg(wv + j * 32 + lane);
    uint32_t e[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
    uint32_t f[4] = {ww.x, ww.y, ww.z, ww.w};
    uint32_t r[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      r[k] = pack(lo(e[k]) * inv * lo(f[k]), hi(e[k]) * inv * hi(f[k]));
    out[j * 32 + lane] = make_uint4(r[0], r[1], r[2], r[3]);
  }
}
