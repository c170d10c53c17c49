//===- Patterns.h - What the analysis flags, as advice ---------*- C++ -*-===//
//
// The `full` context's list of patterns: for each requested family, the
// generic code the analysis reports as a fallback (docs/analysis.md) and
// the architecture-specific form it expects instead, so a model knows how
// its kernel will be judged.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_PATTERNS_H
#define PTXBENCH_PROMPT_PATTERNS_H

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace ptxbench::prompt {

/// A Markdown section for the requested families.
std::string renderPatterns(llvm::ArrayRef<std::string> requested);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_PATTERNS_H
