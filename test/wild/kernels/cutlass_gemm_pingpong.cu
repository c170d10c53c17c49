// cutlass_gemm_pingpong.cu - bf16 GEMM with CUTLASS's ping-pong schedule: two
// consumer warpgroups work on different tiles and take turns between the
// math and the epilogue.
// wild-archs: sm_90a
#include "cutlass_gemm.cuh"

using namespace cute;
using Kernel = wild::GemmKernel<
    cutlass::arch::Sm90, cutlass::bfloat16_t, cutlass::bfloat16_t,
    cutlass::bfloat16_t, Shape<_64, _128, _64>, Shape<_1, _1, _1>,
    cutlass::gemm::KernelTmaWarpSpecializedPingpong,
    cutlass::epilogue::TmaWarpSpecialized>::Type;

void launchGemmPingpong(Kernel::Params const &params, dim3 grid,
                        cudaStream_t s) {
  wild::launch<Kernel>(params, grid, s);
}
