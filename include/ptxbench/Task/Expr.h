//===- Expr.h - Integer expressions over shape parameters --*- C++ -*-===//
//
// Launch plans and task files write sizes as integer expressions over the
// task's shape parameters (M, N, K, ...): integer literals, names, + - * / %,
// unary minus, parentheses and the functions ceildiv(a, b), min(a, b, ...)
// and max(a, b, ...). Arithmetic is on 64-bit signed integers; division and
// % truncate toward zero as in C; overflow, division by zero and unknown
// names are errors that name the file, line and column of the offending
// subexpression.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TASK_EXPR_H
#define PTXBENCH_TASK_EXPR_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptxbench::runtime {

/// How deep an expression may nest: parentheses, calls, unary signs, and
/// operators chained left to right each add a level. Deeper is an error.
constexpr unsigned kMaxExprDepth = 100;
/// The longest expression text: a size is a short formula. Every term is a
/// tree node and every node keeps its subexpression's text, so a long
/// expression costs far more memory than its bytes.
constexpr size_t kMaxExprBytes = 4096;

/// A place in a user's file. Line and column are 1-based; 0 means unknown.
struct SourceLoc {
  std::string file;
  unsigned line = 0;
  unsigned col = 0;

  SourceLoc withCol(unsigned c) const { return {file, line, c}; }
  /// "file:line:col", "file:line" or "file", as far as known.
  std::string str() const;
};

/// An error "file:line:col: error: message".
llvm::Error makeError(const SourceLoc &loc, const llvm::Twine &message);

/// Values of the names an expression may use.
using Bindings = llvm::StringMap<int64_t>;

/// A parsed expression. Cheap to copy (shares its tree).
class Expr {
public:
  enum class Kind {
    Int,
    Name,
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    CeilDiv,
    Min,
    Max
  };

  Expr() = default;
  /// A literal that came from no file (defaults such as "1").
  static Expr constant(int64_t value);

  /// Parses `text`, which starts at `loc` (its column is that of text[0]).
  static llvm::Expected<Expr> parse(llvm::StringRef text, const SourceLoc &loc);

  /// Evaluates; errors name the subexpression's location.
  llvm::Expected<int64_t> evaluate(const Bindings &bindings) const;

  bool isNull() const { return !node; }
  /// The text the expression was parsed from.
  llvm::StringRef text() const;
  const SourceLoc &loc() const;
  /// The names the expression uses, in order of first use.
  std::vector<std::string> names() const;
  /// The expression's tree in a fully parenthesized prefix form that does
  /// not depend on spacing or redundant parentheses (`(ceildiv T 8)`): two
  /// expressions with the same canonical form compute the same thing.
  std::string canonical() const;

  struct Node;

private:
  std::shared_ptr<const Node> node;
  std::shared_ptr<const std::string> source;
  friend class ExprParser;
};

} // namespace ptxbench::runtime

#endif // PTXBENCH_TASK_EXPR_H
