//===- CudnnSdpa.h - cuDNN fused attention as a baseline --------*- C++ -*-===//
//
// The library baseline of the attention tasks: cuDNN's fused scaled-dot-
// product attention (flash attention), forward with the log-sum-exp and
// backward, bf16 tensors [B, H, S, D] row-major, fp32 LSE [B, H, S].
//
// It is built on the cuDNN C++ frontend in its dynamic-loading mode:
// libcudnn and the CUDA runtime are opened with dlopen on first use, so the
// tools neither link against them nor need them until a baseline is timed.
// Without the frontend's headers at configure time the factories return an
// error that says how to get them.
//
// The interface is independent of the harness: device pointers are
// CUdeviceptr values, the caller owns every buffer (the workspace too) and
// has made the device's primary context current on the calling thread
// (the runtime API that cuDNN uses shares it). No exception escapes.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_CUDNNSDPA_H
#define PTXBENCH_LIB_RUNTIME_CUDNNSDPA_H

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace ptxbench::runtime {

/// One self-attention problem (queries and keys have the same length).
struct SdpaShape {
  int64_t batch = 0, heads = 0, seq = 0, headDim = 0;
  /// Top-left causal mask: query i sees keys j <= i.
  bool causal = false;
  /// Multiplies Q K^T before the softmax; usually sdpaDefaultScale(headDim).
  float scale = 0;
};

/// 1/sqrt(headDim), the tasks' softmax scale.
float sdpaDefaultScale(int64_t headDim);

/// "B=4 H=48 S=4096 D=128 causal", for messages.
std::string describeSdpaShape(const SdpaShape &shape);

/// Checks what cuDNN cannot be asked for at all: B, H and S at least 1, D a
/// multiple of 8 in [8, 256] (cuDNN's bf16 head dimensions), a finite
/// positive scale, and element counts that fit in int64. cuDNN may still
/// decline a valid shape on a given GPU (its message then says why).
llvm::Error validateSdpaShape(const SdpaShape &shape);

/// Element strides of Q, K, V, O and their gradients, [B, H, S, D]
/// row-major: {H*S*D, S*D, D, 1}.
std::array<int64_t, 4> sdpaTensorStrides(const SdpaShape &shape);

/// Element strides of the LSE, cuDNN's stats tensor [B, H, S, 1]:
/// {H*S, S, 1, 1} (the same memory as a row-major [B, H, S]).
std::array<int64_t, 4> sdpaStatsStrides(const SdpaShape &shape);

/// Bytes of one bf16 [B, H, S, D] tensor and of the fp32 LSE.
size_t sdpaTensorBytes(const SdpaShape &shape);
size_t sdpaStatsBytes(const SdpaShape &shape);

/// A cuDNN SDPA graph built for one shape and direction, with its plan
/// chosen by cuDNN's heuristics (mode A, then the fallback list) and built.
/// Runs on the stream given at creation.
///
/// Forward: O = softmax(scale Q K^T) V and LSE[b,h,i] =
/// log(sum_j exp(scale Q_i . K_j)) (cuDNN's "stats", natural log).
/// Backward: dQ, dK, dV from Q, K, V, O, dO and that LSE.
class CudnnSdpa {
public:
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa &) = delete;
  CudnnSdpa &operator=(const CudnnSdpa &) = delete;

  /// Builds the forward graph (with the LSE output). `cuStream` is a
  /// CUstream (nullptr: the legacy default stream).
  static llvm::Expected<std::unique_ptr<CudnnSdpa>>
  forward(const SdpaShape &shape, void *cuStream);
  /// Builds the backward graph.
  static llvm::Expected<std::unique_ptr<CudnnSdpa>>
  backward(const SdpaShape &shape, void *cuStream);

  const SdpaShape &shape() const;
  /// Device scratch memory runForward/runBackward need (may be 0).
  size_t workspaceBytes() const;
  /// The engine configuration cuDNN chose ("eng4_k11=..."), for results.
  const std::string &planName() const;

  /// Enqueues the forward on the stream. Q, K, V, O bf16 [B,H,S,D]; LSE
  /// fp32 [B,H,S]; `ws` at least workspaceBytes() (may be 0 when that is 0).
  llvm::Error runForward(uint64_t q, uint64_t k, uint64_t v, uint64_t o,
                         uint64_t lse, uint64_t ws);
  /// Enqueues the backward on the stream; O and LSE are the forward's.
  llvm::Error runBackward(uint64_t q, uint64_t k, uint64_t v, uint64_t o,
                          uint64_t dO, uint64_t lse, uint64_t dq, uint64_t dk,
                          uint64_t dv, uint64_t ws);

  /// Opens libcudnn (and the CUDA runtime the frontend calls) once per
  /// process. The error names every library name and path tried, or says
  /// that ptxbench was built without the frontend.
  static llvm::Error load();
  /// cuDNN's version ("9.19.0") after a successful load(), which it
  /// attempts; "" when cuDNN cannot be loaded.
  static std::string version();

  /// The built graph and cuDNN handle; defined in CudnnSdpa.cpp only.
  struct Impl;

private:
  explicit CudnnSdpa(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_CUDNNSDPA_H
