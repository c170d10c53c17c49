//===- Expr.cpp - Integer expressions over shape parameters ---------------===//
//
// A recursive-descent parser (usual C precedence: unary minus binds tightest,
// then * / %, then + -, all left-associative) and a checked evaluator. The
// parser, the evaluator and the tree's destructor recurse, so nesting and
// the tree's height are limited (kMaxExprDepth) with an error at the place.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Task/Expr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench::runtime;

std::string SourceLoc::str() const {
  std::string s = file.empty() ? "<input>" : file;
  if (line)
    s += ":" + std::to_string(line);
  if (line && col)
    s += ":" + std::to_string(col);
  return s;
}

Error ptxbench::runtime::makeError(const SourceLoc &loc, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           loc.str() + ": error: " + message.str());
}

struct Expr::Node {
  Kind kind;
  /// The longest path to a leaf: evaluating and freeing recurse this deep.
  unsigned height = 1;
  int64_t value = 0;
  std::string name;
  std::vector<std::shared_ptr<const Node>> operands;
  SourceLoc loc;
  std::string text; // the whole subexpression, for messages
};

namespace ptxbench::runtime {

class ExprParser {
public:
  ExprParser(StringRef text, const SourceLoc &loc) : text(text), loc(loc) {}

  Expected<std::shared_ptr<const Expr::Node>> parseAll() {
    auto e = parseSum();
    if (!e)
      return e.takeError();
    skipSpace();
    if (pos != text.size())
      return error(pos,
                   "unexpected '" + text.substr(pos, 1) + "' after expression");
    return e;
  }

private:
  using NodeP = std::shared_ptr<const Expr::Node>;
  StringRef text;
  SourceLoc loc;
  size_t pos = 0;
  unsigned depth = 0;

