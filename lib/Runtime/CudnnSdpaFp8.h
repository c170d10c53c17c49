//===- CudnnSdpaFp8.h - cuDNN's fp8 fused attention forward -----*- C++ -*-===//
//
// The library baseline of the fp8 attention tasks (mha_fwd_fp8_*): cuDNN's
// fp8 scaled-dot-product attention forward with the log-sum-exp. Q, K, V
// e4m3 [B, H, S, D] row-major with per-tensor descales; O e4m3 (Hopper's
// fp8 SDPA writes fp8 only; bf16 O is Blackwell's), fp32 LSE [B, H, S].
// The softmax's P is quantized with scale_s before P V, as cuDNN's fp8 graph
// takes it, and the amax of S and O are written as cuDNN requires.
//
// Built on the cuDNN C++ frontend like CudnnSdpa.h (it shares its loading
// of libcudnn and its shape helpers); the interface is independent of the
// harness, device pointers as CUdeviceptr values, no exception escapes.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_CUDNNSDPAFP8_H
#define PTXBENCH_LIB_RUNTIME_CUDNNSDPAFP8_H

#include "CudnnSdpa.h"

namespace ptxbench::runtime {

/// The device buffers of one fp8 forward. Every scale is one fp32 value.
struct SdpaFp8Buffers {
  /// e4m3 [B, H, S, D] inputs.
  uint64_t q = 0, k = 0, v = 0;
  /// Descales of Q, K, V and of the quantized P (1 / scaleS).
  uint64_t descaleQ = 0, descaleK = 0, descaleV = 0, descaleS = 0;
  /// Scales of P before it is quantized and of O before it is stored.
  uint64_t scaleS = 0, scaleO = 0;
  /// e4m3 O [B, H, S, D], fp32 LSE [B, H, S], fp32 amax of P and of O.
  uint64_t o = 0, lse = 0, amaxS = 0, amaxO = 0;
};

/// cuDNN's fp8 SDPA forward graph for one shape, plan chosen by cuDNN's
/// heuristics (mode A, then the fallback list). Runs on the stream given
/// at creation.
class CudnnSdpaFp8 {
public:
  ~CudnnSdpaFp8();
  CudnnSdpaFp8(const CudnnSdpaFp8 &) = delete;
  CudnnSdpaFp8 &operator=(const CudnnSdpaFp8 &) = delete;

  /// Builds the forward graph; `cuStream` is a CUstream. cuDNN declines
  /// what it has no fp8 kernel for (before Hopper, D not a multiple of 16
  /// or above 256) with a message that says so.
  static llvm::Expected<std::unique_ptr<CudnnSdpaFp8>>
  forward(const SdpaShape &shape, void *cuStream);

  const SdpaShape &shape() const;
  size_t workspaceBytes() const;
  const std::string &planName() const;

  /// Enqueues the forward; `ws` at least workspaceBytes().
  llvm::Error run(const SdpaFp8Buffers &buffers, uint64_t ws);

  /// The built graph and handle; defined in CudnnSdpaFp8.cpp only.
  struct Impl;

private:
  explicit CudnnSdpaFp8(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_CUDNNSDPAFP8_H
