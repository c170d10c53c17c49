// cute_wgmma_cpasync.cu - a bf16 GEMM mainloop written directly with CuTe
// that feeds wgmma without TMA: every thread copies 16-byte pieces of the
// tiles with cp.async into a three-stage ring of 128B-swizzled shared
// memory, synchronized with cp.async.wait_group and bar.sync. As in
// cute_wgmma_tma.cu, ptxas serializes its wgmma (C7514).
// wild-archs: sm_90a
#include "cute/tensor.hpp"
#include "cutlass/arch/barrier.h"
#include "cutlass/cutlass.h"

using namespace cute;

namespace {

using T = cute::bfloat16_t;
constexpr int kBM = 128, kBN = 128, kBK = 64, kStages = 3;

using SmemLayoutA = decltype(tile_to_shape(
    GMMA::Layout_K_SW128_Atom<T>{},
    make_shape(Int<kBM>{}, Int<kBK>{}, Int<kStages>{})));
using SmemLayoutB = decltype(tile_to_shape(
    GMMA::Layout_K_SW128_Atom<T>{},
    make_shape(Int<kBN>{}, Int<kBK>{}, Int<kStages>{})));

struct SharedStorage {
  alignas(1024) ArrayEngine<T, cosize_v<SmemLayoutA>> a;
  alignas(1024) ArrayEngine<T, cosize_v<SmemLayoutB>> b;
};

// 128 threads, 8 per 64-element row, 8 bf16 (16 bytes) each.
using GmemCopy = decltype(make_tiled_copy(
    Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, T>{},
    Layout<Shape<_16, _8>, Stride<_8, _1>>{}, Layout<Shape<_1, _8>>{}));

// C (M x N, row-major) = A (M x K, K-major) * B (N x K, K-major)^T; M, N
// and K are multiples of the tile.
__global__ void __launch_bounds__(128)
    cuteWgmmaCpAsync(int M, int N, int K, T const *A, T const *B, T *C) {
  extern __shared__ char smemRaw[];
  SharedStorage &smem = *reinterpret_cast<SharedStorage *>(smemRaw);
  Tensor sA = make_tensor(make_smem_ptr(smem.a.begin()), SmemLayoutA{});
  Tensor sB = make_tensor(make_smem_ptr(smem.b.begin()), SmemLayoutB{});
  Tensor mA = make_tensor(make_gmem_ptr(A), make_shape(M, K),
                          make_stride(K, Int<1>{}));
  Tensor mB = make_tensor(make_gmem_ptr(B), make_shape(N, K),
                          make_stride(K, Int<1>{}));
  Tensor gA = local_tile(mA, make_shape(Int<kBM>{}, Int<kBK>{}),
                         make_coord(blockIdx.x, _));
  Tensor gB = local_tile(mB, make_shape(Int<kBN>{}, Int<kBK>{}),
                         make_coord(blockIdx.y, _));

  ThrCopy g2s = GmemCopy{}.get_slice(threadIdx.x);
  Tensor tAgA = g2s.partition_S(gA); // (CPY, CPY_M, CPY_K, k)
  Tensor tAsA = g2s.partition_D(sA); // (CPY, CPY_M, CPY_K, stage)
  Tensor tBgB = g2s.partition_S(gB);
  Tensor tBsB = g2s.partition_D(sB);
  int kTiles = size<3>(tAgA);

  auto load = [&](int k, int stage) {
    copy(GmemCopy{}, tAgA(_, _, _, k), tAsA(_, _, _, stage));
    copy(GmemCopy{}, tBgB(_, _, _, k), tBsB(_, _, _, stage));
  };
  for (int k = 0; k < kStages - 1; ++k) {
    if (k < kTiles)
      load(k, k);
    cp_async_fence();
  }

  TiledMMA mma = make_tiled_mma(
      SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::K>{});
  ThrMMA thr = mma.get_slice(threadIdx.x);
  Tensor tCrA = thr.make_fragment_A(thr.partition_A(sA));
  Tensor tCrB = thr.make_fragment_B(thr.partition_B(sB));
  Tensor acc = partition_fragment_C(mma, make_shape(Int<kBM>{}, Int<kBN>{}));
  clear(acc);

  for (int k = 0; k < kTiles; ++k) {
    int stage = k % kStages;
    cp_async_wait<kStages - 2>();
    __syncthreads();
    // cp.async writes through the generic proxy; wgmma reads through the
    // async proxy.
    cutlass::arch::fence_view_async_shared();
    warpgroup_fence_operand(acc);
    warpgroup_arrive();
    gemm(mma, tCrA(_, _, _, stage), tCrB(_, _, _, stage), acc);
    warpgroup_commit_batch();
    // The previous batch has finished once at most this one is pending; its
    // stage takes the tile kStages - 1 ahead.
    warpgroup_wait<1>();
    warpgroup_fence_operand(acc);
    int next = k + kStages - 1;
    if (next < kTiles)
      load(next, next % kStages);
    cp_async_fence();
  }
  warpgroup_wait<0>();

  Tensor mC = make_tensor(make_gmem_ptr(C), make_shape(M, N),
                          make_stride(N, Int<1>{}));
  Tensor gC = local_tile(mC, make_shape(Int<kBM>{}, Int<kBN>{}),
                         make_coord(blockIdx.x, blockIdx.y));
  Tensor tCgC = thr.partition_C(gC);
  CUTE_UNROLL
  for (int i = 0; i < size(acc); ++i)
    tCgC(i) = T(acc(i));
}

} // namespace

void launchCuteWgmmaCpAsync(int M, int N, int K, T const *A, T const *B,
                            T *C, cudaStream_t stream) {
  cuteWgmmaCpAsync<<<dim3(M / kBM, N / kBN), 128, sizeof(SharedStorage),
                     stream>>>(M, N, K, A, B, C);
}
