//===- JSON.h - Reading untrusted JSON text within limits -------*- C++ -*-===//
//
// Every JSON document ptxbench reads comes from someone else: a model server
// (whole bodies and SSE events), a task file, a solutions manifest, a models
// file, a run result or a stored row. llvm::json::parse recurses once per
// nesting level and so does every walk over its result, so a document nested
// a few thousand levels deep overflows the stack. parseJSON() refuses, before
// parsing, a text over the size limit or nested past the depth limit, and
// reports the mistakes a person makes and llvm::json cannot name: a UTF-8
// byte-order mark, and a key given twice in one object (which llvm::json
// keeps silently, the last one winning).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_SUPPORT_JSON_H
#define PTXBENCH_SUPPORT_JSON_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstddef>
#include <string>

namespace ptxbench {

struct JSONLimits {
  /// Arrays and objects inside each other; deeper is refused.
  unsigned maxDepth = 100;
  /// The size of the text in bytes; larger is refused.
  size_t maxBytes = size_t(64) << 20;
};

/// Why a JSON text was refused: where (1-based line and column, 0 when the
/// problem is the whole text) and what; for a duplicate key, also its JSON
/// path (`workloads[1].name`).
class JSONError : public llvm::ErrorInfo<JSONError> {
public:
  static char ID;

  enum class Kind { Syntax, Size, Depth, ByteOrderMark, DuplicateKey };

  JSONError(Kind kind, unsigned line, unsigned column, std::string path,
            std::string message)
      : kind(kind), line(line), column(column), path(std::move(path)),
        message(std::move(message)) {}

  Kind kind;
  unsigned line, column;
  std::string path;
  std::string message;

  /// "line:col: path: message", without the parts that are not known.
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
};

/// `error`, from parseJSON() on the text of `file`, as a message that names
/// the place: "file:line:col: path: message" without the parts that are not
/// known (the path is a duplicate key's). Other errors are "file: " and their
/// text.
std::string describeJSONError(llvm::Error error, llvm::StringRef file);

/// Parses `text` as JSON within `limits`. The error is a JSONError: a syntax
/// error as llvm::json words it, the size or the depth past the limits, a
/// byte-order mark, or the first duplicate key (with the place of the first
/// one in its message).
llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef text,
                                            const JSONLimits &limits = {});

} // namespace ptxbench

#endif // PTXBENCH_SUPPORT_JSON_H
