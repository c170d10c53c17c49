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
#include "llvm/Support/Error.h"

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
  /// The compilation ran past its time limit and was stopped (`log` says
  /// so); `ok` is false.
  bool timedOut = false;
  std::string ptx;
  std::string log;
  std::vector<CompilerMessage> messages;
};

/// Whether NVRTC can be loaded; when not, `why` (if given) says why.
bool canCompileCUDA(std::string *why = nullptr);
/// NVRTC's version ("13.0"); empty when it does not load.
std::string nvrtcVersion();
/// The SM numbers NVRTC compiles for (75, 80, ..., 120); empty when it does
/// not load or cannot say.
std::vector<int> nvrtcArchs();
/// Whether `arch` names a target the toolchain knows: sm_<N> for an N that
/// NVRTC compiles for (any N when it cannot say), with an optional 'a'
/// (N >= 90) or 'f' (N >= 100) suffix. The error names the architecture
/// and what is known.
llvm::Error checkTargetName(llvm::StringRef arch);

/// Compiles `source` (named `name` in messages and line info) to PTX for
/// `arch` (sm_90a compiles for compute_90a). The toolkit's headers, CCCL's
/// included (for <cuda/ptx>), are on the include path.
CompiledSource compileCUDA(llvm::StringRef source, llvm::StringRef name,
                           llvm::StringRef arch);

/// Limits on compiling a submission. NVRTC runs in a child process (the
/// `helper` executable's hidden `compile-cuda` command, see
/// runCompileChild) that is killed after `seconds` of wall time and may
/// use at most `memoryMB` of data memory, so a deliberately slow or huge
/// compilation cannot stall the caller.
struct CompileLimits {
  /// The executable with the `compile-cuda` command (ptxbench itself).
  std::string helper;
  double seconds = 60;
  uint64_t memoryMB = 16384;
};

/// As above, under `limits`. A compilation stopped at the time limit has
/// `timedOut` set; one that ran out of memory fails with a log saying so.
CompiledSource compileCUDA(llvm::StringRef source, llvm::StringRef name,
                           llvm::StringRef arch, const CompileLimits &limits);

/// The child's side: limits its own data memory to `memoryMB`, compiles
/// the file `inputPath` and writes the result as JSON (ok, ptx, log) to
/// `outputPath`. Returns the process exit status (0 when the JSON was
/// written).
int runCompileChild(llvm::StringRef inputPath, llvm::StringRef name,
                    llvm::StringRef arch, uint64_t memoryMB,
                    llvm::StringRef outputPath);

/// Parses NVRTC's or nvcc's log.
std::vector<CompilerMessage> parseCompilerLog(llvm::StringRef log);

} // namespace ptxbench::toolchain

#endif // PTXBENCH_TOOLCHAIN_CUDACOMPILER_H
