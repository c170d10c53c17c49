//===- ContainedCompile.cpp - NVRTC in a child with time, memory limits ---===//
//
// A submission controls what NVRTC does: deep template recursion or
// constexpr loops can keep it busy for minutes or make it allocate without
// bound, and an `#include` makes it read a file. So the caller writes the
// source to a temporary file and starts its own executable's hidden
// `compile-cuda` command (a ChildProcess), which limits its data memory
// with setrlimit, opens its input and output, loads NVRTC and sandboxes
// itself (Support/Sandbox.h) before it compiles in-process and writes the
// result as JSON. The parent waits with a wall-clock deadline and kills the
// child past it: the result then says the compilation timed out.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/CudaCompiler.h"

#include "ptxbench/Support/ChildProcess.h"
#include "ptxbench/Support/Sandbox.h"
#include "ptxbench/Support/TempFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

using namespace ptxbench;
using namespace ptxbench::toolchain;
using llvm::StringRef;

namespace {
std::string validUTF8(const std::string &text) {
  return llvm::json::isUTF8(text) ? text : llvm::json::fixUTF8(text);
}
} // namespace

/// The compile child's sandbox: the toolkit's headers, NVRTC's libraries
/// (it loads its builtins when it first compiles), the system's, and what
/// NVRTC reads of the CPUs and of itself, read only; nothing to write (its
/// output is open already), no sockets. It works in `/`, so that a quoted
/// include is not looked for beside the caller's files.
static llvm::Expected<SandboxState> sandboxCompileChild() {
  auto mode = sandboxModeFromEnvironment();
  if (!mode)
    return mode.takeError();
  canCompileCUDA(); // NVRTC is loaded before the sandbox closes
  SandboxPolicy policy;
  policy.readable = toolkitIncludeDirs();
  for (std::string &dir : nvrtcLibraryDirs())
    policy.readable.push_back(std::move(dir));
  for (std::string &path : systemLibraryPaths())
    policy.readable.push_back(std::move(path));
  // What NVRTC reads of the machine and of itself (the CPUs, its maps).
  for (const char *path : {"/proc/self", "/proc/cpuinfo", "/proc/stat",
                           "/sys/devices/system/cpu"})
    policy.readable.push_back(path);
  if (chdir("/") != 0)
    return llvm::createStringError(std::string("cannot change to /: ") +
                                   std::strerror(errno));
  return applySandbox(policy, *mode);
}

int ptxbench::toolchain::runCompileChild(StringRef inputPath, StringRef name,
                                         StringRef arch, uint64_t memoryMB,
                                         StringRef outputPath,
                                         bool includeCheck) {
  support::setChildMemoryLimit(memoryMB);
  auto source = llvm::MemoryBuffer::getFile(inputPath);
  std::error_code ec;
  llvm::raw_fd_ostream os(outputPath, ec);
  if (ec)
    return 1;
  CompiledSource compiled;
  if (!source) {
    compiled.log = "cannot read the submission's temporary copy: " +
                   source.getError().message();
  } else if (auto sandbox = sandboxCompileChild(); !sandbox) {
    compiled.log = "the compiler's sandbox: " + llvm::toString(sandbox.takeError());
  } else {
    compiled = compileCUDA((*source)->getBuffer(), name, arch, includeCheck);
    compiled.sandbox = sandbox->describe();
  }
  os << llvm::json::Value(llvm::json::Object{{"ok", compiled.ok},
                                             {"ptx", validUTF8(compiled.ptx)},
                                             {"log", validUTF8(compiled.log)},
                                             {"sandbox", compiled.sandbox}});
  return os.has_error() ? 1 : 0;
}

CompiledSource ptxbench::toolchain::compileCUDA(StringRef source,
                                                StringRef name, StringRef arch,
                                                const CompileLimits &limits) {
  if (limits.helper.empty())
    return compileCUDA(source, name, arch);
  CompiledSource result;
  auto mode = sandboxModeFromEnvironment();
  if (!mode) {
    result.log = llvm::toString(mode.takeError());
    return result;
  }
  noteSandboxFallbackOnce(*mode, llvm::errs());
  auto input = support::TempFile::write("compile", "cu", source);
  if (!input) {
    result.log = "cannot write the compiler's input file: " +
                 llvm::toString(input.takeError());
    return result;
  }
  auto output = support::TempFile::create("compile", "json");
  if (!output) {
    result.log = "cannot make the compiler's result file: " +
                 llvm::toString(output.takeError());
    return result;
  }
  std::vector<std::string> args = {limits.helper,
                                   "compile-cuda",
                                   "--arch=" + arch.str(),
                                   "--name=" + name.str(),
                                   "--memory-mb=" +
                                       std::to_string(limits.memoryMB),
                                   input->path(),
                                   output->path()};
  // The child's stdout and stderr are not the caller's business (a crash
  // report would otherwise reach the terminal).
  support::ChildOptions child;
  child.argv = std::move(args);
  auto finished = support::runChild(child, limits.seconds);
  if (!finished) {
    result.log = "cannot start the compiler process: " +
                 llvm::toString(finished.takeError());
    return result;
  }
  if (finished->timedOut) {
    result.timedOut = true;
    result.log = llvm::formatv("NVRTC did not finish compiling '{0}' within "
                               "{1} s (the compile limit, "
                               "--compile-timeout); it was stopped",
                               name, llvm::format("%g", limits.seconds))
                     .str();
    return result;
  }
  auto text = llvm::MemoryBuffer::getFile(output->path());
  std::optional<llvm::json::Value> value;
  if (text && (*text)->getBufferSize()) {
    auto parsed = llvm::json::parse((*text)->getBuffer());
    if (parsed)
      value = std::move(*parsed);
    else
      llvm::consumeError(parsed.takeError());
  }
  const llvm::json::Object *o = value ? value->getAsObject() : nullptr;
  if (!o) {
    result.log =
        finished->signal()
            ? llvm::formatv("NVRTC died with {0} compiling '{1}'; its memory "
                            "limit is {2} MiB",
                            finished->describe(), name, limits.memoryMB)
                  .str()
            : llvm::formatv("NVRTC ended without a result compiling '{0}' "
                            "({1}; out of its {2} MiB memory limit?)",
                            name, finished->describe(), limits.memoryMB)
                  .str();
    return result;
  }
  result.ok = o->getBoolean("ok").value_or(false);
  result.ptx = o->getString("ptx").value_or("").str();
  result.log = o->getString("log").value_or("").str();
  result.sandbox = o->getString("sandbox").value_or("").str();
  result.messages = parseCompilerLog(result.log);
  return result;
}
