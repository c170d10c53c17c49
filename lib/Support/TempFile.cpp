//===- TempFile.cpp - Temporary files and folders removed on scope exit ---===//
//
// Creation goes through llvm::sys::fs (a unique name opened exclusively);
// a write that fails removes what it made, so no half-written file is left
// behind for a later reader.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/TempFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench::support;

Expected<TempFile> TempFile::create(StringRef what, StringRef suffix) {
  SmallString<128> path;
  if (std::error_code ec = sys::fs::createTemporaryFile(
          "ptxbench-" + what.str(), suffix, path))
    return createStringError(ec, "cannot create a temporary file: " +
                                     ec.message());
  return TempFile(path.str().str());
}

Expected<TempFile> TempFile::write(StringRef what, StringRef suffix,
                                   StringRef text) {
  SmallString<128> path;
  int fd;
  if (std::error_code ec = sys::fs::createTemporaryFile(
          "ptxbench-" + what.str(), suffix, fd, path))
    return createStringError(ec, "cannot create a temporary file: " +
                                     ec.message());
  TempFile file(path.str().str());
  raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << text;
  os.close();
  if (os.has_error()) {
    std::error_code ec = os.error();
    os.clear_error();
    return createStringError(ec, "cannot write " + file.path() + ": " +
                                     ec.message());
  }
  return std::move(file);
}

TempFile::TempFile(TempFile &&other) noexcept
    : path_(std::move(other.path_)) {
  other.path_.clear();
}

TempFile &TempFile::operator=(TempFile &&other) noexcept {
  if (this != &other) {
    if (!path_.empty())
      sys::fs::remove(path_);
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TempFile::~TempFile() {
  if (!path_.empty())
    sys::fs::remove(path_);
}

Expected<TempFolder> TempFolder::create(StringRef what, StringRef parent) {
  SmallString<128> prefix(parent);
  sys::path::append(prefix, "ptxbench-" + what);
  SmallString<128> path;
  if (std::error_code ec = sys::fs::createUniqueDirectory(prefix, path))
    return createStringError(ec, "cannot create a temporary folder: " +
                                     ec.message());
  return TempFolder(path.str().str());
}

TempFolder::TempFolder(TempFolder &&other) noexcept
    : path_(std::move(other.path_)) {
  other.path_.clear();
}

TempFolder &TempFolder::operator=(TempFolder &&other) noexcept {
  if (this != &other) {
    if (!path_.empty())
      sys::fs::remove_directories(path_);
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TempFolder::~TempFolder() {
  if (!path_.empty())
    sys::fs::remove_directories(path_);
}
