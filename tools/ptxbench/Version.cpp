//===- Version.cpp - ptxbench --version -----------------------------------===//
//
// What a result depends on besides the submission: ptxbench's version and
// the commit it was built from (Revision.h, regenerated when the
// repository's HEAD moves), LLVM's version, and the CUDA toolchain and
// libraries this process would use (NVRTC, ptxas, the driver, cuBLASLt,
// cuDNN), each with the reason when it is missing.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "Revision.h"

#include "ptxbench/Eval/Sweep.h"
#include "ptxbench/Runtime/Harness.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench;

int cli::fail(StringRef subcommand, const Twine &message, int status) {
  WithColor::error(errs(), ("ptxbench " + subcommand).str()) << message << "\n";
  return status;
}

std::string cli::versionText() {
  std::string text;
  raw_string_ostream os(text);
  os << "ptxbench " << PTXBENCH_VERSION;
#ifdef PTXBENCH_REVISION
  os << " (commit " << PTXBENCH_REVISION << ")";
#else
  os << " (commit unknown: not built from a git checkout)";
#endif
  os << "\n  LLVM and MLIR: " << LLVM_VERSION_STRING << "\n";
  json::Object toolchain = eval::toolchainVersions();
  auto get = [&](StringRef key, StringRef missing) -> std::string {
    if (std::optional<StringRef> v = toolchain.getString(key))
      return v->str();
    return missing.str();
  };
  os << "  NVRTC (CUDA toolkit): " << get("nvrtc", "not loaded (no libnvrtc)")
     << "\n";
  os << "  ptxas: "
     << get("ptxas", "not found (no ptxas on PATH or in "
                     "/usr/local/cuda/bin)")
     << "\n";
  for (const auto &[name, version] : runtime::libraryVersions())
    os << "  " << name << ": " << version << "\n";
  return text;
}