  SourceLoc at(size_t p) const { return loc.withCol(loc.col + p); }
  Error error(size_t p, const Twine &message) const {
    return makeError(at(p), message);
  }
  void skipSpace() {
    while (pos < text.size() && isSpace(text[pos]))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  /// A node over `operands`; past kMaxExprDepth levels (a chain such as
  /// `1+1+...+1` is as deep as it is long), an error.
  Expected<NodeP> make(Expr::Kind kind, size_t start,
                       std::vector<NodeP> operands) {
    unsigned height = 1;
    for (const NodeP &op : operands)
      height = std::max(height, op->height + 1);
    if (height > kMaxExprDepth)
      return tooDeep(start);
    auto n = std::make_shared<Expr::Node>();
    n->kind = kind;
    n->height = height;
    n->operands = std::move(operands);
    n->loc = at(start);
    n->text = text.slice(start, pos).trim().str();
    return n;
  }
  Error tooDeep(size_t p) const {
    return error(p, "expression nested deeper than " + Twine(kMaxExprDepth) +
                        " levels (each parenthesis, call, unary sign and "
                        "operator in a chain is one)");
  }
  /// Runs `parse` one level deeper (inside a parenthesis, a call or a unary
  /// sign), refused past kMaxExprDepth.
  template <typename Fn> Expected<NodeP> nested(size_t start, Fn parse) {
    if (depth >= kMaxExprDepth)
      return tooDeep(start);
    ++depth;
    Expected<NodeP> node = parse();
    --depth;
    return node;
  }

  Expected<NodeP> parseSum() {
    skipSpace();
    size_t start = pos;
    auto lhs = parseProduct();
    if (!lhs)
      return lhs;
    while (true) {
      skipSpace();
      if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-'))
        return lhs;
      char op = text[pos++];
      auto rhs = parseProduct();
      if (!rhs)
        return rhs;
      lhs = make(op == '+' ? Expr::Kind::Add : Expr::Kind::Sub, start,
                 {*lhs, *rhs});
      if (!lhs)
        return lhs;
    }
  }

  Expected<NodeP> parseProduct() {
    skipSpace();
    size_t start = pos;
    auto lhs = parseUnary();
    if (!lhs)
      return lhs;
    while (true) {
      skipSpace();
      if (pos >= text.size() ||
          (text[pos] != '*' && text[pos] != '/' && text[pos] != '%'))
        return lhs;
      char op = text[pos++];
      auto rhs = parseUnary();
      if (!rhs)
        return rhs;
      Expr::Kind kind = op == '*'   ? Expr::Kind::Mul
                        : op == '/' ? Expr::Kind::Div
                                    : Expr::Kind::Mod;
      lhs = make(kind, start, {*lhs, *rhs});
      if (!lhs)
        return lhs;
    }
  }

  Expected<NodeP> parseUnary() {
    skipSpace();
    size_t start = pos;
    auto unary = [&] { return parseUnary(); };
    if (consume('-')) {
      auto operand = nested(start, unary);
      if (!operand)
        return operand;
      return make(Expr::Kind::Neg, start, {*operand});
    }
    if (consume('+'))
      return nested(start, unary);
    return parsePrimary();
  }

  Expected<NodeP> parsePrimary() {
    skipSpace();
    size_t start = pos;
    if (pos >= text.size())
      return error(pos, text.empty() ? Twine("expected an expression")
                                     : Twine("expression ends early"));
    char c = text[pos];
    if (c == '(') {
      ++pos;
      auto inner = nested(start, [&] { return parseSum(); });
      if (!inner)
        return inner;
      if (!consume(')'))
        return error(pos, "expected ')'");
      return inner;
    }
    if (isDigit(c)) {
      while (pos < text.size() && isAlnum(text[pos]))
        ++pos;
      StringRef digits = text.slice(start, pos);
      uint64_t value;
      if (digits.getAsInteger(10, value) || value > uint64_t(INT64_MAX))
        return error(start, "bad integer literal '" + digits + "'");
      auto n = make(Expr::Kind::Int, start, {});
      if (n)
        const_cast<Expr::Node &>(**n).value = int64_t(value);
      return n;
    }
    if (isAlpha(c) || c == '_') {
      while (pos < text.size() && (isAlnum(text[pos]) || text[pos] == '_'))
        ++pos;
      StringRef ident = text.slice(start, pos);
      skipSpace();
      if (pos < text.size() && text[pos] == '(')
        return parseCall(ident, start);
      auto n = make(Expr::Kind::Name, start, {});
      if (n)
        const_cast<Expr::Node &>(**n).name = ident.str();
      return n;
    }
    return error(pos, "unexpected '" + text.substr(pos, 1) +
                          "'; expected a number, a name or '('");
  }

  Expected<NodeP> parseCall(StringRef fn, size_t start) {
    Expr::Kind kind;
    if (fn == "ceildiv")
      kind = Expr::Kind::CeilDiv;
    else if (fn == "min")
      kind = Expr::Kind::Min;
    else if (fn == "max")
      kind = Expr::Kind::Max;
    else
      return error(start,
                   "unknown function '" + fn + "' (known: ceildiv, min, max)");
    ++pos; // '('
    std::vector<NodeP> args;
    do {
      auto arg = nested(start, [&] { return parseSum(); });
      if (!arg)
        return arg;
      args.push_back(*arg);
    } while (consume(','));
    if (!consume(')'))
      return error(pos, "expected ',' or ')' in call of '" + fn + "'");
    if (kind == Expr::Kind::CeilDiv && args.size() != 2)
      return error(start,
                   "ceildiv takes 2 arguments, got " + Twine(args.size()));
    if (kind != Expr::Kind::CeilDiv && args.size() < 2)
      return error(start, fn + " takes at least 2 arguments");
    return make(kind, start, std::move(args));
  }
};

} // namespace ptxbench::runtime

Expr Expr::constant(int64_t value) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Int;
  n->value = value;
  n->text = std::to_string(value);
  Expr e;
  e.node = n;
  return e;
}

Expected<Expr> Expr::parse(StringRef text, const SourceLoc &loc) {
  if (text.size() > kMaxExprBytes)
    return makeError(loc, "expression of " + Twine(text.size()) +
                              " bytes; at most " + Twine(kMaxExprBytes) +
                              ": a size is a short formula");
  ExprParser parser(text, loc);
  auto node = parser.parseAll();
  if (!node)
    return node.takeError();
  Expr e;
  e.node = *node;
  e.source = std::make_shared<const std::string>(text.trim().str());
  return e;
}

StringRef Expr::text() const {
  if (source)
    return *source;
  return node ? StringRef(node->text) : StringRef();
}

const SourceLoc &Expr::loc() const {
  static const SourceLoc none;
  return node ? node->loc : none;
}

static void collectNames(const Expr::Node &n, std::vector<std::string> &out,
                         StringSet<> &seen) {
  if (n.kind == Expr::Kind::Name && seen.insert(n.name).second)
    out.push_back(n.name);
  for (const auto &op : n.operands)
    collectNames(*op, out, seen);
}

