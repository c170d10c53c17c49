//===- GpuRun.h - A sample through `ptxbench run` on one GPU ----*- C++ -*-===//
//
// The GPU part of `ptxbench eval`: each sample runs in its own
// `ptxbench run --json` process pinned to one GPU with CUDA_VISIBLE_DEVICES,
// so a kernel that hangs or corrupts its context takes nothing else down.
// Without a GPU the run reports NO_GPU, which is recorded like any result.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_GPURUN_H
#define PTXBENCH_EVAL_GPURUN_H

#include "ptxbench/Eval/Sample.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace ptxbench::eval {

/// The GPUs of `--gpus`: `all` (CUDA_VISIBLE_DEVICES when set, else the
/// devices `nvidia-smi -L` lists) or a list `0,1`. With no GPU found, one
/// empty entry: the run then reports that there is none.
llvm::Expected<std::vector<std::string>> resolveGpus(llvm::StringRef spec);

struct GpuRunOptions {
  /// The ptxbench executable to run.
  std::string tool;
  std::string taskDir, shapes;
  /// The value of CUDA_VISIBLE_DEVICES; empty leaves it unset.
  std::string gpu;
  double timeoutSeconds = 60;
  double compileTimeoutSeconds = 60;
  /// The sweep's input seed (0: a fresh one per run). With one, every
  /// sample of the sweep sees the same inputs and the harness reuses a
  /// recent baseline time of them (`run --reuse-baseline`).
  uint64_t seed = 0;
  /// The PTX the static stage compiled a .cu sample to (with the same
  /// NVRTC, arch and options as `run`): the run uses it instead of
  /// compiling again. Empty: the run compiles.
  std::string compiledPtx;
  /// A Triton sample's compile metadata from the static stage, with its
  /// PTX in compiledPtx.
  std::string tritonBuild;
};

/// Runs `record`'s code; fills runStatus, runJson and runSeconds. A harness
/// or environment failure (the tool crashed, wrote no JSON) is recorded as
/// HARNESS_ERROR with the reason in `error`.
void runOnGpu(SampleRecord &record, const GpuRunOptions &options);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_GPURUN_H
