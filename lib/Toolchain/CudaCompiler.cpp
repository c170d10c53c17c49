//===- CudaCompiler.cpp - CUDA C++ to PTX in-process with NVRTC -----------===//
//
// NVRTC compiles for the virtual architecture of the target (compute_90a
// for sm_90a) with -lineinfo, so the PTX carries .loc directives and every
// finding on it can name the CUDA line. The include directories are fixed
// at configure time (PTXBENCH_CUDA_INCLUDE_DIR).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/CudaCompiler.h"

#include "llvm/ADT/StringExtras.h"

#ifdef PTXBENCH_HAVE_NVRTC
#include <nvrtc.h>
#endif

using namespace ptxbench::toolchain;
using llvm::StringRef;

std::vector<CompilerMessage>
ptxbench::toolchain::parseCompilerLog(StringRef log) {
  // `file(line): error: text` or `file(line): warning #177-D: text`; the
  // lines after (source excerpt and caret) belong to it and are skipped.
  std::vector<CompilerMessage> messages;
  for (StringRef line : llvm::split(log, '\n')) {
    size_t open = line.find('('), close = line.find("): ");
    if (open == StringRef::npos || close == StringRef::npos || close < open)
      continue;
    CompilerMessage message;
    if (line.slice(open + 1, close).getAsInteger(10, message.line))
      continue;
    StringRef rest = line.drop_front(close + 3);
    if (rest.starts_with("error") || rest.starts_with("catastrophic error"))
      message.error = true;
    else if (!rest.starts_with("warning") && !rest.starts_with("remark"))
      continue;
    message.file = line.take_front(open).str();
    size_t colon = rest.find(": ");
    message.text = (colon == StringRef::npos ? rest : rest.drop_front(colon + 2))
                       .trim()
                       .str();
    messages.push_back(std::move(message));
  }
  return messages;
}

#ifdef PTXBENCH_HAVE_NVRTC

bool ptxbench::toolchain::canCompileCUDA() { return true; }

CompiledSource ptxbench::toolchain::compileCUDA(StringRef source,
                                                StringRef name,
                                                StringRef arch) {
  CompiledSource result;
  std::string text = source.str(), programName = name.str();
  nvrtcProgram program = nullptr;
  if (nvrtcCreateProgram(&program, text.c_str(), programName.c_str(), 0,
                         nullptr, nullptr) != NVRTC_SUCCESS) {
    result.log = "NVRTC could not create a program";
    return result;
  }
  StringRef sm = arch;
  sm.consume_front("sm_");
  std::string archOption = "-arch=compute_" + sm.str();
  std::string include = "-I" PTXBENCH_CUDA_INCLUDE_DIR;
  std::string cccl = "-I" PTXBENCH_CUDA_INCLUDE_DIR "/cccl";
  const char *options[] = {archOption.c_str(), "-std=c++17", "-lineinfo",
                           "-default-device", cccl.c_str(), include.c_str()};
  nvrtcResult compiled =
      nvrtcCompileProgram(program, std::size(options), options);
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) == NVRTC_SUCCESS && size > 1) {
    result.log.resize(size);
    nvrtcGetProgramLog(program, result.log.data());
    result.log.resize(size - 1);
  }
  if (compiled == NVRTC_SUCCESS &&
      nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS && size > 0) {
    result.ptx.resize(size);
    result.ok = nvrtcGetPTX(program, result.ptx.data()) == NVRTC_SUCCESS;
    result.ptx.resize(size - 1); // the terminating NUL
  }
  if (!result.ok && result.log.empty())
    result.log = nvrtcGetErrorString(compiled);
  nvrtcDestroyProgram(&program);
  result.messages = parseCompilerLog(result.log);
  return result;
}

#else

bool ptxbench::toolchain::canCompileCUDA() { return false; }

CompiledSource ptxbench::toolchain::compileCUDA(StringRef, StringRef,
                                                StringRef) {
  CompiledSource result;
  result.log = "this build of ptxbench has no NVRTC (the CUDA toolkit was not "
               "found when it was configured); compile the .cu to PTX first";
  return result;
}

#endif
