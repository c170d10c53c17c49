//===- Assembler.cpp - PTX to cubin, with ptxas's report ------------------===//
//
// Runs the ptxas executable (-v for resources and notes) on a temporary
// file when there is one, else nvJitLink in-process ("-verbose"). Without
// the toolkit at build time (PTXBENCH_HAVE_NVJITLINK unset) only ptxas can
// assemble.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/Assembler.h"

#include "ptxbench/Support/RunTool.h"
#include "ptxbench/Support/TempFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

#ifdef PTXBENCH_HAVE_NVJITLINK
#include <nvJitLink.h>

#include <cstring>
#endif

using namespace ptxbench;
using namespace ptxbench::toolchain;
using llvm::StringRef;

std::optional<std::string> ptxbench::toolchain::findPtxas() {
  if (const char *env = getenv("PTXBENCH_PTXAS"); env && *env)
    return std::string(env);
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  for (StringRef path : {"/usr/local/cuda/bin/ptxas"})
    if (llvm::sys::fs::can_execute(path))
      return path.str();
  return std::nullopt;
}

namespace {

/// Assembles with the ptxas executable, as a whole program, killing it
/// after `seconds`.
AssembledModule assembleWithPtxas(StringRef ptxas, StringRef ptx,
                                  StringRef arch, unsigned seconds = 300) {
  AssembledModule result;
  result.assembler = "ptxas";
  auto input = support::TempFile::write("ptxas", "ptx", ptx);
  if (!input) {
    result.errorLog = llvm::toString(input.takeError());
    return result;
  }
  auto cubin = support::TempFile::create("ptxas", "cubin");
  if (!cubin) {
    result.errorLog = llvm::toString(cubin.takeError());
    return result;
  }
  auto out = support::runTool({ptxas.str(), "-arch=" + arch.str(), "-v",
                               input->path(), "-o", cubin->path()},
                              seconds);
  if (!out) {
    result.errorLog = "ptxas did not run: " + llvm::toString(out.takeError());
    return result;
  }
  result.timedOut = out->exit.timedOut;
  if (out->succeeded()) {
    result.infoLog = out->text;
    if (auto bytes = llvm::MemoryBuffer::getFile(cubin->path(),
                                                 /*IsText=*/false)) {
      result.cubin.assign((*bytes)->getBufferStart(),
                          (*bytes)->getBufferEnd());
      result.ok = true;
    } else {
      result.errorLog = "ptxas wrote no cubin";
    }
  } else {
    result.errorLog = out->text.empty()
                          ? "ptxas failed: " + out->exit.describe()
                          : out->text;
  }
  result.log = parsePtxasLog(result.infoLog + "\n" + result.errorLog);
  return result;
}

} // namespace

std::optional<AssembledModule>
ptxbench::toolchain::assembleWholeProgram(StringRef ptx, StringRef arch,
                                          unsigned seconds) {
  std::optional<std::string> ptxas = findPtxas();
  if (!ptxas)
    return std::nullopt;
  return assembleWithPtxas(*ptxas, ptx, arch, std::max(1u, seconds));
}

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
  if (std::optional<std::string> ptxas = findPtxas())
    return assembleWithPtxas(*ptxas, ptx, arch);
  AssembledModule result;
  result.assembler = "nvJitLink";
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

bool ptxbench::toolchain::canAssemble() { return findPtxas().has_value(); }

AssembledModule ptxbench::toolchain::assemblePTX(StringRef ptx, StringRef arch,
                                                 StringRef) {
  if (std::optional<std::string> ptxas = findPtxas())
    return assembleWithPtxas(*ptxas, ptx, arch);
  AssembledModule result;
  result.errorLog = "no ptxas found and this build has no nvJitLink (the CUDA "
                    "toolkit was not found when it was configured)";
  return result;
}

#endif
