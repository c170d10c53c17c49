//===- AttentionKernels.h - fp32 attention references -----------*- C++ -*-===//
//
// The harness's fp32 reference kernels for multi-head attention forward
// and backward and the fp32 -> bf16 conversion: kernels/attention.cu,
// embedded by the build (cmake/EmbedFile.cmake) and compiled with NVRTC at
// run time. That file uses builtin.cu's u16/u32/u64 typedefs and
// bf16ToF/fToBf16 and includes nothing, so it is compiled after
// builtinKernelsSource in one translation unit: attentionKernelsUnit().
// The host-side helpers below give each kernel's launch configuration.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_ATTENTIONKERNELS_H
#define PTXBENCH_LIB_RUNTIME_ATTENTIONKERNELS_H

#include "BuiltinKernels.h"
#include "kernels/attention.cu.inc"

#include <cstdint>
#include <string>

namespace ptxbench::runtime {

/// kernels/attention.cu, byte for byte; not a translation unit on its own.
inline constexpr llvm::StringRef
    attentionKernelsSource(kernels::attentionCu,
                           sizeof(kernels::attentionCu) - 1);

/// What NVRTC compiles for the attention references: builtin.cu, then
/// attention.cu.
inline std::string attentionKernelsUnit() {
  return builtinKernelsSource.str() + attentionKernelsSource.str();
}

/// A built-in kernel's launch configuration: grid and block dimensions and
/// the dynamic shared memory in bytes (0 for every kernel here: they use
/// static shared memory only, 33,280 bytes per block).
struct RefLaunch {
  unsigned grid[3];
  unsigned block[3];
  unsigned smem;
};

/// Rows of the query and key tiles of the attention references.
inline constexpr int64_t kAttnRefTile = 64;
/// Head-dimension columns one block of the attention references owns.
inline constexpr int64_t kAttnRefGroupCols = 128;

/// ptxbench_attn_fwd_ref over `bh` = B * H heads (grid.y, at most 65535)
/// of sequence length `s` and head dimension `d`.
inline RefLaunch attnFwdRefLaunch(int64_t bh, int64_t s, int64_t d) {
  auto tiles = static_cast<unsigned>((s + kAttnRefTile - 1) / kAttnRefTile);
  auto groups =
      static_cast<unsigned>((d + kAttnRefGroupCols - 1) / kAttnRefGroupCols);
  return {{tiles, static_cast<unsigned>(bh), groups}, {256, 1, 1}, 0};
}

/// ptxbench_attn_bwd_delta over `rows` = B * H * S rows.
inline RefLaunch attnBwdDeltaLaunch(int64_t rows, int64_t /*d*/) {
  return {{static_cast<unsigned>((rows + 7) / 8), 1, 1}, {256, 1, 1}, 0};
}

/// ptxbench_attn_bwd_dq_ref; same geometry as the forward.
inline RefLaunch attnBwdDqLaunch(int64_t bh, int64_t s, int64_t d) {
  return attnFwdRefLaunch(bh, s, d);
}

/// ptxbench_attn_bwd_dkdv_ref; one block per key tile, head and column
/// group.
inline RefLaunch attnBwdDkDvLaunch(int64_t bh, int64_t s, int64_t d) {
  return attnFwdRefLaunch(bh, s, d);
}

/// ptxbench_f32_to_bf16 over `n` elements (grid-stride, so the grid is
/// capped).
inline RefLaunch f32ToBf16Launch(uint64_t n) {
  uint64_t blocks = (n + 255) / 256;
  if (blocks > 65536)
    blocks = 65536;
  if (blocks == 0)
    blocks = 1;
  return {{static_cast<unsigned>(blocks), 1, 1}, {256, 1, 1}, 0};
}

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_ATTENTIONKERNELS_H
