//===- ExtractCode.cpp - The code block of a model's answer ---------------===//
//
// A CommonMark-style scan for fenced blocks: an opening fence is three or
// more backticks or tildes (indented at most three spaces) with an optional
// info string; the block closes at a line of at least as many of the same
// character. The language is the info string's first word.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/ExtractCode.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace ptxbench::prompt;
using llvm::StringRef;

namespace {

struct Block {
  std::string info; // the language word, lower-cased
  unsigned openLine = 0;
  unsigned codeLine = 0;
  std::string code;
  bool closed = false;
};

/// A fence: its character, length and info string, or nothing.
bool parseFence(StringRef line, char &fenceChar, size_t &length,
                StringRef &info) {
  size_t indent = line.find_first_not_of(' ');
  if (indent == StringRef::npos || indent > 3)
    return false;
  line = line.drop_front(indent);
  if (line.empty() || (line[0] != '`' && line[0] != '~'))
    return false;
  fenceChar = line[0];
  length = line.find_first_not_of(fenceChar);
  if (length == StringRef::npos)
    length = line.size();
  if (length < 3)
    return false;
  info = line.drop_front(length).trim();
  // A backtick fence's info string may not contain backticks.
  return !(fenceChar == '`' && info.contains('`'));
}

std::optional<CodeLanguage> languageOf(StringRef info) {
  return llvm::StringSwitch<std::optional<CodeLanguage>>(info)
      .Cases({"cuda", "cu", "c++", "cpp", "cxx"}, CodeLanguage::CUDA)
      .Case("ptx", CodeLanguage::PTX)
      .Cases({"python", "py", "triton"}, CodeLanguage::Triton)
      .Default(std::nullopt);
}

/// Whether `code` defines a kernel (a complete submission, not a snippet).
bool definesKernel(StringRef code) {
  return code.contains("__global__") || code.contains(".entry") ||
         code.contains("@triton.jit");
}

/// The language of an untagged block, guessed from its contents.
std::optional<CodeLanguage> guessLanguage(StringRef code) {
  if (code.contains(".entry") && code.contains(".version"))
    return CodeLanguage::PTX;
  if (code.contains("__global__"))
    return CodeLanguage::CUDA;
  if (code.contains("@triton.jit"))
    return CodeLanguage::Triton;
  return std::nullopt;
}

/// The fenced blocks of `response`; more than kMaxCodeBlocks is an error.
llvm::Expected<llvm::SmallVector<Block>> scanBlocks(StringRef response) {
  llvm::SmallVector<Block> blocks;
  Block *open = nullptr;
  char openChar = 0;
  size_t openLength = 0;
  unsigned lineNo = 0;
  for (StringRef line : llvm::split(response, '\n')) {
    ++lineNo;
    line.consume_back("\r");
    char fenceChar;
    size_t length;
    StringRef info;
    bool isFence = parseFence(line, fenceChar, length, info);
    if (open) {
      if (isFence && fenceChar == openChar && length >= openLength &&
          info.empty()) {
        open->closed = true;
        open = nullptr;
        continue;
      }
      open->code += line.str();
      open->code += '\n';
      continue;
    }
    if (!isFence)
      continue;
    if (blocks.size() == kMaxCodeBlocks)
      return llvm::createStringError(
          "the answer has more than " + llvm::Twine(kMaxCodeBlocks) +
          " fenced code blocks (the next opens at line " + llvm::Twine(lineNo) +
          "); put the solution in one");
    Block &block = blocks.emplace_back();
    block.info = info.take_until([](char c) {
                       return c == ' ' || c == '\t' || c == '{';
                     }).lower();
    block.openLine = lineNo;
    block.codeLine = lineNo + 1;
    open = &block;
    openChar = fenceChar;
    openLength = length;
  }
  return blocks;
}

} // namespace

StringRef ptxbench::prompt::languageWord(CodeLanguage language) {
  switch (language) {
  case CodeLanguage::CUDA:
    return "cu";
  case CodeLanguage::PTX:
    return "ptx";
  case CodeLanguage::Triton:
    return "py";
  }
  llvm_unreachable("language");
}

CodeLanguage ptxbench::prompt::languageOfWord(StringRef word) {
  StringRef ext = word.contains('.') ? word.rsplit('.').second : word;
  return ext == "cu" ? CodeLanguage::CUDA
         : ext == "py" ? CodeLanguage::Triton
                       : CodeLanguage::PTX;
}

StringRef ptxbench::prompt::fenceTag(CodeLanguage language) {
  switch (language) {
  case CodeLanguage::CUDA:
    return "cuda";
  case CodeLanguage::PTX:
    return "ptx";
  case CodeLanguage::Triton:
    return "python";
  }
  llvm_unreachable("language");
}

StringRef ptxbench::prompt::languageName(CodeLanguage language) {
  switch (language) {
  case CodeLanguage::CUDA:
    return "CUDA C++";
  case CodeLanguage::PTX:
    return "PTX";
  case CodeLanguage::Triton:
    return "Triton";
  }
  llvm_unreachable("language");
}

llvm::Expected<ExtractedCode>
ptxbench::prompt::extractCode(StringRef response) {
  if (response.size() > kMaxAnswerBytes)
    return llvm::createStringError(
        "the answer is " + llvm::Twine(response.size()) +
        " bytes, more than the " + llvm::Twine(kMaxAnswerBytes) +
        " read; answer with the solution only");
  llvm::Expected<llvm::SmallVector<Block>> scanned = scanBlocks(response);
  if (!scanned)
    return scanned.takeError();
  llvm::SmallVector<Block> &blocks = *scanned;
  if (blocks.empty())
    return llvm::createStringError("the answer has no fenced code block; put "
                                   "the solution in one ```cuda, ```ptx or "
                                   "```python block");
  if (!blocks.back().closed)
    return llvm::createStringError(
        "the code block opened at line " + llvm::Twine(blocks.back().openLine) +
        " is not closed (the answer looks truncated)");

  // Candidates: tagged blocks in a recognized language; untagged blocks
  // only when no block is tagged with one.
  llvm::SmallVector<std::pair<const Block *, CodeLanguage>> candidates;
  for (const Block &block : blocks)
    if (std::optional<CodeLanguage> language = languageOf(block.info))
      candidates.emplace_back(&block, *language);
  if (candidates.empty())
    for (const Block &block : blocks)
      if (std::optional<CodeLanguage> language =
              block.info.empty() ? guessLanguage(block.code) : std::nullopt)
        candidates.emplace_back(&block, *language);
  if (candidates.empty())
    return llvm::createStringError(
        "none of the answer's " + llvm::Twine(blocks.size()) +
        " code blocks is CUDA C++, PTX or Triton (tag the solution ```cuda, "
        "```ptx or ```python)");

  // answerContract: the last block that defines a kernel (a draft and its
  // final version give the final one), else the last candidate; snippets
  // are explanation.
  auto [block, language] = candidates.back();
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it)
    if (definesKernel(it->first->code)) {
      std::tie(block, language) = *it;
      break;
    }
  return ExtractedCode{language, block->code, block->codeLine};
}
