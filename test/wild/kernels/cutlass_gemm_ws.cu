// cutlass_gemm_ws.cu - bf16 GEMM with CUTLASS's basic TMA warp-specialized
// schedule (one producer warp, one consumer warpgroup, no register
// reconfiguration).
// wild-archs: sm_90a
#include "cutlass_gemm.cuh"

using namespace cute;
using Kernel = wild::GemmKernel<
    cutlass::arch::Sm90, cutlass::bfloat16_t, cutlass::bfloat16_t,
    cutlass::bfloat16_t, Shape<_64, _128, _64>, Shape<_1, _1, _1>,
    cutlass::gemm::KernelTmaWarpSpecialized,
    cutlass::epilogue::TmaWarpSpecialized>::Type;

void launchGemmWs(Kernel::Params const &params, dim3 grid, cudaStream_t s) {
  wild::launch<Kernel>(params, grid, s);
}
