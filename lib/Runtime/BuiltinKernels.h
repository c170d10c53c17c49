//===- BuiltinKernels.h - The harness's own CUDA kernels --------*- C++ -*-===//
//
// The CUDA source of input generation, the fp32 references of GEMM and
// rmsnorm and the device-side checks: kernels/builtin.cu, embedded by the
// build (cmake/EmbedFile.cmake) and compiled with NVRTC at run time. The
// attention references follow it (AttentionKernels.h).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_BUILTINKERNELS_H
#define PTXBENCH_LIB_RUNTIME_BUILTINKERNELS_H

#include "kernels/builtin.cu.inc"

#include "llvm/ADT/StringRef.h"

namespace ptxbench::runtime {

/// kernels/builtin.cu, byte for byte (dtype and distribution codes are
/// described there).
inline constexpr llvm::StringRef
    builtinKernelsSource(kernels::builtinCu, sizeof(kernels::builtinCu) - 1);

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_BUILTINKERNELS_H
