// cutlass_gemm.cuh - a Hopper or Blackwell GEMM kernel type assembled by
// CUTLASS's collective builders, for the wild corpus. Each including .cu
// picks the element types, tile, cluster and schedules, and instantiates the
// kernel through one launch so that nvcc emits its PTX.
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

namespace wild {

// D = A * B with A row-major (K-major), B column-major (K-major), fp32
// accumulation and a plain linear-combination epilogue.
template <class Arch, class ElementA, class ElementB, class ElementD,
          class TileShape, class ClusterShape, class MainloopSchedule,
          class EpilogueSchedule>
struct GemmKernel {
  static constexpr int alignD = 16 / sizeof(ElementD);
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      Arch, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, ElementD,
      cutlass::layout::RowMajor, alignD, ElementD, cutlass::layout::RowMajor,
      alignD, EpilogueSchedule>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      Arch, cutlass::arch::OpClassTensorOp, ElementA,
      cutlass::layout::RowMajor, 16 / sizeof(ElementA), ElementB,
      cutlass::layout::ColumnMajor, 16 / sizeof(ElementB), float, TileShape,
      ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename Epilogue::SharedStorage))>,
      MainloopSchedule>::CollectiveOp;
  using Type = cutlass::gemm::kernel::GemmUniversal<
      cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
};

// Launching the kernel is what makes nvcc instantiate and emit it.
template <class Kernel>
void launch(typename Kernel::Params const &params, dim3 grid,
            cudaStream_t stream) {
  cutlass::device_kernel<Kernel>
      <<<grid, Kernel::MaxThreadsPerBlock, Kernel::SharedStorageSize,
         stream>>>(params);
}

} // namespace wild
