//===- ConstantExpr.cpp - PTX constant expressions ------------------------===//
//
// A precedence-climbing parser that evaluates as it goes, by the PTX ISA's
// rules for constant expressions: literals are `.s64` unless they carry a
// `U` suffix or need 64 unsigned bits; `+ - * / & | ^` and the comparisons
// convert both operands to `.u64` when either is unsigned; `%` and `~` read
// their operands as unsigned; shifts keep the type of their left operand;
// `! && || == != < <= > >=` give a signed 0 or 1. Floating-point operands
// take `+ - * /`, comparisons and `?:` only, and never mix with integers.
// Integer arithmetic wraps and shift counts are taken modulo 64, as ptxas
// does; division by zero is an error even where `?:`, `&&` or `||` would
// not evaluate it, as in ptxas.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/ConstantExpr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cstdlib>
#include <cstring>

using namespace ptxbench::ptx;
using llvm::StringRef;

namespace {

using Type = ConstantValue::Type;

ConstantValue integer(Type type, uint64_t bits) {
  ConstantValue v;
  v.type = type;
  v.bits = bits;
  return v;
}

ConstantValue boolean(bool value) { return integer(Type::S64, value ? 1 : 0); }

bool isWordChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/// Binary operators by precedence level, loosest first (C's order).
constexpr const char *const levels[][4] = {
    {"||"},       {"&&"},       {"|"},        {"^"},
    {"&"},        {"==", "!="}, {"<=", ">=", "<", ">"},
    {"<<", ">>"}, {"+", "-"},   {"*", "/", "%"},
};
constexpr unsigned numLevels = sizeof(levels) / sizeof(levels[0]);

class Parser {
public:
  explicit Parser(StringRef text) : text(text) {}

  ConstantExprResult run() {
    ConstantExprResult result;
    std::optional<ConstantValue> value = parseConditional();
    if (!value) {
      result.kind = sawLeaf || tooDeep ? ConstantExprResult::Kind::Invalid
                                       : ConstantExprResult::Kind::NotConstant;
      result.length = errorPos;
      result.message = message;
      return result;
    }
    result.kind = ConstantExprResult::Kind::Ok;
    result.value = *value;
    result.length = lastEnd;
    return result;
  }

private:
  //===------------------------------------------------------------------===//
  // Characters
  //===------------------------------------------------------------------===//

  void skipBlanks() {
    while (pos < text.size()) {
      char c = text[pos];
      if (llvm::isSpace(c)) {
        ++pos;
      } else if (text.substr(pos).starts_with("//")) {
        while (pos < text.size() && text[pos] != '\n')
          ++pos;
      } else if (text.substr(pos).starts_with("/*")) {
        size_t close = text.find("*/", pos + 2);
        pos = close == StringRef::npos ? text.size() : close + 2;
      } else {
        return;
      }
    }
  }
  char peek() {
    skipBlanks();
    return pos < text.size() ? text[pos] : '\0';
  }
  /// Consumes `op` when it comes next as a whole operator (`<` is not the
  /// start of `<<` or `<=`, `%` is not the start of a register name).
  bool consumeOperator(StringRef op) {
    skipBlanks();
    StringRef rest = text.substr(pos);
    if (!rest.starts_with(op))
      return false;
    char after = rest.size() > op.size() ? rest[op.size()] : '\0';
    if (op.size() == 1) {
      char c = op[0];
      if ((c == '<' || c == '>') && (after == c || after == '='))
        return false;
      if ((c == '&' || c == '|') && after == c)
        return false;
      if (c == '!' && after == '=')
        return false;
      if (c == '%' && (llvm::isAlpha(after) || after == '_' || after == '$'))
        return false;
    }
    pos += op.size();
    lastEnd = pos;
    return true;
  }

  std::nullopt_t fail(size_t at, const std::string &why) {
    if (message.empty()) {
      errorPos = at;
      message = why;
    }
    return std::nullopt;
  }

