//===- AnswerContractTest.cpp - The prompt's rule is the extractor's ------===//
//
// The response format tells the model which block of its answer is run
// (answerContract, word for word); answers written to that sentence must
// extract the way it says.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/ExtractCode.h"
#include "ptxbench/Prompt/TaskText.h"

#include "gtest/gtest.h"

using namespace ptxbench::prompt;

namespace {

std::string fence(llvm::StringRef language, llvm::StringRef code) {
  return ("```" + language + "\n" + code + "\n```\n").str();
}

TEST(AnswerContractTest, ThePromptSaysWhatTheExtractorDoes) {
  for (const char *arch : {"sm_90a", "sm_100a"}) {
    std::string format = renderResponseFormat(arch);
    EXPECT_NE(format.find(answerContract), std::string::npos) << format;
  }
}

TEST(AnswerContractTest, TheLastBlockThatDefinesAKernelIsRun) {
  // A draft, then the final version: the final one.
  auto code = extractCode("A first try:\n\n" +
                          fence("cuda", "__global__ void draft() {}") +
                          "\nThat is slow; the final version:\n\n" +
                          fence("cuda", "__global__ void final_version() {}"));
  ASSERT_TRUE(bool(code)) << llvm::toString(code.takeError());
  EXPECT_NE(code->code.find("final_version"), std::string::npos);
  EXPECT_EQ(code->code.find("draft"), std::string::npos);
  // Three versions, PTX last.
  code = extractCode(fence("cuda", "__global__ void a() {}") +
                     fence("cuda", "__global__ void b() {}") +
                     fence("ptx", ".version 8.7\n.target sm_90a\n"
                                  ".visible .entry c() { ret; }"));
  ASSERT_TRUE(bool(code)) << llvm::toString(code.takeError());
  EXPECT_EQ(code->language, CodeLanguage::PTX);
  // A snippet after the kernel does not define one: the kernel is run.
  code = extractCode(fence("cuda", "__global__ void solve() {}") +
                     "Launch it like this:\n" +
                     fence("cuda", "solve<<<1, 128>>>();"));
  ASSERT_TRUE(bool(code)) << llvm::toString(code.takeError());
  EXPECT_NE(code->code.find("__global__"), std::string::npos);
  // No block defines a kernel: the last block.
  code = extractCode(fence("cuda", "int a;") + fence("cuda", "int b;"));
  ASSERT_TRUE(bool(code)) << llvm::toString(code.takeError());
  EXPECT_EQ(code->code, "int b;\n");
}

} // namespace
