//===- HarnessCache.cpp - Files the harness reuses between runs ----------===//

#include "ptxbench/Runtime/HarnessCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;

std::string ptxbench::runtime::harnessCacheDir() {
  SmallString<256> dir;
  if (const char *c = getenv("PTXBENCH_CACHE"); c && *c)
    return c;
  if (const char *x = getenv("XDG_CACHE_HOME"); x && *x) {
    dir = x;
  } else if (const char *h = getenv("HOME"); h && *h) {
    dir = h;
    sys::path::append(dir, ".cache");
  } else {
    return "";
  }
  sys::path::append(dir, "ptxbench");
  return std::string(dir);
}

std::string ptxbench::runtime::cacheKey(ArrayRef<StringRef> parts) {
  SHA256 hash;
  for (StringRef part : parts) {
    uint64_t size = part.size();
    hash.update(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&size),
                                  sizeof(size)));
    hash.update(arrayRefFromStringRef(part));
  }
  return toHex(hash.final(), /*LowerCase=*/true);
}

std::optional<std::string> ptxbench::runtime::readCached(StringRef name) {
  std::string dir = harnessCacheDir();
  if (dir.empty() || name.contains('/'))
    return std::nullopt;
  SmallString<256> path(dir);
  sys::path::append(path, name);
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

bool ptxbench::runtime::writeCached(StringRef name, StringRef bytes,
                                    std::string *error) {
  auto fail = [&](const Twine &why) {
    if (error)
      *error = why.str();
    return false;
  };
  std::string dir = harnessCacheDir();
  if (dir.empty())
    return fail("no cache folder (no HOME)");
  if (name.contains('/'))
    return fail("a cache file name has no folder");
  if (std::error_code ec = sys::fs::create_directories(dir))
    return fail("cannot create " + dir + ": " + ec.message());
  SmallString<256> path(dir), temp;
  sys::path::append(path, name);
  int fd;
  if (std::error_code ec = sys::fs::createUniqueFile(path + ".%%%%%%.tmp", fd,
                                                     temp))
    return fail("cannot write in " + dir + ": " + ec.message());
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    if (os.has_error()) {
      os.clear_error();
      sys::fs::remove(temp);
      return fail("cannot write " + temp.str());
    }
  }
  if (std::error_code ec = sys::fs::rename(temp, path)) {
    sys::fs::remove(temp);
    return fail("cannot rename " + temp.str() + ": " + ec.message());
  }
  return true;
}