  /// Runs `parse` one level deeper: a parenthesis, a unary operator, a
  /// cast or a branch of `?:`. Past kMaxConstantExprDepth it fails instead.
  template <typename Fn> std::optional<ConstantValue> nested(Fn parse) {
    if (depth >= kMaxConstantExprDepth) {
      tooDeep = true;
      return fail(pos, "the expression nests deeper than " +
                           std::to_string(kMaxConstantExprDepth) +
                           " levels (parentheses, unary operators, casts "
                           "and '?:')");
    }
    ++depth;
    std::optional<ConstantValue> v = parse();
    --depth;
    return v;
  }

  //===------------------------------------------------------------------===//
  // Grammar
  //===------------------------------------------------------------------===//

  std::optional<ConstantValue> parseConditional() {
    std::optional<ConstantValue> cond = parseBinary(0);
    if (!cond)
      return std::nullopt;
    size_t at = pos;
    if (!consumeOperator("?"))
      return cond;
    if (!cond->isInteger())
      return fail(at, "the condition of '?:' must be an integer");
    bool pick = cond->bits != 0;
    auto branch = [&] { return parseConditional(); };
    std::optional<ConstantValue> a = nested(branch);
    if (!a)
      return std::nullopt;
    if (!consumeOperator(":"))
      return fail(pos, "expected ':' in a conditional expression");
    std::optional<ConstantValue> b = nested(branch);
    if (!b)
      return std::nullopt;
    if (!convert(*a, *b, at))
      return std::nullopt;
    return pick ? a : b;
  }

  std::optional<ConstantValue> parseBinary(unsigned level) {
    if (level == numLevels)
      return parseUnary();
    std::optional<ConstantValue> lhs = parseBinary(level + 1);
    if (!lhs)
      return std::nullopt;
    for (;;) {
      size_t at = pos;
      StringRef op;
      for (const char *candidate : levels[level])
        if (candidate && consumeOperator(candidate)) {
          op = candidate;
          break;
        }
      if (op.empty())
        return lhs;
      std::optional<ConstantValue> rhs = parseBinary(level + 1);
      if (!rhs)
        return std::nullopt;
      lhs = apply(op, *lhs, *rhs, at);
      if (!lhs)
        return std::nullopt;
    }
  }

  std::optional<ConstantValue> parseUnary() {
    size_t at = pos;
    for (StringRef op : {"-", "+", "!", "~"}) {
      if (!consumeOperator(op))
        continue;
      std::optional<ConstantValue> v = nested([&] { return parseUnary(); });
      if (!v)
        return std::nullopt;
      if (op == "+")
        return v;
      if (op == "-") {
        if (!v->isInteger()) {
          v->real = -v->real;
          return v;
        }
        v->bits = 0 - v->bits;
        return v;
      }
      if (!v->isInteger())
        return fail(at, "'" + op.str() + "' needs an integer operand");
      if (op == "!")
        return boolean(v->bits == 0);
      return integer(Type::U64, ~v->bits);
    }
    // (.s64) and (.u64) casts.
    skipBlanks();
    size_t save = pos;
    if (consumeOperator("(")) {
      skipBlanks();
      StringRef rest = text.substr(pos);
      Type type = Type::S64;
      bool isCast = false;
      if (rest.starts_with(".s64") || rest.starts_with(".u64")) {
        type = rest[1] == 's' ? Type::S64 : Type::U64;
        pos += 4;
        isCast = consumeOperator(")");
      }
      if (isCast) {
        std::optional<ConstantValue> v = nested([&] { return parseUnary(); });
        if (!v)
          return std::nullopt;
        if (!v->isInteger())
          return fail(at, "a cast to an integer type needs an integer operand");
        v->type = type;
        return v;
      }
      pos = save;
    }
    return parsePrimary();
  }

