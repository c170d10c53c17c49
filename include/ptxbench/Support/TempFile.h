//===- TempFile.h - Temporary files removed with their owner ----*- C++ -*-===//
//
// A file or folder in the system's temporary folder, named
// "ptxbench-<what>-XXXXXX.<suffix>", that exists as long as its owner.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_SUPPORT_TEMPFILE_H
#define PTXBENCH_SUPPORT_TEMPFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ptxbench::support {

/// A temporary file; removed when its owner goes away. Movable, not
/// copyable.
class TempFile {
public:
  /// An empty file "ptxbench-<what>-*.<suffix>".
  static llvm::Expected<TempFile> create(llvm::StringRef what,
                                         llvm::StringRef suffix);
  /// A file holding `text`.
  static llvm::Expected<TempFile> write(llvm::StringRef what,
                                        llvm::StringRef suffix,
                                        llvm::StringRef text);

  TempFile() = default;
  TempFile(TempFile &&other) noexcept;
  TempFile &operator=(TempFile &&other) noexcept;
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;
  ~TempFile();

  /// Empty for a default-constructed or moved-from file.
  const std::string &path() const { return path_; }
  explicit operator bool() const { return !path_.empty(); }

private:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

/// A temporary folder; removed with everything in it when its owner goes
/// away.
class TempFolder {
public:
  /// "ptxbench-<what>-*" in `parent`, or in the system's temporary folder
  /// when `parent` is empty.
  static llvm::Expected<TempFolder> create(llvm::StringRef what,
                                           llvm::StringRef parent = "");

  TempFolder() = default;
  TempFolder(TempFolder &&other) noexcept;
  TempFolder &operator=(TempFolder &&other) noexcept;
  TempFolder(const TempFolder &) = delete;
  TempFolder &operator=(const TempFolder &) = delete;
  ~TempFolder();

  const std::string &path() const { return path_; }
  explicit operator bool() const { return !path_.empty(); }

private:
  explicit TempFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

} // namespace ptxbench::support

#endif // PTXBENCH_SUPPORT_TEMPFILE_H
