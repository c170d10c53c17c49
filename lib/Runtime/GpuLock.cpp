//===- GpuLock.cpp - One worker on a GPU at a time ------------------------===//

#include "ptxbench/Runtime/GpuLock.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace ptxbench::runtime;

namespace {
int openLockFile(StringRef path, std::string &error) {
  std::string p = path.str();
  int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    error = "cannot open the GPU lock " + p + ": " + std::strerror(errno);
  return fd;
}
} // namespace

bool GpuLock::tryAcquire(StringRef path, std::string &error) {
  if (held())
    return true;
  int f = openLockFile(path, error);
  if (f < 0)
    return false;
  if (::flock(f, LOCK_EX | LOCK_NB) != 0) {
    ::close(f);
    return false;
  }
  fd = f;
  return true;
}

bool GpuLock::acquire(StringRef path, const std::function<void()> &waiting,
                      unsigned everyMs, std::string &error) {
  while (!tryAcquire(path, error)) {
    if (!error.empty())
      return false;
    if (waiting)
      waiting();
    std::this_thread::sleep_for(std::chrono::milliseconds(everyMs));
  }
  return true;
}

void GpuLock::release() {
  if (fd >= 0)
    ::close(fd); // closing the file drops the flock
  fd = -1;
}

std::string ptxbench::runtime::gpuLockPath(StringRef id) {
  SmallString<128> dir;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, dir);
  std::string name = "ptxbench-gpu-" + (id.empty() ? std::string("default")
                                                   : id.str());
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-')
      c = '_';
  sys::path::append(dir, name + ".lock");
  return std::string(dir);
}
