//===- TritonChild.cpp - The Triton compile child closes itself off -------===//
//
// `ptxbench compile-triton` is the process the Triton driver runs in. Before
// it becomes the Python interpreter (execve keeps its limits and its
// sandbox), it limits its data memory, CPU time, file sizes, open files and
// core dumps, replaces its environment with a handful of variables that
// point Triton at its temporary folder (nothing of the caller's, so no API
// key reaches a submission), changes to that folder and sandboxes itself:
// the interpreter's installation, the system's libraries and the toolkit
// readable, the folder writable, the interpreter the only program it may
// start, no network.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/TritonCompiler.h"

#include "ptxbench/Support/ChildProcess.h"
#include "ptxbench/Support/Python.h"
#include "ptxbench/Support/Sandbox.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <sys/resource.h>
#include <unistd.h>

using namespace ptxbench;
using namespace ptxbench::toolchain;
using llvm::ArrayRef;
using llvm::StringRef;

namespace {

void limit(int resource, rlim_t value) {
  rlimit l;
  l.rlim_cur = l.rlim_max = value;
  setrlimit(resource, &l);
}

/// Writes `why` as the driver's result, so the parent can say it.
int failWith(StringRef workdir, const std::string &why) {
  llvm::SmallString<128> path(workdir);
  llvm::sys::path::append(path, "result.json");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec)
    os << llvm::json::Value(llvm::json::Object{
        {"ok", false}, {"stage", "child"}, {"log", why}});
  return 1;
}

} // namespace

int ptxbench::toolchain::runTritonCompileChild(StringRef workdir,
                                               StringRef python,
                                               ArrayRef<std::string> searchPath,
                                               StringRef driver,
                                               uint64_t memoryMB,
                                               unsigned cpuSeconds,
                                               bool gate, bool hook) {
  support::setChildMemoryLimit(memoryMB);
  if (cpuSeconds)
    limit(RLIMIT_CPU, cpuSeconds);
  limit(RLIMIT_FSIZE, rlim_t(512) << 20);
  limit(RLIMIT_CORE, 0);
  limit(RLIMIT_NOFILE, 256);
  if (chdir(workdir.str().c_str()) != 0)
    return failWith(workdir, std::string("cannot change to the temporary "
                                         "folder: ") +
                                 std::strerror(errno));

  auto mode = sandboxModeFromEnvironment();
  if (!mode)
    return failWith(workdir, llvm::toString(mode.takeError()));
  SandboxPolicy policy;
  policy.readable = support::pythonTrees(python);
  // Where the interpreter imports from beyond its installation (a user's
  // site-packages, a virtual environment's).
  for (const std::string &dir : searchPath)
    policy.readable.push_back(dir);
  policy.readable.push_back(driver.str());
  for (std::string &path : systemLibraryPaths())
    policy.readable.push_back(std::move(path));
  for (std::string &dir : toolkitIncludeDirs())
    policy.readable.push_back(std::move(dir));
  // What an interpreter reads at start-up and Triton's LLVM asks of the
  // machine (its processors), all read-only.
  for (const char *path : {"/proc/self", "/sys/devices/system/cpu",
                           "/proc/cpuinfo", "/proc/meminfo", "/dev/null",
                           "/dev/urandom", "/etc/localtime",
                           "/usr/share/zoneinfo"})
    policy.readable.push_back(path);
  policy.writable = {workdir.str()};
  policy.executable = {python.str()};
  if (std::string loader = support::elfInterpreter(python); !loader.empty())
    policy.executable.push_back(loader);
  auto state = applySandbox(policy, *mode);
  if (!state)
    return failWith(workdir, "the compiler's sandbox: " +
                                 llvm::toString(state.takeError()));

  std::string home = workdir.str();
  std::vector<std::string> env = {
      "HOME=" + home,
      "TMPDIR=" + home,
      "TRITON_HOME=" + home,
      "TRITON_CACHE_DIR=" + home + "/cache",
      "TRITON_DEFAULT_FP_FUSION=1",
      // Triton asks ptxas for its version to key its cache; it is told
      // instead, so that it never starts a program.
      "TRITON_MOCK_PTX_VERSION=ptxbench " + nvrtcVersion(),
      "PATH=/usr/bin:/bin",
      "LANG=C.UTF-8",
      "PTXBENCH_TRITON_SANDBOX=" + state->describe()};
  std::vector<char *> envp;
  for (std::string &e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = python.str(), script = driver.str();
  std::string request = home + "/request.json", result = home + "/result.json";
  // -E: no PYTHON* variable of anyone's; -B: no bytecode written. Not -I:
  // that would leave out the user's site-packages, where pip puts Triton
  // for a user who is not root.
  std::string ignoreEnv = "-E", noBytecode = "-B";
  std::string noGate = "--no-gate", noHook = "--no-hook";
  std::vector<char *> argv = {exe.data(), ignoreEnv.data(), noBytecode.data(),
                              script.data(), request.data(), result.data()};
  if (!gate)
    argv.push_back(noGate.data());
  if (!hook)
    argv.push_back(noHook.data());
  argv.push_back(nullptr);
  execve(exe.c_str(), argv.data(), envp.data());
  return failWith(workdir, "cannot start " + exe + ": " +
                               std::strerror(errno));
}
