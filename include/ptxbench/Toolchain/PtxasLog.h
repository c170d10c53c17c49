//===- PtxasLog.h - What ptxas says about a module -------------*- C++ -*-===//
//
// Parses the info/warning/error log of ptxas (standalone or through
// nvJitLink) into per-kernel resources and messages with their codes, so a
// "wgmma serialized" (C7510/C7511) or "setmaxnreg ignored" (C7504/C7508)
// note becomes a diagnostic tied to its kernel.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TOOLCHAIN_PTXASLOG_H
#define PTXBENCH_TOOLCHAIN_PTXASLOG_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxbench::toolchain {

/// Registers, memory and spills of one compiled kernel or function.
struct KernelResources {
  std::string name;
  bool entry = false;
  unsigned registers = 0;
  unsigned barriers = 0;
  uint64_t stackBytes = 0;
  uint64_t spillStoreBytes = 0;
  uint64_t spillLoadBytes = 0;
  uint64_t sharedBytes = 0;
  uint64_t localBytes = 0;
};

/// One message: severity, its code when it has one (C7510), the text, and
/// the kernel it is about when the log says so.
struct PtxasMessage {
  enum class Severity { Info, Warning, Error };
  Severity severity = Severity::Info;
  std::string code;
  std::string text;
  std::string kernel;
  /// The PTX line an error is about, or 0.
  unsigned ptxLine = 0;
};

struct PtxasLog {
  std::vector<KernelResources> kernels;
  /// Warnings, errors, and infos with a code (performance notes); the
  /// routine "Compiling entry function" and "Compile time" lines are not
  /// kept.
  std::vector<PtxasMessage> messages;

  const KernelResources *kernel(llvm::StringRef name) const;
};

/// Parses ptxas's `-v` output, or nvJitLink's info and error logs.
PtxasLog parsePtxasLog(llvm::StringRef log);

/// What a message means for the analysis, or "" when it means nothing in
/// particular: "wgmma-serialized" (C7510, C7511 and relatives: "wgmma...
/// serialized"), "setmaxnreg-ignored" (C7504, C7508), "spills" (spill or
/// local-memory warnings). Decided on the text, which is stabler than the
/// codes across toolkit versions.
llvm::StringRef classifyPtxasMessage(const PtxasMessage &message);

} // namespace ptxbench::toolchain

#endif // PTXBENCH_TOOLCHAIN_PTXASLOG_H
