// cutlass_gemm_fp8.cu - e4m3 x e4m3 -> bf16 GEMM with CUTLASS's cooperative
// schedule and fast (non-promoted) fp8 accumulation.
// wild-archs: sm_90a
#include "cutlass_gemm.cuh"

using namespace cute;
using Kernel = wild::GemmKernel<
    cutlass::arch::Sm90, cutlass::float_e4m3_t, cutlass::float_e4m3_t,
    cutlass::bfloat16_t, Shape<_128, _128, _128>, Shape<_1, _1, _1>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8FastAccum,
    cutlass::epilogue::TmaWarpSpecializedCooperative>::Type;

void launchGemmFp8(Kernel::Params const &params, dim3 grid, cudaStream_t s) {
  wild::launch<Kernel>(params, grid, s);
}
