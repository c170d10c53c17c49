//===- CudaCompiler.h - CUDA C++ to PTX in-process with NVRTC --*- C++ -*-===//
//
// Compiles a submission written in CUDA C++ (with inline PTX) to PTX for
// one target, with line info so findings point back at the .cu lines, and
// parses NVRTC's log into located messages. Builds without the toolkit say
// that compiling CUDA is not available.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TOOLCHAIN_CUDACOMPILER_H
#define PTXBENCH_TOOLCHAIN_CUDACOMPILER_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ptxbench::toolchain {

/// One compiler message: `kernel.cu(12): error: ...`.
struct CompilerMessage {
  std::string file;
  unsigned line = 0;
  bool error = false;
  std::string text;
};

struct CompiledSource {
  bool ok = false;
  std::string ptx;
  std::string log;
  std::vector<CompilerMessage> messages;
};

/// Whether NVRTC can be loaded; when not, `why` (if given) says why.
bool canCompileCUDA(std::string *why = nullptr);
/// NVRTC's version ("13.0"); empty when it does not load.
std::string nvrtcVersion();

/// Compiles `source` (named `name` in messages and line info) to PTX for
/// `arch` (sm_90a compiles for compute_90a). The toolkit's headers, CCCL's
/// included (for <cuda/ptx>), are on the include path.
CompiledSource compileCUDA(llvm::StringRef source, llvm::StringRef name,
                           llvm::StringRef arch);

/// Parses NVRTC's or nvcc's log.
std::vector<CompilerMessage> parseCompilerLog(llvm::StringRef log);

} // namespace ptxbench::toolchain

#endif // PTXBENCH_TOOLCHAIN_CUDACOMPILER_H
