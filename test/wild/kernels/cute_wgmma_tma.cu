// cute_wgmma_tma.cu - a bf16 GEMM mainloop written directly with CuTe: TMA
// loads into a three-stage ring of 128B-swizzled shared-memory tiles whose
// "full" mbarriers complete on transaction bytes, and one warpgroup running
// wgmma.mma_async on them, asking for one batch in flight. ptxas still
// serializes the wgmma (C7514: accumulator registers read inside a pipeline
// stage), the kind of loss the analysis must report on hand-written CuTe.
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
  uint64_t full[kStages];
  uint64_t empty[kStages];
};

using FullBarrier = cutlass::arch::ClusterTransactionBarrier;
using EmptyBarrier = cutlass::arch::ClusterBarrier;

// C (M x N, row-major) = A (M x K, K-major) * B (N x K, K-major)^T; M, N
// and K are multiples of the tile.
template <class TmaA, class TmaB>
__global__ void __launch_bounds__(128)
    cuteWgmmaTma(int M, int N, int K, CUTE_GRID_CONSTANT TmaA const tmaA,
                 CUTE_GRID_CONSTANT TmaB const tmaB, T *C) {
  extern __shared__ char smemRaw[];
  SharedStorage &smem = *reinterpret_cast<SharedStorage *>(smemRaw);
  Tensor sA = make_tensor(make_smem_ptr(smem.a.begin()), SmemLayoutA{});
  Tensor sB = make_tensor(make_smem_ptr(smem.b.begin()), SmemLayoutB{});

  Tensor gA = local_tile(tmaA.get_tma_tensor(make_shape(M, K)),
                         make_shape(Int<kBM>{}, Int<kBK>{}),
                         make_coord(blockIdx.x, _));
  Tensor gB = local_tile(tmaB.get_tma_tensor(make_shape(N, K)),
                         make_shape(Int<kBN>{}, Int<kBK>{}),
                         make_coord(blockIdx.y, _));
  auto [tAgA, tAsA] = tma_partition(tmaA, Int<0>{}, Layout<_1>{},
                                    group_modes<0, 2>(sA), group_modes<0, 2>(gA));
  auto [tBgB, tBsB] = tma_partition(tmaB, Int<0>{}, Layout<_1>{},
                                    group_modes<0, 2>(sB), group_modes<0, 2>(gB));
  constexpr uint32_t kTxBytes = (kBM + kBN) * kBK * sizeof(T);
  int kTiles = size<1>(tAgA);
  bool leader = threadIdx.x == 0;

  if (leader) {
    for (int s = 0; s < kStages; ++s) {
      FullBarrier::init(&smem.full[s], 1);
      EmptyBarrier::init(&smem.empty[s], 128);
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  auto load = [&](int k, int stage) {
    FullBarrier::arrive_and_expect_tx(&smem.full[stage], kTxBytes);
    copy(tmaA.with(smem.full[stage]), tAgA(_, k), tAsA(_, stage));
    copy(tmaB.with(smem.full[stage]), tBgB(_, k), tBsB(_, stage));
  };
  if (leader)
    for (int k = 0; k < kStages && k < kTiles; ++k)
      load(k, k);

  TiledMMA mma = make_tiled_mma(
      SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::K>{});
  ThrMMA thr = mma.get_slice(threadIdx.x);
  Tensor tCrA = thr.make_fragment_A(thr.partition_A(sA));
  Tensor tCrB = thr.make_fragment_B(thr.partition_B(sB));
  Tensor acc = partition_fragment_C(mma, make_shape(Int<kBM>{}, Int<kBN>{}));
  clear(acc);

  for (int k = 0; k < kTiles; ++k) {
    int stage = k % kStages;
    FullBarrier::wait(&smem.full[stage], (k / kStages) & 1);
    warpgroup_fence_operand(acc);
    warpgroup_arrive();
    gemm(mma, tCrA(_, _, _, stage), tCrB(_, _, _, stage), acc);
    warpgroup_commit_batch();
    // Keep this batch in flight; the previous one has now finished, so its
    // stage can be refilled.
    warpgroup_wait<1>();
    warpgroup_fence_operand(acc);
    if (k > 0) {
      int prev = (k - 1) % kStages;
      EmptyBarrier::arrive(&smem.empty[prev]);
      int next = k - 1 + kStages;
      if (leader && next < kTiles) {
        EmptyBarrier::wait(&smem.empty[prev], ((k - 1) / kStages) & 1);
        load(next, prev);
      }
    }
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

// Host side: the tensor maps, and the launch that instantiates the kernel.
void launchCuteWgmmaTma(int M, int N, int K, T const *A, T const *B, T *C,
                        cudaStream_t stream) {
  Tensor mA = make_tensor(make_gmem_ptr(A), make_shape(M, K),
                          make_stride(K, Int<1>{}));
  Tensor mB = make_tensor(make_gmem_ptr(B), make_shape(N, K),
                          make_stride(K, Int<1>{}));
  auto tmaA = make_tma_atom(SM90_TMA_LOAD{}, mA, SmemLayoutA{}(_, _, 0),
                            make_shape(Int<kBM>{}, Int<kBK>{}));
  auto tmaB = make_tma_atom(SM90_TMA_LOAD{}, mB, SmemLayoutB{}(_, _, 0),
                            make_shape(Int<kBN>{}, Int<kBK>{}));
  cuteWgmmaTma<<<dim3(M / kBM, N / kBN), 128, sizeof(SharedStorage),
                 stream>>>(M, N, K, tmaA, tmaB, C);
}
