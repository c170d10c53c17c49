//===- Fp8AttentionBaseline.cpp - cuDNN fp8 SDPA for the fp8 attention ----===//
//
// The mha_fwd_fp8 tasks' baseline: cuDNN's fp8 SDPA forward, then one pass
// over its e4m3 O. Hopper's fp8 SDPA stores O in fp8 only, so cuDNN gets
// descale_v = 1 and scale_o = 1: its O is then the softmax-weighted mean of
// V's raw e4m3 values, within e4m3's range by construction (|O| <= max |V|),
// and the pass multiplies it by v_scale into the task's bf16 O; the
// arithmetic is the task's (v_scale applied once, after P V). P is
// quantized with scale_s = 256 (descale_s = 1/256), as the task's idiom
// says. Both launches are timed together: a kernel writes the bf16 O
// itself. The LSE is cuDNN's stats, the natural log of the descaled scores.
//
//===----------------------------------------------------------------------===//

#include "Fp8AttentionBaseline.h"

#include "CudnnSdpaFp8.h"

using namespace llvm;
using namespace ptxbench::runtime;

MaybeFail ptxbench::runtime::makeFp8AttentionBaseline(
    Gpu &gpu, const Fp8AttentionOperands &ops,
    std::vector<DeviceBuffer> &scratch, std::function<MaybeFail()> &launch,
    std::string &version) {
  auto made = CudnnSdpaFp8::forward(ops.shape, gpu.stream);
  if (!made)
    return Failure{Status::HarnessError, toString(made.takeError())};
  std::shared_ptr<CudnnSdpaFp8> lib = std::move(*made);
  version = CudnnSdpa::version() + " " + lib->planName();
  const SdpaShape &s = ops.shape;
  uint64_t n = uint64_t(s.batch) * s.heads * s.seq * s.headDim;
  // The e4m3 O, then the constants {1, 256, 1/256} and the two amax values
  // in one small buffer, then the workspace.
  scratch.emplace_back();
  TRY(gpu.alloc(scratch.back(), n));
  CUdeviceptr o8 = scratch.back().ptr;
  scratch.emplace_back();
  TRY(gpu.alloc(scratch.back(), 5 * sizeof(float)));
  CUdeviceptr consts = scratch.back().ptr;
  const float values[3] = {1.0f, 256.0f, 1.0f / 256.0f};
  TRY(gpu.check(gpu.d.cuMemcpyHtoD(consts, values, sizeof(values)),
                Status::HarnessError,
                "setting the fp8 attention baseline's scales"));
  scratch.emplace_back();
  TRY(gpu.alloc(scratch.back(), lib->workspaceBytes()));
  CUdeviceptr ws = scratch.back().ptr;
  CUfunction convert;
  TRY(gpu.builtin("ptxbench_e4m3_scaled_to_bf16", convert));

  SdpaFp8Buffers b;
  b.q = ops.q;
  b.k = ops.k;
  b.v = ops.v;
  b.descaleQ = ops.qScale;
  b.descaleK = ops.kScale;
  b.descaleV = consts;
  b.scaleO = consts;
  b.scaleS = consts + sizeof(float);
  b.descaleS = consts + 2 * sizeof(float);
  b.amaxS = consts + 3 * sizeof(float);
  b.amaxO = consts + 4 * sizeof(float);
  b.o = o8;
  b.lse = ops.lse;
  CUdeviceptr vScale = ops.vScale, out = ops.o;
  uint64_t blocks = std::min<uint64_t>((n + 255) / 256, 65536);
  launch = [=, &gpu]() mutable -> MaybeFail {
    if (Error err = lib->run(b, ws))
      return Failure{Status::HarnessError, toString(std::move(err))};
    const unsigned grid[3] = {unsigned(std::max<uint64_t>(blocks, 1)), 1, 1},
                   block[3] = {256, 1, 1};
    void *args[] = {&o8, &vScale, &out, &n};
    return launchBuiltin(gpu, convert, grid, block, 0, args,
                         "converting the fp8 attention baseline's O to bf16");
  };
  return std::nullopt;
}
