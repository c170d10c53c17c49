//===- CudaCompiler.cpp - CUDA C++ to PTX in-process with NVRTC -----------===//
//
// One way to compile CUDA C++ for the whole project: `ptxbench analyze` and
// the harness call it alike, so a submission compiles the same in both.
// libnvrtc is opened with dlopen (only nvrtc.h is needed at build time), so
// nothing links against the toolkit. NVRTC compiles for the virtual
// architecture of the target (compute_90a for sm_90a) with -lineinfo, so the
// PTX carries .loc directives and findings can name the CUDA line. The
// toolkit's include directories (and CCCL's, for <cuda/ptx>) come from
// $CUDA_HOME, /usr/local/cuda, or the toolkit found at configure time.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/CudaCompiler.h"

#include "ptxbench/Toolchain/Assembler.h"
#include "ptxbench/Toolchain/IncludeCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#ifdef PTXBENCH_HAVE_NVRTC
#include <dlfcn.h>
#include <nvrtc.h>
#endif

using namespace ptxbench::toolchain;
using llvm::StringRef;

#ifdef PTXBENCH_HAVE_NVRTC

namespace {

/// Where libnvrtc is looked for: first in the toolkit of the ptxas that
/// assembles what it compiles (a newer NVRTC elsewhere on the library path,
/// as PyPI's CUDA wheels bring, writes a PTX ISA version that ptxas
/// rejects), then on the library path.
std::vector<std::string> nvrtcCandidates() {
  static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12",
                                      "libnvrtc.so"};
  std::vector<std::string> candidates;
  if (std::optional<std::string> ptxas = findPtxas()) {
    llvm::SmallString<256> real;
    if (!llvm::sys::fs::real_path(*ptxas, real)) {
      // <toolkit>/bin/ptxas
      StringRef toolkit =
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(real));
      for (const char *dir : {"lib64", "lib", "targets/x86_64-linux/lib"})
        for (const char *name : names) {
          llvm::SmallString<256> path(toolkit);
          llvm::sys::path::append(path, dir, name);
          if (llvm::sys::fs::exists(path))
            candidates.push_back(std::string(path));
        }
    }
  }
  candidates.insert(candidates.end(), std::begin(names), std::end(names));
  return candidates;
}

/// NVRTC's entry points, opened once.
struct Nvrtc {
#define PTXBENCH_NVRTC(X)                                                      \
  X(nvrtcGetErrorString)                                                       \
  X(nvrtcCreateProgram)                                                        \
  X(nvrtcDestroyProgram)                                                       \
  X(nvrtcCompileProgram)                                                       \
  X(nvrtcGetPTXSize)                                                           \
  X(nvrtcGetPTX)                                                               \
  X(nvrtcGetProgramLogSize)                                                    \
  X(nvrtcGetProgramLog)                                                        \
  X(nvrtcVersion)
#define PTXBENCH_DECLARE(name) decltype(&::name) name = nullptr;
  PTXBENCH_NVRTC(PTXBENCH_DECLARE)
#undef PTXBENCH_DECLARE
  std::string error;

