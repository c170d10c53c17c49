//===- ConstantExprTest.cpp - PTX constant expressions --------------------===//
//
// The evaluator against values ptxas 13.0 gives for the same expressions
// (each assembled as `mov.u64 %rd, EXPR` and read back from the SASS), and
// where an expression ends inside an operand list.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/ConstantExpr.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

using namespace ptxbench::ptx;

namespace {

uint64_t bits(llvm::StringRef text) {
  ConstantExprResult r = parseConstantExpr(text);
  EXPECT_TRUE(r.ok()) << text.str() << ": " << r.message;
  EXPECT_TRUE(r.value.isInteger()) << text.str();
  EXPECT_EQ(r.length, text.size()) << text.str();
  return r.value.bits;
}

ConstantExprResult::Kind kind(llvm::StringRef text) {
  return parseConstantExpr(text).kind;
}

TEST(ConstantExpr, LiteralsAndTheirTypes) {
  EXPECT_EQ(bits("42"), 42u);
  EXPECT_EQ(bits("0x1F"), 31u);
  EXPECT_EQ(bits("017"), 15u);
  EXPECT_EQ(bits("0b101"), 5u);
  EXPECT_EQ(bits("0b101 + 017"), 20u);
  EXPECT_EQ(parseConstantExpr("42").value.type, ConstantValue::Type::S64);
  EXPECT_EQ(parseConstantExpr("42U").value.type, ConstantValue::Type::U64);
  // Too big for .s64: unsigned without a suffix.
  EXPECT_EQ(parseConstantExpr("0xFFFFFFFFFFFFFFFF").value.type,
            ConstantValue::Type::U64);
  EXPECT_EQ(kind("18446744073709551616"), ConstantExprResult::Kind::Invalid);
  EXPECT_EQ(kind("1u"), ConstantExprResult::Kind::Invalid); // ptxas too
}

TEST(ConstantExpr, TypingRulesAsPtxas) {
  EXPECT_EQ(bits("-1 >> 1"), ~uint64_t(0));   // signed: arithmetic shift
  EXPECT_EQ(bits("(.u64)-1 >> 60"), 15u);     // cast to unsigned
  EXPECT_EQ(bits("~0 >> 60"), 15u);           // ~ gives unsigned
  EXPECT_EQ(bits("(.s64)(~0) >> 1"), ~uint64_t(0));
  EXPECT_EQ(bits("-1 >> 1U"), ~uint64_t(0));  // the count's type is moot
  EXPECT_EQ(bits("-7 % 3"), 0u);              // % reads both as unsigned
  EXPECT_EQ(bits("-8 % 3U"), 2u);
  EXPECT_EQ(bits("-8 / 3"), uint64_t(-2));    // truncates toward zero
  EXPECT_EQ(bits("-8U / 3"), 0x5555555555555552u);
  EXPECT_EQ(bits("1U - 2 < 0"), 0u);          // unsigned comparison
  EXPECT_EQ(bits("-1 < 0U"), 0u);
  EXPECT_EQ(bits("0xFFFFFFFFFFFFFFFF > 0"), 1u);
  EXPECT_EQ(bits("~0 == -1"), 1u);
  EXPECT_EQ(bits("!5 + !0"), 1u);
  EXPECT_EQ(bits("1 ? -1 : 2U"), ~uint64_t(0));
  EXPECT_EQ(bits("1 << 64"), 1u); // shift counts modulo 64
  EXPECT_EQ(bits("-1 >> 70"), ~uint64_t(0));
}

TEST(ConstantExpr, PrecedenceAsC) {
  EXPECT_EQ(bits("6 & 3 ^ 1 | 8"), 11u);
  EXPECT_EQ(bits("1 << 2 + 1"), 8u);
  EXPECT_EQ(bits("1 == 1 < 2"), 1u);
  EXPECT_EQ(bits("1 + 2 * 3"), 7u);
  EXPECT_EQ(bits("((128 >> 4) << 16)"), 0x80000u);
  EXPECT_EQ(bits("0 ? 1 : 2 ? 3 : 4"), 3u);
  EXPECT_EQ(bits("1 && 0 || 1"), 1u);
  EXPECT_EQ(bits("WARP_SZ*2"), 64u);
  EXPECT_EQ(bits("- -3"), 3u);
  EXPECT_EQ(bits("1 /* a comment */ + // another\n 2"), 3u);
}

TEST(ConstantExpr, FloatingPoint) {
  ConstantExprResult r = parseConstantExpr("1.5 + 0.25");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value.type, ConstantValue::Type::F64);
  EXPECT_EQ(r.value.real, 1.75);
  r = parseConstantExpr("0f3F800000");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value.real, 1.0);
  r = parseConstantExpr("-0d4000000000000000");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value.real, -2.0);
  // PTX has no conversions between integers and floating point.
  r = parseConstantExpr("1 + 1.5");
  EXPECT_EQ(r.kind, ConstantExprResult::Kind::Invalid);
  EXPECT_NE(r.message.find("mix"), std::string::npos);
  EXPECT_EQ(kind("1.5 << 1"), ConstantExprResult::Kind::Invalid);
  EXPECT_EQ(evaluateIntegerExpr("0f3F800000"), std::nullopt);
}

