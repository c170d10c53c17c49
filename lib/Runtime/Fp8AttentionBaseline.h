//===- Fp8AttentionBaseline.h - The fp8 attention tasks' baseline -*- C++ -*-===//
//
// cudnn_sdpa_fp8_fwd, the library baseline of the mha_fwd_fp8 tasks: cuDNN's
// fp8 SDPA forward (CudnnSdpaFp8.h) on the task's e4m3 Q, K, V and its
// descales, and the conversion of its e4m3 O into the task's bf16 O.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_FP8ATTENTIONBASELINE_H
#define PTXBENCH_LIB_RUNTIME_FP8ATTENTIONBASELINE_H

#include "CudnnSdpa.h"
#include "Gpu.h"

#include <functional>

namespace ptxbench::runtime {

/// The task tensors the baseline reads and writes: e4m3 q, k, v
/// [B, H, S, D], f32 one-element descales, bf16 o and f32 lse (the
/// baseline's own output buffers).
struct Fp8AttentionOperands {
  SdpaShape shape;
  CUdeviceptr q = 0, k = 0, v = 0, qScale = 0, kScale = 0, vScale = 0;
  CUdeviceptr o = 0, lse = 0;
};

/// Builds cuDNN's graph for the shape and sets `launch` to run it and the
/// conversion of O once on the harness stream; its scratch memory (the e4m3
/// O, the constant scales, the amax values, the workspace) goes to
/// `scratch`. `version` names cuDNN and the plan.
MaybeFail makeFp8AttentionBaseline(Gpu &gpu, const Fp8AttentionOperands &ops,
                                   std::vector<DeviceBuffer> &scratch,
                                   std::function<MaybeFail()> &launch,
                                   std::string &version);

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_FP8ATTENTIONBASELINE_H
