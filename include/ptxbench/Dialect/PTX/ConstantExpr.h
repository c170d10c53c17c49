//===- ConstantExpr.h - PTX constant expressions ----------------*- C++ -*-===//
//
// The constant expressions PTX allows wherever it takes a number: C's
// operators over 64-bit integers (signed or unsigned by the PTX ISA's typing
// rules) and over doubles, the `(.s64)`/`(.u64)` casts, and the predefined
// constant `WARP_SZ`. The importer uses it to find where an expression ends
// and what it is worth; analyses use it to read an immediate kept as written.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_CONSTANTEXPR_H
#define PTXBENCH_DIALECT_PTX_CONSTANTEXPR_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ptxbench::ptx {

/// How deep parentheses, unary operators, casts and `?:` may nest in one
/// expression; deeper is Invalid (a stack overflow otherwise).
constexpr unsigned kMaxConstantExprDepth = 256;

/// The value of a constant expression: a 64-bit integer, typed `.s64` or
/// `.u64`, or a double.
struct ConstantValue {
  enum class Type { S64, U64, F64 };
  Type type = Type::S64;
  uint64_t bits = 0; // the integer, two's complement
  double real = 0;

  bool isInteger() const { return type != Type::F64; }
  int64_t asSigned() const { return static_cast<int64_t>(bits); }
};

/// The outcome of parsing the expression at the start of a text.
struct ConstantExprResult {
  enum class Kind {
    Ok,
    /// The text does not start a constant expression (it starts with a
    /// register, a name or punctuation no expression starts with): nothing
    /// was consumed, and the caller may read it some other way.
    NotConstant,
    /// The text starts a constant expression that is malformed or cannot
    /// be evaluated (a missing operand, division by zero, mixed integer and
    /// floating-point operands); `message` says which.
    Invalid,
  };
  Kind kind = Kind::NotConstant;
  ConstantValue value;
  /// With Ok: the characters the expression spans, from the start of the
  /// text (leading blanks included, trailing blanks not). Otherwise: where
  /// the problem is.
  size_t length = 0;
  std::string message;

  bool ok() const { return kind == Kind::Ok; }
};

/// Parses and evaluates the longest constant expression at the start of
/// `text`. Blanks and comments may appear between tokens. The expression
/// ends before the first token that cannot continue it (`,`, `;`, `]`, an
/// unmatched `)`, a name, ...).
ConstantExprResult parseConstantExpr(llvm::StringRef text);

/// The integer value of `text` when the whole of it is an integer constant
/// expression (`42`, `-1`, `0x1F`, `((128 >> 4) << 16)`, `WARP_SZ*2`).
std::optional<int64_t> evaluateIntegerExpr(llvm::StringRef text);

} // namespace ptxbench::ptx

#endif // PTXBENCH_DIALECT_PTX_CONSTANTEXPR_H
