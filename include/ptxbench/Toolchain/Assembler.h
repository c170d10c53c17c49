//===- Assembler.h - PTX to cubin in-process with nvJitLink ----*- C++ -*-===//
//
// Assembles a PTX module for one target with nvJitLink, in-process, and
// keeps the cubin and what ptxas said (resources, performance notes,
// errors). Builds without the CUDA toolkit report that assembly is not
// available instead.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TOOLCHAIN_ASSEMBLER_H
#define PTXBENCH_TOOLCHAIN_ASSEMBLER_H

#include "ptxbench/Toolchain/PtxasLog.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ptxbench::toolchain {

struct AssembledModule {
  /// Whether ptxas accepted the module; `cubin` is set only then.
  bool ok = false;
  std::vector<char> cubin;
  std::string infoLog;
  std::string errorLog;
  /// Both logs, parsed.
  PtxasLog log;
};

/// Whether this build links nvJitLink.
bool canAssemble();

/// Assembles `ptx` for `arch` (sm_90a, sm_100a, ...). `name` labels the
/// input in messages. Never throws or aborts: failures come back in the
/// result's logs.
AssembledModule assemblePTX(llvm::StringRef ptx, llvm::StringRef arch,
                            llvm::StringRef name = "input.ptx");

} // namespace ptxbench::toolchain

#endif // PTXBENCH_TOOLCHAIN_ASSEMBLER_H
