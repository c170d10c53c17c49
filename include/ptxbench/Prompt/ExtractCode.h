//===- ExtractCode.h - The code block of a model's answer -------*- C++ -*-===//
//
// A model answers with prose and one fenced code block holding its
// submission. extractCode() finds that block: the last fenced block in a
// recognized language (cuda, cu, c++, cpp, ptx; an untagged block only when
// no tagged one exists), and refuses with a clear message when there is
// none, when several blocks each define a kernel (competing answers), or
// when the last block is not closed (a truncated answer).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_EXTRACTCODE_H
#define PTXBENCH_PROMPT_EXTRACTCODE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ptxbench::prompt {

enum class CodeLanguage { CUDA, PTX };

struct ExtractedCode {
  CodeLanguage language;
  std::string code;
  /// The 1-based line of the response where the code starts.
  unsigned line = 0;
  /// The file extension for the language: ".cu" or ".ptx".
  llvm::StringRef extension() const {
    return language == CodeLanguage::CUDA ? ".cu" : ".ptx";
  }
};

llvm::Expected<ExtractedCode> extractCode(llvm::StringRef response);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_EXTRACTCODE_H
