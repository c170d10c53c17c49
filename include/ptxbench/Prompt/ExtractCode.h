//===- ExtractCode.h - The code block of a model's answer -------*- C++ -*-===//
//
// A model answers with prose and a fenced code block holding its
// submission. extractCode() finds that block as answerContract, the
// sentence the prompt states, says: among the fenced blocks in a recognized
// language (cuda, cu, c++, cpp, ptx, python, py, triton; untagged blocks
// only when no tagged
// one exists), the last that defines a kernel, or the last of them when
// none does (a draft followed by the final version gives the final one;
// snippets around it are explanation). It refuses with a clear message
// when there is no such block, when the last block is not closed (a
// truncated answer), or when the answer is past the size and block-count
// limits.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_EXTRACTCODE_H
#define PTXBENCH_PROMPT_EXTRACTCODE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ptxbench::prompt {

/// CUDA C++ (with inline PTX), PTX, or Triton (Python with @triton.jit
/// kernels).
enum class CodeLanguage { CUDA, PTX, Triton };

/// The word a sample's language is stored as: "cu", "ptx" or "py".
llvm::StringRef languageWord(CodeLanguage language);
/// The language of a stored word or a file name's extension ("cu", "x.cu",
/// "py", ...); PTX for anything else.
CodeLanguage languageOfWord(llvm::StringRef word);
/// The fence tag a block in the language is written with ("cuda", "ptx",
/// "python").
llvm::StringRef fenceTag(CodeLanguage language);
/// How people name it ("CUDA C++", "PTX", "Triton").
llvm::StringRef languageName(CodeLanguage language);

/// The largest answer read (a model's whole output at its longest token
/// limit is a fraction of this), and the most fenced blocks in one.
constexpr size_t kMaxAnswerBytes = size_t(4) << 20;
constexpr unsigned kMaxCodeBlocks = 1000;

struct ExtractedCode {
  CodeLanguage language;
  std::string code;
  /// The 1-based line of the response where the code starts.
  unsigned line = 0;
  /// The file extension for the language: ".cu", ".ptx" or ".py".
  llvm::StringRef extension() const {
    return language == CodeLanguage::CUDA     ? ".cu"
           : language == CodeLanguage::Triton ? ".py"
                                              : ".ptx";
  }
};

/// The rule the prompt gives the model for which block is run, word for
/// word; extractCode() follows it.
constexpr llvm::StringLiteral answerContract =
    "If the answer has several code blocks, the last one that defines a "
    "kernel is the one that is run.";

llvm::Expected<ExtractedCode> extractCode(llvm::StringRef response);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_EXTRACTCODE_H
