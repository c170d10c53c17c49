// cutlass_gemm_coop.cu - bf16 GEMM with CUTLASS's cooperative TMA
// warp-specialized schedule: two consumer warpgroups share a 128x128 tile,
// the producer gives registers back with setmaxnreg, and a 2x1 cluster
// multicasts the B tiles.
// wild-archs: sm_90a
// wild-variants: lineinfo
#include "cutlass_gemm.cuh"

using namespace cute;
using Kernel = wild::GemmKernel<
    cutlass::arch::Sm90, cutlass::bfloat16_t, cutlass::bfloat16_t,
    cutlass::bfloat16_t, Shape<_128, _128, _64>, Shape<_2, _1, _1>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative,
    cutlass::epilogue::TmaWarpSpecializedCooperative>::Type;

void launchGemmCoop(Kernel::Params const &params, dim3 grid, cudaStream_t s) {
  wild::launch<Kernel>(params, grid, s);
}
