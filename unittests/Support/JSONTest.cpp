//===- JSONTest.cpp - Reading untrusted JSON within limits ----------------===//

#include "ptxbench/Support/JSON.h"

#include "gtest/gtest.h"

using namespace ptxbench;

namespace {

/// parseJSON's error as text, or "ok".
std::string problem(llvm::StringRef text, JSONLimits limits = {}) {
  llvm::Expected<llvm::json::Value> value = parseJSON(text, limits);
  if (value)
    return "ok";
  return llvm::toString(value.takeError());
}

std::string nested(unsigned depth, llvm::StringRef open = "[",
                   llvm::StringRef close = "]") {
  std::string s;
  for (unsigned i = 0; i < depth; ++i)
    s += open;
  for (unsigned i = 0; i < depth; ++i)
    s += close;
  return s;
}

TEST(JSON, ParsesWhatLLVMParses) {
  llvm::Expected<llvm::json::Value> value =
      parseJSON(R"({"a": [1, {"b": "x\"]}"}], "c\u0041": null})");
  ASSERT_TRUE(bool(value)) << llvm::toString(value.takeError());
  EXPECT_EQ(*value,
            llvm::json::Value(llvm::json::Object{
                {"a", llvm::json::Array{1, llvm::json::Object{{"b", "x\"]}"}}}},
                {"cA", nullptr}}));
}

TEST(JSON, DepthIsLimited) {
  EXPECT_EQ(problem(nested(100)), "ok");
  EXPECT_EQ(problem(nested(101)),
            "1:101: arrays and objects nested deeper than 100 levels");
  // 50,000 levels (a stack overflow in llvm::json::parse), objects too.
  EXPECT_EQ(problem(nested(50000)),
            "1:101: arrays and objects nested deeper than 100 levels");
  EXPECT_EQ(problem("{\"a\":\n" + nested(50000, "{\"a\":", "}") + "}"),
            "2:496: arrays and objects nested deeper than 100 levels");
  // Brackets inside strings do not count; escaped quotes do not end them.
  EXPECT_EQ(problem("[\"" + nested(500) + "\\\"" + nested(500) + "\"]"), "ok");
  JSONLimits shallow;
  shallow.maxDepth = 2;
  EXPECT_EQ(problem("[[1]]", shallow), "ok");
  EXPECT_EQ(problem("[[[1]]]", shallow),
            "1:3: arrays and objects nested deeper than 2 levels");
}

TEST(JSON, SizeIsLimited) {
  JSONLimits small;
  small.maxBytes = 10;
  EXPECT_EQ(problem("[1,2,3,4]", small), "ok");
  EXPECT_EQ(problem("[1,2,3,4,5]", small),
            "the JSON text is 11 bytes, over the limit of 10");
}

TEST(JSON, ByteOrderMarkIsNamed) {
  EXPECT_EQ(problem("\xEF\xBB\xBF{}"),
            "1:1: the text starts with a UTF-8 byte-order mark (EF BB BF), "
            "which JSON does not allow; save it as UTF-8 without one");
}

TEST(JSON, DuplicateKeysAreNamedWithTheirPath) {
  EXPECT_EQ(problem("{\"a\": 1,\n \"a\": 2}"),
            "2:2: a: duplicate key \"a\" (the first is at 1:2; JSON keeps "
            "only one)");
  EXPECT_EQ(problem(R"({"w": [{"name": 1}, {"name": 2, "x": {}, "name": 3}]})"),
            "1:42: w[1].name: duplicate key \"name\" (the first is at 1:22; "
            "JSON keeps only one)");
  // The same key written with an escape is the same key.
  EXPECT_EQ(problem(R"({"ab": 1, "a\u0062": 2})"),
            "1:11: ab: duplicate key \"ab\" (the first is at 1:2; JSON keeps "
            "only one)");
  // The same key in different objects, and a value equal to a key, are fine.
  EXPECT_EQ(problem(R"([{"a": "a"}, {"a": {"a": "a"}}])"), "ok");
  // A syntax error comes first.
  EXPECT_EQ(problem("{\"a\": 1, \"a\": }"), "1:15: Invalid JSON value");
}

TEST(JSON, SyntaxErrorsKeepTheirPlace) {
  EXPECT_EQ(problem("{\n  \"a\": 1,\n}"), "3:1: Expected object key");
  EXPECT_EQ(problem("[1, 2"), "1:5: Expected , or ] after array element");
  EXPECT_EQ(problem("\"unterminated"), "1:13: Unterminated string");
}

TEST(JSON, DescribeNamesTheFile) {
  EXPECT_EQ(describeJSONError(parseJSON("{\"a\": 1, \"a\": 2}").takeError(),
                              "task.json"),
            "task.json:1:10: a: duplicate key \"a\" (the first is at 1:2; "
            "JSON keeps only one)");
  JSONLimits small;
  small.maxBytes = 1;
  EXPECT_EQ(describeJSONError(parseJSON("[]", small).takeError(), "m.json"),
            "m.json: the JSON text is 2 bytes, over the limit of 1");
}

} // namespace
