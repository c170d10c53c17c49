// Calls every function of the helper headers pasted before it (-include), so
// ptxas sees, and checks, every asm string. test/Prompt/tags.test writes the
// headers from a prompt's helpers document, as a model would paste them; the
// headers' include guards say which families were given.
#include <cuda.h>
#include <cstdint>

__global__ void __launch_bounds__(128, 1)
use_helpers(const __grid_constant__ CUtensorMap map, const float* src, float* out) {
  __shared__ alignas(1024) uint8_t tile[64 * 128];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, sizeof(tile));
#ifdef PTXBENCH_HELPER_TMA
    tma_prefetch(&map);
    tma_load_2d(tile, &map, &bar, 0, 0);
#endif
#ifdef PTXBENCH_HELPER_BULK_COPY
    bulk_load(tile, src, sizeof(tile), &bar);
#endif
  }
  mbar_wait(&bar, 0);
#ifdef PTXBENCH_HELPER_WGMMA
  float d[32] = {};
  wgmma_fence();
  uint64_t desc = wgmma_desc_k128b(smem_addr(tile));
  wgmma_m64n64k16_bf16(d, desc, desc + 2, 0);
  wgmma_commit();
  wgmma_wait<0>();
  out[threadIdx.x] = d[threadIdx.x % 32];
#endif
#if defined(PTXBENCH_HELPER_TCGEN05) && defined(PTXBENCH_HELPER_TMEM)
  __shared__ uint32_t slot;
  if (threadIdx.x < 32)
    tmem_alloc(&slot, 64);
  tmem_fence_before_sync();
  __syncthreads();
  tmem_fence_after_sync();
  uint32_t taddr = slot;
  if (threadIdx.x == 0) {
    uint64_t desc = tcgen05_desc_k128b(smem_addr(tile));
    tcgen05_mma_bf16(taddr, desc, desc + 2, tcgen05_idesc_bf16_f32(128, 64), 0);
    tcgen05_commit(&bar);
  }
  mbar_wait(&bar, 1);
  tmem_fence_after_sync();
  uint32_t v[8];
  tmem_ld_32x32b_x8(taddr + ((threadIdx.x / 32 * 32) << 16), v);
  tmem_wait_ld();
  out[threadIdx.x] = __uint_as_float(v[0]);
  tmem_fence_before_sync();
  __syncthreads();
  if (threadIdx.x < 32)
    tmem_dealloc(taddr, 64);
#endif
  mbar_arrive(&bar);
#ifdef PTXBENCH_HELPER_TMA
  tma_store_fence();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(&map, tile, 0, 0);
    tma_store_commit_and_wait();
  }
#endif
}