TEST(ConstantExpr, ErrorsAsPtxas) {
  ConstantExprResult r = parseConstantExpr("5/0");
  EXPECT_EQ(r.kind, ConstantExprResult::Kind::Invalid);
  EXPECT_EQ(r.message, "division by zero");
  // ptxas evaluates both arms of ?: and both sides of || too.
  EXPECT_EQ(kind("0 ? 1/0 : 3"), ConstantExprResult::Kind::Invalid);
  EXPECT_EQ(kind("1 || 1/0"), ConstantExprResult::Kind::Invalid);
  EXPECT_EQ(kind("1 +"), ConstantExprResult::Kind::Invalid);
  EXPECT_EQ(kind("(1"), ConstantExprResult::Kind::Invalid);
  EXPECT_EQ(kind("0x"), ConstantExprResult::Kind::Invalid);
}

TEST(ConstantExpr, WhereItEnds) {
  // Not a constant at all: nothing is consumed.
  EXPECT_EQ(kind("%r1"), ConstantExprResult::Kind::NotConstant);
  EXPECT_EQ(kind("(%r1, 2)"), ConstantExprResult::Kind::NotConstant);
  EXPECT_EQ(kind("!%p1"), ConstantExprResult::Kind::NotConstant);
  EXPECT_EQ(kind("WARP_SZX"), ConstantExprResult::Kind::NotConstant);
  // The expression stops before what cannot continue it.
  EXPECT_EQ(parseConstantExpr("4*2, %r1;").length, 3u);
  EXPECT_EQ(parseConstantExpr("+288+128]").length, 8u);
  EXPECT_EQ(parseConstantExpr("+ 0 ]").length, 3u);
  EXPECT_EQ(parseConstantExpr("7 %r2").length, 1u); // %r2 is a register
  EXPECT_EQ(parseConstantExpr("7 % 2;").length, 5u);
  EXPECT_EQ(parseConstantExpr("(1) }").value.bits, 1u);
  EXPECT_EQ(evaluateIntegerExpr(" 8*4 "), 32);
  EXPECT_EQ(evaluateIntegerExpr("8*4, 1"), std::nullopt);
}

TEST(ConstantExpr, NestingIsLimited) {
  auto repeat = [](llvm::StringRef piece, unsigned n) {
    return llvm::join(std::vector<std::string>(n, piece.str()), "");
  };
  unsigned limit = kMaxConstantExprDepth;
  // Just inside the limit, each construct evaluates.
  EXPECT_EQ(bits(repeat("(", limit) + "7" + repeat(")", limit)), 7u);
  EXPECT_EQ(bits(repeat("-", limit) + "7"), 7u); // an even count
  EXPECT_EQ(bits(repeat("(.s64)", limit) + "7"), 7u);
  // One deeper, and 100,000 deeper (a stack overflow before the limit):
  // Invalid, with where it stopped, even before any number was read.
  for (unsigned n : {limit + 1, 100000u}) {
    for (const std::string &text :
         {repeat("(", n) + "1" + repeat(")", n), repeat("-", n) + "1",
          repeat("!", n) + "1", repeat("~", n) + "1", repeat("(.u64)", n) + "1",
          repeat("1 ? ", n) + "1" + repeat(" : 0", n), repeat("(", n)}) {
      ConstantExprResult r = parseConstantExpr(text);
      EXPECT_EQ(r.kind, ConstantExprResult::Kind::Invalid)
          << text.substr(0, 20);
      EXPECT_NE(r.message.find("nests deeper than 256 levels"),
                std::string::npos)
          << r.message;
      EXPECT_LE(r.length, text.size());
    }
  }
  // A long expression that does not nest is fine.
  EXPECT_EQ(bits(repeat("1+", 100000) + "1"), 100001u);
}

} // namespace