  std::optional<ConstantValue> parsePrimary() {
    char c = peek();
    size_t at = pos;
    if (consumeOperator("(")) {
      std::optional<ConstantValue> v =
          nested([&] { return parseConditional(); });
      if (!v)
        return std::nullopt;
      if (!consumeOperator(")"))
        return fail(pos, "expected ')' in a constant expression");
      return v;
    }
    if (llvm::isDigit(c))
      return parseLiteral();
    StringRef rest = text.substr(pos);
    if (rest.starts_with("WARP_SZ") &&
        (rest.size() == 7 || !isWordChar(rest[7]))) {
      sawLeaf = true;
      pos += 7;
      lastEnd = pos;
      return integer(Type::S64, 32);
    }
    return fail(at, pos < text.size() ? "expected a constant"
                                      : "expected a constant, found the end");
  }

  std::optional<ConstantValue> parseLiteral() {
    size_t start = pos;
    bool hex = text.substr(pos).starts_with_insensitive("0x") ||
               text.substr(pos).starts_with_insensitive("0f") ||
               text.substr(pos).starts_with_insensitive("0d") ||
               text.substr(pos).starts_with_insensitive("0b");
    ++pos;
    while (pos < text.size()) {
      char c = text[pos];
      if (llvm::isAlnum(c) || c == '.')
        ++pos;
      else if ((c == '-' || c == '+') && !hex &&
               (text[pos - 1] == 'e' || text[pos - 1] == 'E'))
        ++pos;
      else
        break;
    }
    sawLeaf = true;
    lastEnd = pos;
    StringRef lit = text.slice(start, pos);
    auto bad = [&] {
      return fail(start, "malformed number '" + lit.str() + "'");
    };
    // 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX: IEEE bit patterns.
    if (lit.size() > 1 && (lit[1] == 'f' || lit[1] == 'F' || lit[1] == 'd' ||
                           lit[1] == 'D')) {
      bool single = lit[1] == 'f' || lit[1] == 'F';
      StringRef digits = lit.drop_front(2);
      uint64_t bits = 0;
      if (digits.size() != (single ? 8u : 16u) ||
          digits.getAsInteger(16, bits))
        return bad();
      ConstantValue v;
      v.type = Type::F64;
      if (single) {
        uint32_t b32 = static_cast<uint32_t>(bits);
        float f;
        std::memcpy(&f, &b32, sizeof f);
        v.real = f;
      } else {
        std::memcpy(&v.real, &bits, sizeof v.real);
      }
      return v;
    }
    bool isHexOrBinary = lit.size() > 1 && lit[0] == '0' &&
                         (lit[1] == 'x' || lit[1] == 'X' || lit[1] == 'b' ||
                          lit[1] == 'B');
    if (!isHexOrBinary && lit.find_first_of(".eE") != StringRef::npos) {
      std::string copy = lit.str();
      char *end = nullptr;
      ConstantValue v;
      v.type = Type::F64;
      v.real = std::strtod(copy.c_str(), &end);
      if (end != copy.c_str() + copy.size())
        return bad();
      return v;
    }
    bool isUnsigned = lit.consume_back("U");
    unsigned radix = 10;
    if (isHexOrBinary) {
      radix = lit[1] == 'x' || lit[1] == 'X' ? 16 : 2;
      lit = lit.drop_front(2);
    } else if (lit.size() > 1 && lit[0] == '0') {
      radix = 8;
      lit = lit.drop_front();
    }
    if (lit.empty())
      return bad();
    uint64_t value = 0;
    for (char c : lit) {
      unsigned digit = llvm::isDigit(c) ? c - '0'
                       : llvm::isHexDigit(c)
                           ? llvm::hexDigitValue(c)
                           : 99;
      if (digit >= radix)
        return bad();
      if (__builtin_mul_overflow(value, radix, &value) ||
          __builtin_add_overflow(value, digit, &value))
        return fail(start, "the number '" + text.slice(start, pos).str() +
                               "' does not fit in 64 bits");
    }
    // A literal is unsigned when it says so or needs the 64th bit.
    return integer(isUnsigned || value > uint64_t(INT64_MAX) ? Type::U64
                                                             : Type::S64,
                   value);
  }

  //===------------------------------------------------------------------===//
  // Evaluation
  //===------------------------------------------------------------------===//

