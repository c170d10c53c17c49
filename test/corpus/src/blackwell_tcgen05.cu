// corpus-archs: sm_100a
// Blackwell 5th-gen tensor cores via cuda::ptx tcgen05 wrappers: tensor-memory
// alloc/dealloc/relinquish_alloc_permit, tcgen05.mma (kind::f16/tf32/f8f6f4/i8, block_scale mxf4,
// smem and tmem A operands, disable_output_lane masks), tcgen05.commit to an
// mbarrier (plain and multicast), tcgen05.ld/st (32x32b, 16x64b, 16x256b,
// pack/unpack), tcgen05.wait::ld/st, tcgen05.fence, tcgen05.cp, tcgen05.shift;
// also clusterlaunchcontrol try_cancel/query_cancel, st.bulk, and a
// cp.async.bulk.tensor load with .cta_group::1.
#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>
namespace ptx = cuda::ptx;

__device__ __forceinline__ uint64_t sdesc(const void* p) {
  uint64_t a = static_cast<uint64_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)64 << 32) | ((uint64_t)1 << 46) | ((uint64_t)2 << 61);
}

extern "C" __global__ void __launch_bounds__(128, 1)
tcgen05_gemm(const uint16_t* A, const uint16_t* B, float* C, uint32_t idesc, int accumulate) {
  __shared__ alignas(1024) uint16_t sA[128 * 64];
  __shared__ alignas(1024) uint16_t sB[128 * 64];
  __shared__ alignas(8) uint64_t mma_bar;
  __shared__ uint32_t tmem_base;
  int warp = threadIdx.x / 32;
  for (int i = threadIdx.x; i < 128 * 64; i += blockDim.x) { sA[i] = A[i]; sB[i] = B[i]; }
  if (warp == 0) {
    ptx::tcgen05_alloc(ptx::cta_group_1, &tmem_base, 256u);
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);
  }
  if (threadIdx.x == 32) ptx::mbarrier_init(&mma_bar, 1);
  ptx::fence_proxy_async(ptx::space_shared);
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  uint32_t tmem = tmem_base;
  if (threadIdx.x == 0) {
    uint64_t da = sdesc(sA), db = sdesc(sB);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem, da + 2 * k, db + 2 * k, idesc, accumulate != 0 || k > 0);
    ptx::tcgen05_mma(ptx::kind_tf32, ptx::cta_group_1, tmem + 128, da, db, idesc, false);
    uint32_t mask[4] = {0u, 0u, 0u, 0xffu};
    ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem, da, db, idesc, mask, true);
    ptx::tcgen05_mma_tmem_a(ptx::kind_f16, ptx::cta_group_1, tmem + 64, tmem + 128, db, idesc, true);
    ptx::tcgen05_mma_block_scale_vec_2x(ptx::kind_mxf4, ptx::cta_group_1, tmem + 160, da, db, idesc, tmem + 240, tmem + 248, true);
    ptx::tcgen05_mma(ptx::kind_f8f6f4, ptx::cta_group_1, tmem + 192, da, db, idesc, true);
    ptx::tcgen05_mma(ptx::kind_i8, ptx::cta_group_1, tmem + 224, da, db, idesc, false);
    ptx::tcgen05_commit(ptx::cta_group_1, &mma_bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&mma_bar, 0u)) {
  }
  ptx::tcgen05_fence_after_thread_sync();
  uint32_t lane_base = tmem + ((uint32_t)(warp * 32) << 16);
  uint32_t r[8];
  ptx::tcgen05_ld_32x32b(r, lane_base);
  uint32_t r2[4];
  ptx::tcgen05_ld_16x64b(r2, lane_base + 8);
  uint32_t r3[4];
  ptx::tcgen05_ld_16x256b(r3, lane_base + 16);
  uint32_t rp[2];
  ptx::tcgen05_ld_32x32b_pack_16b(rp, lane_base + 24);
  ptx::tcgen05_wait_ld();
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i) acc += __uint_as_float(r[i]);
#pragma unroll
  for (int i = 0; i < 4; ++i) acc += __uint_as_float(r2[i]) * __uint_as_float(r3[i]);
  acc += __uint_as_float(rp[0] ^ rp[1]);
  C[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  uint32_t w[4] = {__float_as_uint(acc), 0u, 1u, 2u};
  ptx::tcgen05_st_32x32b(lane_base + 32, w);
  ptx::tcgen05_st_16x64b_unpack_16b(lane_base + 40, rp);
  ptx::tcgen05_wait_st();
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  if (warp == 0) ptx::tcgen05_dealloc(ptx::cta_group_1, tmem, 256u);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1)
tcgen05_copy_shift(const uint32_t* in, uint32_t* out) {
  __shared__ alignas(1024) uint32_t s[128 * 8];
  __shared__ alignas(8) uint64_t bar;
  __shared__ uint32_t tmem_base;
  for (int i = threadIdx.x; i < 128 * 8; i += blockDim.x) s[i] = in[i];
  if (threadIdx.x < 32) ptx::tcgen05_alloc(ptx::cta_group_1, &tmem_base, 32u);
  if (threadIdx.x == 32) ptx::mbarrier_init(&bar, 1);
  ptx::fence_proxy_async(ptx::space_shared);
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  uint32_t tmem = tmem_base;
  if (threadIdx.x == 0) {
    uint64_t d = sdesc(s);
    ptx::tcgen05_cp_128x256b(ptx::cta_group_1, tmem, d);
    ptx::tcgen05_cp_4x256b(ptx::cta_group_1, tmem + 8, d);
    ptx::tcgen05_cp_128x128b(ptx::cta_group_1, tmem + 16, d);
    ptx::tcgen05_cp_64x128b_warpx2_02_13(ptx::cta_group_1, tmem + 20, d);
    ptx::tcgen05_cp_32x128b_warpx4(ptx::cta_group_1, tmem + 24, d);
    ptx::tcgen05_shift_down(ptx::cta_group_1, tmem);
    ptx::tcgen05_commit_multicast(ptx::cta_group_1, &bar, (uint16_t)0x1);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0u)) {
  }
  ptx::tcgen05_fence_after_thread_sync();
  uint32_t v[1];
  ptx::tcgen05_ld_32x32b(v, tmem + ((uint32_t)((threadIdx.x / 32) * 32) << 16));
  ptx::tcgen05_wait_ld();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v[0];
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (threadIdx.x < 32) {
    ptx::tcgen05_dealloc(ptx::cta_group_1, tmem, 32u);
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);
  }
}

