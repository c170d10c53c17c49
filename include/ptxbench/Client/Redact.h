//===- Redact.h - Keys kept out of everything written ------------*- C++
//-*-===//
//
// A Redactor knows the keys of a run and replaces them in any text about to
// be written (answers, errors, request and generation records) with
// `[redacted]`. Not only the exact key: a server or a model may echo part of
// it, in another case, or encoded, so every run of 12 or more of its
// characters (ASCII case ignored) is replaced, and so is every such run of
// its base64 forms (both alphabets, at each of the three byte alignments a
// key can have inside a longer encoded text) and of its percent-encoded
// form. A key shorter than 12 characters is replaced whole.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CLIENT_REDACT_H
#define PTXBENCH_CLIENT_REDACT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace ptxbench::client {

class Redactor {
public:
  /// The shortest part of a key that is replaced.
  static constexpr size_t minRun = 12;

  /// Adds `secret` and its encoded forms; secrets shorter than 4
  /// characters are ignored (they would match everywhere).
  void add(llvm::StringRef secret);
  /// `text` with every run of a secret's form replaced.
  std::string operator()(llvm::StringRef text) const;
  /// Every string (and object key) in `value`, redacted in place.
  void apply(llvm::json::Value &value) const;

private:
  void addForm(std::string form);

  /// Lower-cased forms; windows of `minRun` characters (or the whole form
  /// when shorter) are looked up by hash.
  std::vector<std::string> forms;
  struct Window {
    size_t form, offset, length;
  };
  std::unordered_map<uint64_t, std::vector<Window>> windows;
  /// The window lengths in use (minRun, and shorter forms' lengths).
  std::vector<size_t> lengths;
};

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_REDACT_H
