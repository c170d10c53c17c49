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

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ptxbench::toolchain {

/// One compiler message: `kernel.cu:12:5: error: ...`. The file is the
/// program's name or a toolkit header's path below its include folder
/// (`cuda_fp16.h`, `cuda/std/__type_traits/is_same.h`).
struct CompilerMessage {
  std::string file;
  unsigned line = 0;
  /// 1-based; 0 when the log has no caret for it.
  unsigned column = 0;
  bool error = false;
  std::string text;
  /// "file:line:column" (or "file:line").
  std::string location() const;
};

struct CompiledSource {
  bool ok = false;
  /// The compilation ran past its time limit and was stopped (`log` says
  /// so); `ok` is false.
  bool timedOut = false;
  std::string ptx;
  std::string log;
  std::vector<CompilerMessage> messages;
  /// The sandbox the compile child ran in (SandboxState::describe()); empty
  /// when compiled in this process.
  std::string sandbox;
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

/// The toolkit's include folders, CCCL's first (for <cuda/ptx>): the
/// first of $CUDA_HOME/include, /usr/local/cuda/include and the one found
/// at configure time that exists. Empty without one.
std::vector<std::string> toolkitIncludeDirs();

/// Where the NVRTC library in use lives (its folder, and the folder of its
/// real path when that differs); loads it. Empty when it does not load.
std::vector<std::string> nvrtcLibraryDirs();

/// Compiles `source` (named `name` in messages and line info) to PTX for
/// `arch` (sm_90a compiles for compute_90a). The toolkit's headers, CCCL's
/// included (for <cuda/ptx>), are on the include path, and they are all a
/// submission may include: checkIncludes() refuses anything else before
/// NVRTC runs. The log is normalizeCompilerLog()'s.
/// `checkIncludes` false skips that check (for a test of the sandbox).
CompiledSource compileCUDA(llvm::StringRef source, llvm::StringRef name,
                           llvm::StringRef arch, bool includeCheck = true);

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

/// The child's side: limits its own data memory to `memoryMB`, reads
/// `inputPath`, opens `outputPath`, then sandboxes itself (Sandbox.h:
/// only the toolkit's headers, NVRTC's libraries and the system's can be
/// read, nothing written, no network, no new programs; PTXBENCH_SANDBOX
/// says whether it may go without), compiles and writes the result as JSON
/// (ok, ptx, log, sandbox). With `checkIncludes` false the sandbox alone
/// keeps other files out (a test of it). Returns the process exit status
/// (0 when the JSON was written).
int runCompileChild(llvm::StringRef inputPath, llvm::StringRef name,
                    llvm::StringRef arch, uint64_t memoryMB,
                    llvm::StringRef outputPath, bool includeCheck = true);

/// Parses NVRTC's log, as it writes it (`file(line): error: ...`) or as
/// normalizeCompilerLog() rewrites it; notes are left out.
std::vector<CompilerMessage> parseCompilerLog(llvm::StringRef log);

/// `log` with the folders `roots` (the toolkit's include folders) taken
/// off every path and each message's first line as `file:line:column:
/// severity: text`, the column read from NVRTC's caret.
std::string normalizeCompilerLog(llvm::StringRef log,
                                 llvm::ArrayRef<std::string> roots);

} // namespace ptxbench::toolchain

#endif // PTXBENCH_TOOLCHAIN_CUDACOMPILER_H
