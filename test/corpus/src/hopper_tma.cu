// corpus-archs: sm_90a sm_100a
// corpus-variants: lineinfo
// Hopper TMA and async-proxy features through cuda::ptx wrappers and inline asm:
// cp.async.bulk.tensor (1d/2d/3d load, store, reduce) with a __grid_constant__
// CUtensorMap, cp.async.bulk global<->shared, cp.reduce.async.bulk,
// cp.async.bulk.commit_group/wait_group(.read), mbarrier init/arrive/
// expect_tx/try_wait.parity loops, fence.proxy.async, fence.mbarrier_init,
// tensormap.replace + tensormap.cp_fenceproxy + fence.proxy.tensormap,
// elect.sync, griddepcontrol, setmaxnreg, prefetch.tensormap.
#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>
namespace ptx = cuda::ptx;

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// Hand-written wait loop with a nested scope and labels inside inline asm.
__device__ __forceinline__ void wait_parity_asm(uint64_t* bar, uint32_t parity) {
  uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile(
      "{\n"
      "  .reg .pred P1;\n"
      "LAB_WAIT:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, %2;\n"
      "  @P1 bra DONE;\n"
      "  bra.uni LAB_WAIT;\n"
      "DONE:\n"
      "}\n" ::"r"(b), "r"(parity), "r"(0x989680));
}

__device__ __forceinline__ bool elect_one() {
  uint32_t pred = 0;
  asm volatile(
      "{\n"
      "  .reg .b32 %%rx;\n"
      "  .reg .pred %%px;\n"
      "  elect.sync %%rx|%%px, %1;\n"
      "  @%%px mov.s32 %0, 1;\n"
      "}\n"
      : "+r"(pred)
      : "r"(0xffffffffu));
  return pred != 0;
}

extern "C" __global__ void __launch_bounds__(128, 1)
tma_tile_load(const __grid_constant__ CUtensorMap tmap, const __grid_constant__ CUtensorMap tmap3, float* out, float* gdst) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(128) float tile3[8 * 8 * 4];
  __shared__ alignas(8) uint64_t bar;
  asm volatile("prefetch.tensormap [%0];" ::"l"(&tmap) : "memory");
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (elect_one() && threadIdx.x < 32) {
    int32_t coords[2] = {(int32_t)blockIdx.x * 32, (int32_t)blockIdx.y * 32};
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, tile, &tmap, coords, &bar);
    int32_t c3[3] = {0, (int32_t)blockIdx.x * 8, 4};
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, tile3, &tmap3, c3, &bar);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile) + sizeof(tile3));
  }
  wait_parity(&bar, 0);
  float v = tile[threadIdx.x] + tile3[threadIdx.x & 255];
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
  tile[threadIdx.x] = v * 2.0f;
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t coords[2] = {(int32_t)blockIdx.x * 32, (int32_t)blockIdx.y * 32};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &tmap, coords, tile);
    ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, ptx::op_add, &tmap, coords, tile);
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, gdst + blockIdx.x * 1024, tile, sizeof(tile));
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
}

extern "C" __global__ void bulk_copy_reduce(const int* src, int* dst, float* fdst, int n) {
  __shared__ alignas(128) int buf[1024];
  __shared__ alignas(128) float fbuf[256];
  __shared__ alignas(8) uint64_t bars[2];
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bars[0], 1);
    ptx::mbarrier_init(&bars[1], blockDim.x);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::mbarrier_expect_tx(ptx::sem_relaxed, ptx::scope_cta, ptx::space_shared, &bars[0], sizeof(buf));
    ptx::cp_async_bulk(ptx::space_shared, ptx::space_global, buf, src + blockIdx.x * 1024, sizeof(buf), &bars[0]);
    ptx::mbarrier_arrive(&bars[0]);
  }
  wait_parity_asm(&bars[0], 0);
  fbuf[threadIdx.x & 255] = (float)buf[threadIdx.x];
  uint64_t st = ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bars[1]);
  while (!ptx::mbarrier_try_wait(&bars[1], st)) {
  }
  ptx::fence_proxy_async(ptx::space_shared);
  if (threadIdx.x == 0) {
    ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, dst, buf, sizeof(buf));
    ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_max, dst + 1024, buf, sizeof(buf));
    ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, fdst, fbuf, sizeof(fbuf));
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
  }
  if (threadIdx.x == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"((uint32_t)__cvta_generic_to_shared(&bars[0])));
}