extern "C" __global__ void persistent_clc(const __grid_constant__ CUtensorMap tmap, float* out) {
  __shared__ alignas(16) uint4 resp;
  __shared__ alignas(8) uint64_t bar;
  __shared__ alignas(128) float tile[64 * 16];
  __shared__ alignas(16) float zeroed[256];
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  int bx = blockIdx.x;
  uint32_t phase = 0;
  while (true) {
    if (threadIdx.x == 0) {
      ptx::st_bulk(zeroed, sizeof(zeroed), ptx::n32_t<0>{});
      ptx::clusterlaunchcontrol_try_cancel(&resp, &bar);
      int32_t c[2] = {bx * 16, 0};
      ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, ptx::cta_group_1, tile, &tmap, c, &bar);
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 16 + sizeof(tile));
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, phase)) {
    }
    phase ^= 1;
    out[bx * blockDim.x + threadIdx.x] = tile[threadIdx.x] + zeroed[threadIdx.x & 255];
    uint4 r = resp;
    __uint128_t r128 = ((__uint128_t)(((uint64_t)r.w << 32) | r.z) << 64) | (((uint64_t)r.y << 32) | r.x);
    __syncthreads();
    if (!ptx::clusterlaunchcontrol_query_cancel_is_canceled(r128)) break;
    bx = (int)ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<uint32_t>(r128);
  }
}
