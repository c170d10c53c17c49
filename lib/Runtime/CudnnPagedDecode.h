//===- CudnnPagedDecode.h - cuDNN SDPA over paged K/V caches ----*- C++ -*-===//
//
// The library baseline of the GQA paged-decode tasks: cuDNN's fused
// attention (cuDNN 9.5 or newer) with one query token per sequence and the
// keys and values gathered from paged caches through a page table, as
// serving engines call it for decode.
//
// The tensors are the tasks': Q and O bf16 [B, HQ, D], the caches bf16
// [pages, PS, HKV, D] (token-major within a page), the page table int32
// [B, ceildiv(L, PS)], the LSE fp32 [B, HQ] (natural log). cuDNN's paged
// containers are [pages, HKV, PS, D]; the task's layout is that one with
// other strides, which cuDNN takes as they are: nothing is copied.
// cuDNN also wants the sequence lengths as device tensors (int32 [B]):
// ones for Q, L for every sequence for K and V; the caller fills them once.
//
// Like CudnnSdpa.h (whose library loading it shares): device pointers are
// CUdeviceptr values, the caller owns every buffer and has made the
// primary context current; without the cuDNN frontend at build time the
// factory says how to get it. No exception escapes.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_CUDNNPAGEDDECODE_H
#define PTXBENCH_LIB_RUNTIME_CUDNNPAGEDDECODE_H

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace ptxbench::runtime {

/// One paged decode problem.
struct PagedDecodeShape {
  int64_t batch = 0, qHeads = 0, kvHeads = 0, headDim = 0;
  /// Tokens per page (PS) and pages in each cache.
  int64_t pageSize = 0, pages = 0;
  /// Columns of the page table: ceildiv(seqLen, pageSize).
  int64_t pagesPerSeq = 0;
  /// Tokens of every sequence (L).
  int64_t seqLen = 0;
  /// Multiplies Q K^T before the softmax; usually 1/sqrt(headDim).
  float scale = 0;
};

/// "B=2 HQ=32 HKV=8 D=128 PS=64 L=100 pages=4", for messages.
std::string describePagedDecodeShape(const PagedDecodeShape &shape);

/// Checks what cuDNN cannot be asked for at all: every count at least 1,
/// HQ a multiple of HKV, D a multiple of 8 from 8 to 256, a page table of
/// ceildiv(L, PS) columns (cuDNN's rule), L and the page count within
/// int32 (the page table's and sequence lengths' type), a finite positive
/// scale, and sizes that fit in int64 bytes.
llvm::Error validatePagedDecodeShape(const PagedDecodeShape &shape);

/// A 4-d tensor as cuDNN is told it: dims and element strides.
struct CudnnTensorLayout {
  std::array<int64_t, 4> dims, strides;
  bool operator==(const CudnnTensorLayout &o) const {
    return dims == o.dims && strides == o.strides;
  }
};

/// A cache [pages, PS, HKV, D] as cuDNN's container: dims {pages, HKV, PS,
/// D}, strides {PS*HKV*D, D, HKV*D, 1}.
CudnnTensorLayout pagedCacheLayout(const PagedDecodeShape &shape);
/// The page table [B, P] as {B, 1, P, 1}, strides {P, P, 1, 1}.
CudnnTensorLayout pageTableLayout(const PagedDecodeShape &shape);
/// Q and O [B, HQ, D] as {B, HQ, 1, D}, strides {HQ*D, D, D, 1}.
CudnnTensorLayout decodeQueryLayout(const PagedDecodeShape &shape);
/// The LSE [B, HQ] as cuDNN's stats {B, HQ, 1, 1}, strides {HQ, 1, 1, 1}.
CudnnTensorLayout decodeStatsLayout(const PagedDecodeShape &shape);
/// A sequence-length tensor [B] as {B, 1, 1, 1}, strides {1, 1, 1, 1}.
CudnnTensorLayout seqLenLayout(const PagedDecodeShape &shape);

/// A built cuDNN paged decode graph with its plan (heuristics mode A, then
/// the fallback list), run on the stream given at creation.
class CudnnPagedDecode {
public:
  ~CudnnPagedDecode();
  CudnnPagedDecode(const CudnnPagedDecode &) = delete;
  CudnnPagedDecode &operator=(const CudnnPagedDecode &) = delete;

  /// Validates `shape`, loads cuDNN (CudnnSdpa::load) and builds the graph.
  static llvm::Expected<std::unique_ptr<CudnnPagedDecode>>
  create(const PagedDecodeShape &shape, void *cuStream);

  const PagedDecodeShape &shape() const;
  size_t workspaceBytes() const;
  const std::string &planName() const;

  /// Enqueues the decode: Q, the caches, the page table (also used for V),
  /// the sequence lengths (int32 [B] each), O and the LSE; `ws` at least
  /// workspaceBytes().
  llvm::Error run(uint64_t q, uint64_t kCache, uint64_t vCache,
                  uint64_t pageTable, uint64_t seqLenQ, uint64_t seqLenKv,
                  uint64_t o, uint64_t lse, uint64_t ws);

  /// The built graph and cuDNN handle; defined in CudnnPagedDecode.cpp.
  struct Impl;

private:
  explicit CudnnPagedDecode(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_CUDNNPAGEDDECODE_H
