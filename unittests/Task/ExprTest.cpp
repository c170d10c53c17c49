//===- ExprTest.cpp - Tests of launch-plan integer expressions ------------===//

#include "ptxbench/Task/Expr.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

const Bindings &shapes() {
  static Bindings b = [] {
    Bindings b;
    b["M"] = 4096;
    b["N"] = 1000;
    b["K"] = 64;
    b["Z"] = 0;
    b["BIG"] = INT64_MAX;
    return b;
  }();
  return b;
}

int64_t eval(llvm::StringRef text) {
  auto e = Expr::parse(text, SourceLoc{"plan.cu", 3, 10});
  EXPECT_TRUE(!!e) << (e ? "" : llvm::toString(e.takeError()));
  if (!e)
    return -999;
  auto v = e->evaluate(shapes());
  EXPECT_TRUE(!!v) << (v ? "" : llvm::toString(v.takeError()));
  return v ? *v : -999;
}

std::string parseError(llvm::StringRef text) {
  auto e = Expr::parse(text, SourceLoc{"plan.cu", 3, 10});
  if (e)
    return "parsed";
  return llvm::toString(e.takeError());
}

std::string evalError(llvm::StringRef text) {
  auto e = Expr::parse(text, SourceLoc{"plan.cu", 3, 10});
  if (!e)
    return "parse: " + llvm::toString(e.takeError());
  auto v = e->evaluate(shapes());
  if (v)
    return "value " + std::to_string(*v);
  return llvm::toString(v.takeError());
}

TEST(ExprTest, Precedence) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 4 - 3"), 3);   // left-associative
  EXPECT_EQ(eval("100 / 10 / 5"), 2); // left-associative
  EXPECT_EQ(eval("7 % 4 * 2"), 6);    // same level as *
  EXPECT_EQ(eval("-2 * 3 + 10"), 4);  // unary binds tightest
  EXPECT_EQ(eval("- - 5"), 5);
  EXPECT_EQ(eval("2*-3"), -6);
}

TEST(ExprTest, NamesAndFunctions) {
  EXPECT_EQ(eval("M*N"), 4096000);
  EXPECT_EQ(eval("ceildiv(N, 128)"), 8);
  EXPECT_EQ(eval("ceildiv(M,128)"), 32);
  EXPECT_EQ(eval("ceildiv(-7, 2)"), -3);
  EXPECT_EQ(eval("ceildiv(7, -2)"), -3);
  EXPECT_EQ(eval("min(M, N, K)"), 64);
  EXPECT_EQ(eval("max(M, N*5)"), 5000);
  EXPECT_EQ(eval("(2*K + 16) * 4"), 576);
  EXPECT_EQ(eval("-7 / 2"), -3); // truncates like C
  EXPECT_EQ(eval("-7 % 2"), -1);
}

TEST(ExprTest, NamesUsed) {
  auto e = Expr::parse("ceildiv(N, 64) * M + N", SourceLoc{});
  ASSERT_TRUE(!!e);
  EXPECT_EQ(e->names(), (std::vector<std::string>{"N", "M"}));
  EXPECT_EQ(e->text(), "ceildiv(N, 64) * M + N");
}

TEST(ExprTest, DivisionByZero) {
  EXPECT_EQ(evalError("K / Z"),
            "plan.cu:3:10: error: division by zero in 'K / Z'");
  EXPECT_EQ(evalError("1 + K % (Z*2)"),
            "plan.cu:3:14: error: division by zero in 'K % (Z*2)'");
  EXPECT_EQ(evalError("ceildiv(M, Z)"),
            "plan.cu:3:10: error: division by zero in 'ceildiv(M, Z)'");
}

TEST(ExprTest, Overflow) {
  EXPECT_EQ(evalError("BIG + 1"),
            "plan.cu:3:10: error: integer overflow in 'BIG + 1'");
  EXPECT_EQ(evalError("M * M * M * M * M * M"),
            "plan.cu:3:10: error: integer overflow in 'M * M * M * M * M * M'");
  EXPECT_EQ(evalError("(-BIG - 1) / -1"),
            "plan.cu:3:10: error: integer overflow in '(-BIG - 1) / -1'");
  EXPECT_EQ(parseError("99999999999999999999"),
            "plan.cu:3:10: error: bad integer literal '99999999999999999999'");
}

