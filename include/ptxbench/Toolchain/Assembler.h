//===- Assembler.h - PTX to cubin, with ptxas's report ---------*- C++ -*-===//
//
// Assembles a PTX module for one target and keeps the cubin and what ptxas
// said (resources, performance notes, errors). The ptxas executable is
// preferred: it compiles the module as a whole program, as the driver's JIT
// does when `ptxbench run` loads it. nvJitLink, in-process, is the fallback;
// it compiles PTX as relocatable code, so it ignores setmaxnreg (C7504) and
// its register counts can differ. Without either, assembly is unavailable.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TOOLCHAIN_ASSEMBLER_H
#define PTXBENCH_TOOLCHAIN_ASSEMBLER_H

#include "ptxbench/Toolchain/PtxasLog.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxbench::toolchain {

struct AssembledModule {
  /// Whether ptxas accepted the module; `cubin` is set only then.
  bool ok = false;
  /// ptxas ran past its time limit and was killed.
  bool timedOut = false;
  /// "ptxas" or "nvJitLink".
  std::string assembler;
  std::vector<char> cubin;
  std::string infoLog;
  std::string errorLog;
  /// Both logs, parsed.
  PtxasLog log;
};

/// Whether a ptxas executable or nvJitLink is available.
bool canAssemble();

/// The ptxas to run: $PTXBENCH_PTXAS, PATH, then the CUDA toolkit.
std::optional<std::string> findPtxas();

/// Assembles `ptx` for `arch` with the ptxas executable as a whole program
/// (the code the driver's JIT makes), killing it after `seconds`; nullopt
/// when there is no ptxas. What `ptxbench run` times: relocatable code
/// (nvJitLink, the driver's cuLink) can spill where the whole program does
/// not.
std::optional<AssembledModule>
assembleWholeProgram(llvm::StringRef ptx, llvm::StringRef arch,
                     unsigned seconds);

/// Assembles `ptx` for `arch` (sm_90a, sm_100a, ...). `name` labels the
/// input in messages. Never throws or aborts: failures come back in the
/// result's logs.
AssembledModule assemblePTX(llvm::StringRef ptx, llvm::StringRef arch,
                            llvm::StringRef name = "input.ptx");

} // namespace ptxbench::toolchain

#endif // PTXBENCH_TOOLCHAIN_ASSEMBLER_H