  /// The usual arithmetic conversions: both unsigned when either is, and
  /// never integer with floating point.
  bool convert(ConstantValue &a, ConstantValue &b, size_t at) {
    if (a.isInteger() != b.isInteger()) {
      fail(at, "the operands mix integer and floating-point values (PTX "
               "constant expressions have no conversions between them)");
      return false;
    }
    if (a.type == Type::U64 || b.type == Type::U64)
      a.type = b.type = Type::U64;
    return true;
  }

  std::optional<ConstantValue> apply(StringRef op, ConstantValue a,
                                     ConstantValue b, size_t at) {
    bool shift = op == "<<" || op == ">>";
    if (!shift && !convert(a, b, at))
      return std::nullopt;
    if (!a.isInteger() || !b.isInteger()) {
      if (shift || op == "%" || op == "&" || op == "|" || op == "^" ||
          op == "&&" || op == "||")
        return fail(at, "'" + op.str() + "' needs integer operands");
      ConstantValue r;
      r.type = Type::F64;
      if (op == "+")
        r.real = a.real + b.real;
      else if (op == "-")
        r.real = a.real - b.real;
      else if (op == "*")
        r.real = a.real * b.real;
      else if (op == "/")
        r.real = a.real / b.real;
      else
        return boolean(compare(op, a.real < b.real, a.real == b.real));
      return r;
    }
    bool isSigned = a.type == Type::S64;
    int64_t sa = a.asSigned(), sb = b.asSigned();
    if (op == "+")
      return integer(a.type, a.bits + b.bits);
    if (op == "-")
      return integer(a.type, a.bits - b.bits);
    if (op == "*")
      return integer(a.type, a.bits * b.bits);
    if (op == "/" || op == "%") {
      if (b.bits == 0)
        return fail(at, "division by zero");
      if (op == "%")
        return integer(Type::U64, a.bits % b.bits);
      if (!isSigned)
        return integer(a.type, a.bits / b.bits);
      if (sa == INT64_MIN && sb == -1) // wraps, as the rest does
        return integer(a.type, a.bits);
      return integer(a.type, static_cast<uint64_t>(sa / sb));
    }
    if (shift) {
      uint64_t count = b.bits & 63;
      if (op == "<<")
        return integer(a.type, a.bits << count);
      if (a.type == Type::U64)
        return integer(a.type, a.bits >> count);
      return integer(a.type, static_cast<uint64_t>(a.asSigned() >> count));
    }
    if (op == "&")
      return integer(a.type, a.bits & b.bits);
    if (op == "|")
      return integer(a.type, a.bits | b.bits);
    if (op == "^")
      return integer(a.type, a.bits ^ b.bits);
    if (op == "&&")
      return boolean(a.bits != 0 && b.bits != 0);
    if (op == "||")
      return boolean(a.bits != 0 || b.bits != 0);
    bool less = isSigned ? sa < sb : a.bits < b.bits;
    return boolean(compare(op, less, a.bits == b.bits));
  }

  static bool compare(StringRef op, bool less, bool equal) {
    return llvm::StringSwitch<bool>(op)
        .Case("==", equal)
        .Case("!=", !equal)
        .Case("<", less)
        .Case("<=", less || equal)
        .Case(">", !less && !equal)
        .Default(!less); // >=
  }

  StringRef text;
  size_t pos = 0;
  /// The end of the last token consumed.
  size_t lastEnd = 0;
  /// Whether a number or WARP_SZ has been read: a failure before the first
  /// one means the text is not a constant expression at all.
  bool sawLeaf = false;
  /// Constructs open around the one being parsed, and whether that went
  /// past the limit (the text is then refused even without a number yet).
  unsigned depth = 0;
  bool tooDeep = false;
  size_t errorPos = 0;
  std::string message;
};

} // namespace

ConstantExprResult ptxbench::ptx::parseConstantExpr(StringRef text) {
  return Parser(text).run();
}

std::optional<int64_t> ptxbench::ptx::evaluateIntegerExpr(StringRef text) {
  ConstantExprResult result = parseConstantExpr(text);
  if (!result.ok() || !result.value.isInteger() ||
      !text.drop_front(result.length).trim().empty())
    return std::nullopt;
  return result.value.asSigned();
}