TEST(ExprTest, UnknownName) {
  EXPECT_EQ(evalError("M * Q"),
            "plan.cu:3:14: error: unknown name 'Q' (known: BIG, K, M, N, Z)");
}

TEST(ExprTest, SyntaxErrors) {
  EXPECT_EQ(parseError(""), "plan.cu:3:10: error: expected an expression");
  EXPECT_EQ(parseError("M +"), "plan.cu:3:13: error: expression ends early");
  EXPECT_EQ(parseError("(M + 1"), "plan.cu:3:16: error: expected ')'");
  EXPECT_EQ(parseError("M 1"),
            "plan.cu:3:12: error: unexpected '1' after expression");
  EXPECT_EQ(parseError("M $ 1"),
            "plan.cu:3:12: error: unexpected '$' after expression");
  EXPECT_EQ(parseError("* 2"), "plan.cu:3:10: error: unexpected '*'; "
                               "expected a number, a name or '('");
  EXPECT_EQ(parseError("floor(M)"), "plan.cu:3:10: error: unknown function "
                                    "'floor' (known: ceildiv, min, max)");
  EXPECT_EQ(parseError("ceildiv(M)"),
            "plan.cu:3:10: error: ceildiv takes 2 arguments, got 1");
  EXPECT_EQ(parseError("min(M)"),
            "plan.cu:3:10: error: min takes at least 2 arguments");
  EXPECT_EQ(parseError("max(M N)"), "plan.cu:3:16: error: expected ',' or "
                                    "')' in call of 'max'");
  EXPECT_EQ(parseError("12ab"), "plan.cu:3:10: error: bad integer literal "
                                "'12ab'");
}

TEST(Expr, NestingIsLimited) {
  auto repeat = [](llvm::StringRef piece, unsigned n) {
    return llvm::join(std::vector<std::string>(n, piece.str()), "");
  };
  // Inside the limit: parentheses, calls, unary signs and a chain of
  // operators, each 99 levels (the leaf is the 100th).
  EXPECT_EQ(eval(repeat("(", 99) + "K" + repeat(")", 99)), 64);
  EXPECT_EQ(eval(repeat("ceildiv(", 99) + "M" + repeat(", 2)", 99)), 1);
  EXPECT_EQ(eval(repeat("-", 98) + "K"), 64);
  EXPECT_EQ(eval(repeat("K+", 99) + "K"), 6400);
  EXPECT_EQ(eval("min(" + repeat("K, ", 1300) + "Z)"), 0); // wide, not deep
  // Past it (a stack overflow before the limit, 10,000 deep, is now past
  // the length limit too): an error at the place where the limit was
  // reached.
  for (unsigned n : {101u, 300u}) {
    for (const std::string &text :
         {repeat("(", n) + "K" + repeat(")", n),
          repeat("ceildiv(", n) + "M" + repeat(", 2)", n),
          repeat("max(", n) + "M" + repeat(", 2)", n), repeat("-", n) + "K",
          repeat("+", n) + "K", repeat("K*", n) + "K", repeat("K-", n) + "K"}) {
      std::string error = parseError(text);
      EXPECT_NE(error.find("plan.cu:3:"), std::string::npos) << error;
      EXPECT_NE(error.find("expression nested deeper than 100 levels"),
                std::string::npos)
          << error;
    }
  }
  EXPECT_EQ(parseError(repeat("(", 200) + "K" + repeat(")", 200)),
            "plan.cu:3:110: error: expression nested deeper than 100 levels "
            "(each parenthesis, call, unary sign and operator in a chain is "
            "one)");
}

TEST(Expr, LengthIsLimited) {
  // 4096 bytes parse; one more is refused before any tree is built (a wide
  // expression is a node per term, each with its subexpression's text).
  std::string longest = "min(" + std::string(4088, ' ') + "K,Z)";
  ASSERT_EQ(longest.size(), kMaxExprBytes);
  EXPECT_EQ(eval(longest), 0);
  EXPECT_EQ(parseError(longest + " "),
            "plan.cu:3:10: error: expression of 4097 bytes; at most 4096: a "
            "size is a short formula");
}

} // namespace