std::vector<std::string> Expr::names() const {
  std::vector<std::string> out;
  StringSet<> seen;
  if (node)
    collectNames(*node, out, seen);
  return out;
}

static Expected<int64_t> eval(const Expr::Node &n, const Bindings &b) {
  auto overflow = [&]() {
    return makeError(n.loc, "integer overflow in '" + n.text + "'");
  };
  switch (n.kind) {
  case Expr::Kind::Int:
    return n.value;
  case Expr::Kind::Name: {
    auto it = b.find(n.name);
    if (it == b.end()) {
      std::vector<std::string> known;
      for (const auto &entry : b)
        known.push_back(entry.getKey().str());
      llvm::sort(known);
      return makeError(
          n.loc, "unknown name '" + n.name + "'" +
                     (known.empty() ? std::string()
                                    : " (known: " + join(known, ", ") + ")"));
    }
    return it->second;
  }
  default:
    break;
  }
  std::vector<int64_t> v;
  for (const auto &op : n.operands) {
    auto r = eval(*op, b);
    if (!r)
      return r;
    v.push_back(*r);
  }
  int64_t r;
  switch (n.kind) {
  case Expr::Kind::Neg:
    if (__builtin_sub_overflow(int64_t(0), v[0], &r))
      return overflow();
    return r;
  case Expr::Kind::Add:
    if (__builtin_add_overflow(v[0], v[1], &r))
      return overflow();
    return r;
  case Expr::Kind::Sub:
    if (__builtin_sub_overflow(v[0], v[1], &r))
      return overflow();
    return r;
  case Expr::Kind::Mul:
    if (__builtin_mul_overflow(v[0], v[1], &r))
      return overflow();
    return r;
  case Expr::Kind::Div:
  case Expr::Kind::Mod:
  case Expr::Kind::CeilDiv: {
    if (v[1] == 0)
      return makeError(n.loc, "division by zero in '" + n.text + "'");
    if (v[0] == INT64_MIN && v[1] == -1)
      return overflow();
    if (n.kind == Expr::Kind::Div)
      return v[0] / v[1];
    if (n.kind == Expr::Kind::Mod)
      return v[0] % v[1];
    int64_t q = v[0] / v[1];
    // Round toward +infinity when the exact quotient is positive.
    if (v[0] % v[1] != 0 && ((v[0] < 0) == (v[1] < 0)))
      ++q;
    return q;
  }
  case Expr::Kind::Min:
    return *std::min_element(v.begin(), v.end());
  case Expr::Kind::Max:
    return *std::max_element(v.begin(), v.end());
  default:
    llvm_unreachable("handled above");
  }
}

Expected<int64_t> Expr::evaluate(const Bindings &bindings) const {
  if (!node)
    return createStringError(inconvertibleErrorCode(), "empty expression");
  return eval(*node, bindings);
}

/// Prefix form with every operator and function spelled out, so spacing and
/// redundant parentheses do not show: `(ceildiv N 128)`.
static void printCanonical(const Expr::Node &n, raw_ostream &os) {
  switch (n.kind) {
  case Expr::Kind::Int:
    os << n.value;
    return;
  case Expr::Kind::Name:
    os << n.name;
    return;
  default:
    break;
  }
  auto name = [](Expr::Kind kind) -> StringRef {
    switch (kind) {
    case Expr::Kind::Neg:
      return "neg";
    case Expr::Kind::Add:
      return "+";
    case Expr::Kind::Sub:
      return "-";
    case Expr::Kind::Mul:
      return "*";
    case Expr::Kind::Div:
      return "/";
    case Expr::Kind::Mod:
      return "%";
    case Expr::Kind::CeilDiv:
      return "ceildiv";
    case Expr::Kind::Min:
      return "min";
    case Expr::Kind::Max:
      return "max";
    case Expr::Kind::Int:
    case Expr::Kind::Name:
      break;
    }
    llvm_unreachable("leaves are printed above");
  };
  os << '(' << name(n.kind);
  for (const auto &op : n.operands) {
    os << ' ';
    printCanonical(*op, os);
  }
  os << ')';
}

std::string Expr::canonical() const {
  std::string out;
  raw_string_ostream os(out);
  if (node)
    printCanonical(*node, os);
  return out;
}
