//===- Prompt.h - The prompt for one task, architecture and context -*- C++ -*-===//
//
// buildPrompt() assembles the chat messages a model reads for a task on an
// architecture at one context level: `none` (the task alone), `brief` (plus
// the requested instructions' syntax from the ISA table) or `full` (plus the
// architecture document docs/arch/<arch>.md and the patterns the analysis
// flags). Asked in Triton, the response format, ABI and plan sections are
// Triton's and `brief` adds how Triton reaches each requested family. The same inputs give the same bytes; the sha256 and the list of
// parts let results be grouped by prompt and by context level.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_PROMPT_H
#define PTXBENCH_PROMPT_PROMPT_H

#include "ptxbench/Runtime/Task.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxbench::prompt {

enum class ContextLevel { None, Brief, Full };
llvm::StringRef contextLevelName(ContextLevel level);
std::optional<ContextLevel> parseContextLevel(llvm::StringRef name);

/// The language the answer is asked in: CUDA C++ or PTX (the default), or
/// Triton (docs/triton.md).
enum class AnswerLanguage { Native, Triton };
llvm::StringRef answerLanguageName(AnswerLanguage language);
std::optional<AnswerLanguage> parseAnswerLanguage(llvm::StringRef name);

/// The architectures prompts are written for.
llvm::ArrayRef<llvm::StringLiteral> promptArchitectures();

struct PromptOptions {
  std::string arch = "sm_90a";
  ContextLevel context = ContextLevel::Brief;
  AnswerLanguage language = AnswerLanguage::Native;
  /// The docs/ folder (for `full`); empty = findDocsDir(task.dir).
  std::string docsDir;
};

struct ChatMessage {
  std::string role; // "system" or "user"
  std::string content;
};

struct Prompt {
  std::string task, arch;
  ContextLevel context = ContextLevel::None;
  AnswerLanguage language = AnswerLanguage::Native;
  std::vector<ChatMessage> messages;
  /// The names of the parts included, in order (system, task, abi, ...).
  std::vector<std::string> parts;

  /// SHA-256 (lower-case hex) of the messages concatenated as
  /// "<role>\n<content>\n" each, in order.
  std::string sha256() const;
};

/// The docs/ folder of the repository holding `taskDir`: the nearest
/// ancestor of it with docs/arch/, else of the current directory.
llvm::Expected<std::string> findDocsDir(llvm::StringRef taskDir);

llvm::Expected<Prompt> buildPrompt(const runtime::Task &task,
                                   const PromptOptions &options);

/// {"task", "arch", "context", "parts", "sha256", "messages": [{"role",
/// "content"}, ...]}, and "language": "triton" for a Triton prompt.
llvm::json::Value toJSON(const Prompt &prompt);
/// Each message under a `=== role ===` line.
void printText(const Prompt &prompt, llvm::raw_ostream &os);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_PROMPT_H
