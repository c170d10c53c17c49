// cutlass_gemm_sm100.cu - bf16 GEMM for Blackwell from CUTLASS's sm100
// builders: tcgen05.mma on one SM, the accumulator in tensor memory, TMA
// loads.
// wild-archs: sm_100a
#include "cutlass_gemm.cuh"

using namespace cute;
using Kernel = wild::GemmKernel<
    cutlass::arch::Sm100, cutlass::bfloat16_t, cutlass::bfloat16_t,
    cutlass::bfloat16_t, Shape<_128, _128, _64>, Shape<_1, _1, _1>,
    cutlass::gemm::KernelTmaWarpSpecialized1SmSm100,
    cutlass::epilogue::TmaWarpSpecialized1Sm>::Type;

void launchGemmSm100(Kernel::Params const &params, dim3 grid, cudaStream_t s) {
  wild::launch<Kernel>(params, grid, s);
}
