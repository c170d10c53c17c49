//===- Assembler.cpp - PTX to cubin in-process with nvJitLink -------------===//
//
// nvJitLink runs ptxas in-process; "-verbose" makes it report resources and
// performance notes in its info log. Without the toolkit at build time
// (PTXBENCH_HAVE_NVJITLINK unset) every call says so.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/Assembler.h"

#ifdef PTXBENCH_HAVE_NVJITLINK
#include <nvJitLink.h>

#include <cstring>
#endif

using namespace ptxbench::toolchain;
using llvm::StringRef;

#ifdef PTXBENCH_HAVE_NVJITLINK

bool ptxbench::toolchain::canAssemble() { return true; }

namespace {
/// Reads one of nvJitLink's logs.
template <typename SizeFn, typename ReadFn>
std::string readLog(nvJitLinkHandle handle, SizeFn size, ReadFn read) {
  size_t length = 0;
  if (size(handle, &length) != NVJITLINK_SUCCESS || length == 0)
    return {};
  std::string log(length, '\0');
  if (read(handle, log.data()) != NVJITLINK_SUCCESS)
    return {};
  log.resize(strnlen(log.data(), length));
  return log;
}
} // namespace

AssembledModule ptxbench::toolchain::assemblePTX(StringRef ptx, StringRef arch,
                                                 StringRef name) {
  AssembledModule result;
  std::string archOption = "-arch=" + arch.str();
  const char *options[] = {archOption.c_str(), "-verbose"};
  nvJitLinkHandle handle = nullptr;
  if (nvJitLinkCreate(&handle, 2, options) != NVJITLINK_SUCCESS) {
    result.errorLog = "nvJitLink does not accept target '" + arch.str() + "'";
    return result;
  }
  std::string inputName = name.str();
  nvJitLinkResult added = nvJitLinkAddData(
      handle, NVJITLINK_INPUT_PTX, ptx.data(), ptx.size(), inputName.c_str());
  nvJitLinkResult linked =
      added == NVJITLINK_SUCCESS ? nvJitLinkComplete(handle) : added;
  result.infoLog =
      readLog(handle, nvJitLinkGetInfoLogSize, nvJitLinkGetInfoLog);
  result.errorLog =
      readLog(handle, nvJitLinkGetErrorLogSize, nvJitLinkGetErrorLog);
  if (linked == NVJITLINK_SUCCESS) {
    size_t size = 0;
    if (nvJitLinkGetLinkedCubinSize(handle, &size) == NVJITLINK_SUCCESS) {
      result.cubin.resize(size);
      result.ok = nvJitLinkGetLinkedCubin(handle, result.cubin.data()) ==
                  NVJITLINK_SUCCESS;
    }
  }
  nvJitLinkDestroy(&handle);
  result.log = parsePtxasLog(result.infoLog + "\n" + result.errorLog);
  return result;
}

#else

bool ptxbench::toolchain::canAssemble() { return false; }

AssembledModule ptxbench::toolchain::assemblePTX(StringRef, StringRef,
                                                 StringRef) {
  AssembledModule result;
  result.errorLog = "this build of ptxbench has no nvJitLink (the CUDA "
                    "toolkit was not found when it was configured)";
  return result;
}

#endif
