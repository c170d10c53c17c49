//===- ReferenceChild.cpp - The Python reference child closes itself off --===//
//
// `ptxbench reference-child` is the process a Python reference runs in.
// Before it becomes the interpreter (execve keeps its limits and its
// sandbox) it limits its CPU time, file sizes, open files and core dumps
// (and its data memory on the CPU), replaces its environment with a few
// variables that point everything at its temporary folder, changes to that
// folder and sandboxes itself: the interpreter's installation and import
// path and the system's libraries readable, the folder writable, the
// interpreter the only program it may start, no network. On the GPU it may
// also reach what the CUDA driver needs (its device nodes, the parts of
// /proc and /sys it reads, /dev/shm, AF_UNIX sockets).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Reference/PythonReference.h"

#include "ptxbench/Support/ChildProcess.h"
#include "ptxbench/Support/Python.h"
#include "ptxbench/Support/Sandbox.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace ptxbench;
using namespace ptxbench::reference;
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
    os << llvm::json::Value(
        llvm::json::Object{{"ok", false}, {"stage", "child"}, {"log", why}});
  return 1;
}

/// What the CUDA driver needs beyond the CPU's policy.
void addGpu(SandboxPolicy &policy) {
  policy.unixSockets = true;
  for (const char *path :
       {"/proc/driver/nvidia", "/proc/stat", "/proc/devices", "/proc/modules",
        "/proc/sys/vm", "/sys/devices", "/sys/bus", "/sys/class", "/sys/module",
        "/sys/kernel/mm"})
    policy.readable.push_back(path);
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDNN_PATH"})
    if (const char *dir = getenv(variable); dir && *dir == '/')
      policy.readable.push_back(dir);
  policy.writable.push_back("/dev/shm");
  policy.writable.push_back("/proc/self");
  // As the GPU worker does: a descriptor held open keeps the rule on
  // /proc/self matching (the driver names its threads there).
  for (const char *path : {"/proc/self", "/proc/self/task"})
    (void)::open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it("/dev", ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with("nvidia"))
      policy.devices.push_back(it->path());
}

} // namespace

int ptxbench::reference::runReferenceChild(StringRef workdir, StringRef python,
                                           ArrayRef<std::string> searchPath,
                                           StringRef driver, Device device,
                                           uint64_t memoryMB,
                                           unsigned cpuSeconds) {
  if (device == Device::CPU)
    support::setChildMemoryLimit(memoryMB);
  if (cpuSeconds)
    limit(RLIMIT_CPU, cpuSeconds);
  limit(RLIMIT_FSIZE, rlim_t(8) << 30);
  limit(RLIMIT_CORE, 0);
  limit(RLIMIT_NOFILE, 1024);
  if (chdir(workdir.str().c_str()) != 0)
    return failWith(workdir, std::string("cannot change to the temporary "
                                         "folder: ") +
                                 std::strerror(errno));

  auto mode = sandboxModeFromEnvironment();
  if (!mode)
    return failWith(workdir, llvm::toString(mode.takeError()));
  SandboxPolicy policy;
  policy.readable = support::pythonTrees(python);
  for (const std::string &dir : searchPath)
    policy.readable.push_back(dir);
  policy.readable.push_back(driver.str());
  for (std::string &path : systemLibraryPaths())
    policy.readable.push_back(std::move(path));
  for (const char *path : {"/proc/self", "/sys/devices/system/cpu",
                           "/proc/cpuinfo", "/proc/meminfo", "/dev/urandom",
                           "/etc/localtime", "/usr/share/zoneinfo"})
    policy.readable.push_back(path);
  policy.writable = {workdir.str()};
  // Libraries open /dev/null for writing at import (dill).
  policy.devices = {"/dev/null", "/dev/zero", "/dev/urandom"};
  if (device == Device::CUDA)
    addGpu(policy);
  policy.executable = {python.str()};
  if (std::string loader = support::elfInterpreter(python); !loader.empty())
    policy.executable.push_back(loader);
  auto state = applySandbox(policy, *mode);
  if (!state)
    return failWith(workdir, "the reference's sandbox: " +
                                 llvm::toString(state.takeError()));

  std::string home = workdir.str();
  // One thread per core at most: the CPU path is for small shapes, and the
  // machine is shared.
  std::vector<std::string> env = {
      "HOME=" + home,       "TMPDIR=" + home,
      "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
      "OMP_NUM_THREADS=2",  "PTXBENCH_REFERENCE_SANDBOX=" + state->describe()};
  if (const char *visible = getenv("CUDA_VISIBLE_DEVICES"))
    env.push_back(std::string("CUDA_VISIBLE_DEVICES=") + visible);
  std::vector<char *> envp;
  for (std::string &e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = python.str(), script = driver.str();
  std::string request = home + "/request.json", result = home + "/result.json";
  std::string ignoreEnv = "-E", noBytecode = "-B";
  std::vector<char *> argv = {
      exe.data(),    ignoreEnv.data(), noBytecode.data(),
      script.data(), request.data(),   result.data(),
      nullptr};
  execve(exe.c_str(), argv.data(), envp.data());
  return failWith(workdir, "cannot start " + exe + ": " + std::strerror(errno));
}
