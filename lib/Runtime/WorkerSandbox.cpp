//===- WorkerSandbox.cpp - The GPU worker confines itself -----------------===//
//
// The worker (`ptxbench run --worker`) sandboxes itself once it has read
// its task and submission and before the CUDA driver starts any thread.
// The driver needs much of the system: its libraries and the toolkit's
// (NVRTC compiles the harness's own kernels here, cuBLASLt and cuDNN are
// the baselines), the GPU's device nodes, the parts of /proc and /sys it
// reads about the machine and itself (and writes of itself: thread
// names), /dev/shm, and AF_UNIX sockets (its daemons). The rest is what this
// run names: the task's folder, the submission and the parent's PTX and
// cubins (read), the harness cache and the GPU's lock file (read and
// write). Not the user's home, the samples' folders or the working folder;
// no network, no new programs: a Python reference is computed by a server
// the worker forked before (Reference/ReferenceServer.h), whose child
// sandboxes itself.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Harness.h"

#include "ptxbench/Runtime/HarnessCache.h"
#include "ptxbench/Support/Sandbox.h"
#include "ptxbench/Toolchain/CudaCompiler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::runtime;

namespace {

/// The device nodes of the NVIDIA driver (/dev/nvidiactl, /dev/nvidia0,
/// /dev/nvidia-uvm, /dev/nvidia-caps/, ...) and the harmless ones.
std::vector<std::string> deviceNodes() {
  std::vector<std::string> nodes = {"/dev/null", "/dev/zero", "/dev/full",
                                    "/dev/random", "/dev/urandom"};
  std::error_code ec;
  for (sys::fs::directory_iterator it("/dev", ec), end; it != end && !ec;
       it.increment(ec))
    if (sys::path::filename(it->path()).starts_with("nvidia"))
      nodes.push_back(it->path());
  return nodes;
}

/// A file that must exist before the sandbox closes (a rule needs it).
void touch(StringRef path) {
  int fd = ::open(path.str().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd >= 0)
    ::close(fd);
}

} // namespace

Expected<SandboxState>
ptxbench::runtime::sandboxWorker(const WorkerOptions &options,
                                 StringRef taskPath) {
  auto mode = sandboxModeFromEnvironment(/*worker=*/true);
  if (!mode)
    return mode.takeError();
  if (*mode == SandboxMode::Off) {
    SandboxState off;
    const char *worker = getenv("PTXBENCH_WORKER_SANDBOX");
    off.missing = std::string("turned off by ") +
                  (worker && StringRef(worker) == "off"
                       ? "PTXBENCH_WORKER_SANDBOX=off"
                       : "PTXBENCH_SANDBOX=off");
    return off;
  }
  SandboxPolicy policy;
  policy.unixSockets = true;
  std::vector<std::string> &read = policy.readable;
  read = systemLibraryPaths();
  for (const char *path : {"/usr", "/proc/driver/nvidia", "/proc/cpuinfo",
                           "/proc/meminfo", "/proc/stat", "/proc/devices",
                           "/proc/modules", "/proc/sys/vm", "/sys/devices",
                           "/sys/bus", "/sys/class", "/sys/module",
                           "/sys/kernel/mm"})
    read.push_back(path);
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDNN_PATH"})
    if (const char *dir = getenv(variable); dir && *dir == '/')
      read.push_back(dir);
  for (std::string &dir : toolchain::toolkitIncludeDirs())
    read.push_back(std::move(dir));
  for (std::string &dir : toolchain::nvrtcLibraryDirs())
    read.push_back(std::move(dir));
  SmallString<256> taskDir(taskPath);
  if (!sys::fs::is_directory(taskDir))
    sys::path::remove_filename(taskDir);
  if (!taskDir.empty())
    read.push_back(std::string(taskDir));
  for (const std::string *file :
       {&options.solutionPath, &options.ptxPath, &options.cubinPath,
        &options.countCubinPath, &options.instrumentedPtxPath})
    if (!file->empty())
      read.push_back(*file);
  // The driver names the threads it starts (writes /proc/self/task/N/comm;
  // refused, cuInit fails with CUDA_ERROR_OPERATING_SYSTEM, seen on the
  // H200 with driver 580). A rule binds the inode of /proc/<pid>, and
  // procfs makes a new inode when it looks the folder up again after its
  // dentry was dropped: a descriptor held open for the process's life keeps
  // the dentry, so the rule keeps matching.
  for (const char *path : {"/proc/self", "/proc/self/task"})
    if (::open(path, O_PATH | O_DIRECTORY | O_CLOEXEC) < 0)
      return createStringError(std::string("cannot open ") + path);
  policy.writable.push_back("/proc/self");
  policy.writable.push_back("/dev/shm");
  if (std::string cache = harnessCacheDir(); !cache.empty()) {
    sys::fs::create_directories(cache);
    policy.writable.push_back(cache);
  }
  if (!options.gpuLock.empty()) {
    touch(options.gpuLock);
    policy.writable.push_back(options.gpuLock);
  }
  policy.devices = deviceNodes();
  return applySandbox(policy, *mode);
}
