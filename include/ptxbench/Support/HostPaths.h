//===- HostPaths.h - This host's folders kept out of what leaves it -*- C++ -*-===//
//
// What a model is sent (feedback) and what the results store keeps names a
// submission's files relative to the submission (`solution.cu:7:60`). The
// places that write those texts name files that way themselves; a
// HostPaths is the last pass over the text, for a message that still
// carries a folder of this host (a child process's error quoting a
// temporary file, a tool's path): each folder it knows, as given, absolute
// and with its links resolved, is taken off the paths below it or replaced
// by a short stand-in.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_SUPPORT_HOSTPATHS_H
#define PTXBENCH_SUPPORT_HOSTPATHS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <utility>
#include <vector>

namespace ptxbench {

class HostPaths {
public:
  /// This host's usual folders: the working folder (paths below it become
  /// relative), $HOME (`~`), and the temporary folder's ptxbench files
  /// (their folder is taken off).
  static HostPaths standard();

  /// `folder/x` becomes `replacement/x` (`x` when `replacement` is empty),
  /// and `folder` alone becomes `replacement` (`.` when empty), for
  /// `folder` as given, made absolute, and with its links resolved.
  void addFolder(llvm::StringRef folder, llvm::StringRef replacement = "");

  /// `text` with every known folder replaced; the longest first.
  std::string operator()(llvm::StringRef text) const;
  /// Every string (and object key) of `value`, replaced in place.
  void apply(llvm::json::Value &value) const;
  /// `json` (a JSON text) with its strings replaced; `json` itself when it
  /// names no known folder or does not parse.
  std::string applyToJSON(llvm::StringRef json) const;

private:
  /// (folder without a trailing '/', replacement), longest folder first.
  std::vector<std::pair<std::string, std::string>> folders;
  /// Text after which what follows is a file's name in the temporary
  /// folder ("/tmp/ptxbench-"), and what it becomes ("ptxbench-").
  std::vector<std::pair<std::string, std::string>> prefixes;
};

} // namespace ptxbench

#endif // PTXBENCH_SUPPORT_HOSTPATHS_H