extern "C" __global__ void tensormap_update(const __grid_constant__ CUtensorMap tmpl, CUtensorMap* gmaps, void* new_base, int newdim) {
  __shared__ alignas(128) CUtensorMap smap;
  if (threadIdx.x < 32) {
    if (threadIdx.x < sizeof(CUtensorMap) / 4)
      reinterpret_cast<int*>(&smap)[threadIdx.x] = reinterpret_cast<const int*>(&tmpl)[threadIdx.x];
    __syncwarp();
    if (threadIdx.x == 0) {
      ptx::tensormap_replace_global_address(ptx::space_shared, &smap, (uint64_t)new_base);
      ptx::tensormap_replace_rank(ptx::space_shared, &smap, 1u);
      ptx::tensormap_replace_global_dim(ptx::space_shared, &smap, ptx::n32_t<0>{}, (uint32_t)newdim);
      ptx::tensormap_replace_global_stride(ptx::space_shared, &smap, ptx::n32_t<0>{}, (uint64_t)newdim * 4);
      ptx::tensormap_replace_element_size(ptx::space_shared, &smap, ptx::n32_t<1>{}, 4u);
      ptx::tensormap_replace_interleave_layout(ptx::space_shared, &smap, ptx::n32_t<0>{});
      ptx::tensormap_replace_swizzle_mode(ptx::space_shared, &smap, ptx::n32_t<0>{});
      ptx::tensormap_replace_fill_mode(ptx::space_shared, &smap, ptx::n32_t<0>{});
    }
    __syncwarp();
    ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, &gmaps[blockIdx.x], &smap, ptx::n32_t<128>{});
  }
  ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, &gmaps[blockIdx.x], ptx::n32_t<128>{});
  if (threadIdx.x == 0) ptx::tensormap_replace_global_address(ptx::space_global, &gmaps[gridDim.x + blockIdx.x], (uint64_t)new_base);
  ptx::fence_proxy_tensormap_generic(ptx::sem_release, ptx::scope_sys);
}

extern "C" __global__ void __launch_bounds__(384, 1)
warp_specialized(const float* in, float* out) {
  int wg = threadIdx.x / 128;
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    out[threadIdx.x] = in[threadIdx.x];
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    float a = in[threadIdx.x];
#pragma unroll 4
    for (int i = 0; i < 16; ++i) a = a * 1.0001f + 0.5f;
    out[threadIdx.x] = a;
  }
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// Cluster multicast TMA, im2col mode, L2 cache hints and bulk prefetches.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
tma_multicast_im2col(const __grid_constant__ CUtensorMap tmap2d, const __grid_constant__ CUtensorMap tmap4d, const float* gsrc, float* out) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(128) float bulk[512];
  __shared__ alignas(128) float im[64 * 8];
  __shared__ alignas(8) uint64_t bar;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  ptx::barrier_cluster_arrive(ptx::sem_release);
  ptx::barrier_cluster_wait(ptx::sem_acquire);
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &bar, sizeof(tile) + sizeof(bulk) + sizeof(im));
    if (rank == 0) {
      int32_t c[2] = {0, (int32_t)blockIdx.y * 32};
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &tmap2d, c, &bar, (uint16_t)0x3);
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, bulk, gsrc, (uint32_t)sizeof(bulk), &bar, (uint16_t)0x3);
    }
    uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(im));
    uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
    uint16_t off0 = 1, off1 = 2;
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 0.5;" : "=l"(policy));
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint"
        " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8}, %9;"
        ::"r"(dst), "l"(&tmap4d), "r"(0), "r"(1), "r"(2), "r"((int)blockIdx.x), "r"(b), "h"(off0), "h"(off1), "l"(policy)
        : "memory");
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(gsrc + 4096), "r"(4096) : "memory");
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(&tmap2d), "r"(32), "r"(0) : "memory");
  }
  while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, 0u)) {
  }
  out[(blockIdx.x * 2 + rank) * blockDim.x + threadIdx.x] = tile[threadIdx.x] + bulk[threadIdx.x & 511] + im[threadIdx.x & 511];
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
}