  Nvrtc() {
    void *library = nullptr;
    for (const std::string &name : nvrtcCandidates())
      if ((library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!library) {
      const char *reason = dlerror();
      error = std::string("cannot load libnvrtc: ") +
              (reason ? reason : "not found");
      return;
    }
#define PTXBENCH_LOOKUP(name)                                                  \
  if (!(name = reinterpret_cast<decltype(name)>(dlsym(library, #name))))      \
    error = "libnvrtc has no " #name;
    PTXBENCH_NVRTC(PTXBENCH_LOOKUP)
#undef PTXBENCH_LOOKUP
    // Since NVRTC 11.2; optional.
    getNumSupportedArchs = reinterpret_cast<decltype(getNumSupportedArchs)>(
        dlsym(library, "nvrtcGetNumSupportedArchs"));
    getSupportedArchs = reinterpret_cast<decltype(getSupportedArchs)>(
        dlsym(library, "nvrtcGetSupportedArchs"));
  }
  bool loaded() const { return error.empty(); }
  decltype(&::nvrtcGetNumSupportedArchs) getNumSupportedArchs = nullptr;
  decltype(&::nvrtcGetSupportedArchs) getSupportedArchs = nullptr;
#undef PTXBENCH_NVRTC
};

const Nvrtc &nvrtc() {
  static const Nvrtc instance;
  return instance;
}

} // namespace

std::vector<std::string> ptxbench::toolchain::toolkitIncludeDirs() {
  std::vector<std::string> roots;
  if (const char *home = getenv("CUDA_HOME"); home && *home)
    roots.push_back(std::string(home) + "/include");
  roots.push_back("/usr/local/cuda/include");
  roots.push_back(PTXBENCH_CUDA_INCLUDE_DIR);
  for (const std::string &root : roots) {
    if (!llvm::sys::fs::is_directory(root))
      continue;
    std::vector<std::string> dirs;
    llvm::SmallString<128> cccl(root);
    llvm::sys::path::append(cccl, "cccl");
    if (llvm::sys::fs::is_directory(cccl))
      dirs.push_back(cccl.str().str());
    dirs.push_back(root);
    return dirs;
  }
  return {};
}

std::vector<std::string> ptxbench::toolchain::nvrtcLibraryDirs() {
  const Nvrtc &lib = nvrtc();
  Dl_info info;
  if (!lib.loaded() ||
      !dladdr(reinterpret_cast<void *>(lib.nvrtcVersion), &info) ||
      !info.dli_fname)
    return {};
  std::vector<std::string> dirs = {
      llvm::sys::path::parent_path(info.dli_fname).str()};
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(info.dli_fname, real)) {
    std::string dir = llvm::sys::path::parent_path(real).str();
    if (dir != dirs.front())
      dirs.push_back(dir);
  }
  return dirs;
}

bool ptxbench::toolchain::canCompileCUDA(std::string *why) {
  if (why)
    *why = nvrtc().error;
  return nvrtc().loaded();
}

std::vector<int> ptxbench::toolchain::nvrtcArchs() {
  const Nvrtc &lib = nvrtc();
  int count = 0;
  if (!lib.loaded() || !lib.getNumSupportedArchs || !lib.getSupportedArchs ||
      lib.getNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0)
    return {};
  std::vector<int> archs(count);
  if (lib.getSupportedArchs(archs.data()) != NVRTC_SUCCESS)
    return {};
  return archs;
}

std::string ptxbench::toolchain::nvrtcVersion() {
  int major = 0, minor = 0;
  if (!nvrtc().loaded() || nvrtc().nvrtcVersion(&major, &minor))
    return "";
  return std::to_string(major) + "." + std::to_string(minor);
}

CompiledSource ptxbench::toolchain::compileCUDA(StringRef source,
                                                StringRef name, StringRef arch,
                                                bool includesChecked) {
  CompiledSource result;
  const Nvrtc &lib = nvrtc();
  if (!lib.loaded()) {
    result.log = lib.error;
    return result;
  }
  std::vector<std::string> includeDirs = toolkitIncludeDirs();
  if (includesChecked) {
    result.messages = checkIncludes(source, name, includeDirs);
    if (!result.messages.empty()) {
      result.log = formatCompilerMessages(result.messages, source);
      return result;
    }
  }
  std::string text = source.str(), programName = name.str();
  nvrtcProgram program = nullptr;
  if (nvrtcResult r = lib.nvrtcCreateProgram(&program, text.c_str(),
                                             programName.c_str(), 0, nullptr,
                                             nullptr)) {
    result.log = std::string("nvrtcCreateProgram: ") +
                 lib.nvrtcGetErrorString(r);
    return result;
  }
  StringRef sm = arch;
  sm.consume_front("sm_");
  std::vector<std::string> options = {"-arch=compute_" + sm.str(),
                                      "-std=c++17", "-lineinfo",
                                      "-default-device"};
  for (const std::string &dir : includeDirs)
    options.push_back("-I" + dir);
  std::vector<const char *> argv;
  for (const std::string &option : options)
    argv.push_back(option.c_str());
  nvrtcResult compiled =
      lib.nvrtcCompileProgram(program, argv.size(), argv.data());
  size_t size = 0;
  if (lib.nvrtcGetProgramLogSize(program, &size) == NVRTC_SUCCESS &&
      size > 1) {
    result.log.resize(size);
    lib.nvrtcGetProgramLog(program, result.log.data());
    result.log.resize(size - 1);
  }
  if (compiled == NVRTC_SUCCESS &&
      lib.nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS && size > 0) {
    result.ptx.resize(size);
    result.ok = lib.nvrtcGetPTX(program, result.ptx.data()) == NVRTC_SUCCESS;
    result.ptx.resize(size - 1); // the terminating NUL
  }
  if (!result.ok && result.log.empty())
    result.log = lib.nvrtcGetErrorString(compiled);
  lib.nvrtcDestroyProgram(&program);
  result.log = normalizeCompilerLog(result.log, includeDirs);
  result.messages = parseCompilerLog(result.log);
  return result;
}

#else

std::vector<int> ptxbench::toolchain::nvrtcArchs() { return {}; }

std::string ptxbench::toolchain::nvrtcVersion() { return ""; }

bool ptxbench::toolchain::canCompileCUDA(std::string *why) {
  if (why)
    *why = "this build of ptxbench has no nvrtc.h";
  return false;
}

std::vector<std::string> ptxbench::toolchain::toolkitIncludeDirs() {
  return {};
}

std::vector<std::string> ptxbench::toolchain::nvrtcLibraryDirs() { return {}; }

CompiledSource ptxbench::toolchain::compileCUDA(StringRef, StringRef,
                                                StringRef, bool) {
  CompiledSource result;
  result.log = "this build of ptxbench has no nvrtc.h (the CUDA toolkit was "
               "not found when it was configured); compile the .cu to PTX "
               "first";
  return result;
}

#endif

llvm::Error ptxbench::toolchain::checkTargetName(StringRef arch) {
  StringRef number = arch;
  bool named = number.consume_front("sm_");
  char suffix = 0;
  if (named && (number.ends_with("a") || number.ends_with("f"))) {
    suffix = number.back();
    number = number.drop_back();
  }
  unsigned sm = 0;
  named = named && !number.empty() && llvm::all_of(number, llvm::isDigit) &&
          !number.getAsInteger(10, sm);
  std::vector<int> known = nvrtcArchs();
  std::string list;
  for (int k : known)
    list += (list.empty() ? "" : ", ") + ("sm_" + llvm::Twine(k)).str();
  std::string hint = known.empty()
                         ? std::string("such as sm_90a or sm_100a")
                         : "NVRTC " + nvrtcVersion() + " knows " + list +
                               ", with 'a' (sm_90a and newer) or 'f' "
                               "(sm_100f and newer) for the architecture- "
                               "and family-specific targets";
  if (!named)
    return llvm::createStringError("unknown architecture '" + arch +
                                   "'; expected sm_<number> with an optional "
                                   "'a' or 'f' suffix, " +
                                   hint);
  if ((suffix == 'a' && sm < 90) || (suffix == 'f' && sm < 100) ||
      (!known.empty() && !llvm::is_contained(known, int(sm))))
    return llvm::createStringError("unknown architecture '" + arch + "'; " +
                                   hint);
  return llvm::Error::success();
}
