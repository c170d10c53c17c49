//===- Prompt.h - The prompt for one task, architecture and context -*- C++ -*-===//
//
// buildPrompt() assembles the chat messages a model reads for a task on an
// architecture with one tag's documents (Tags.h, Documents.h) after the
// task's own parts: the built-in tags `none` (the task alone), `brief`
// (plus the requested instructions' syntax from the ISA table) and `full`
// (plus the architecture document docs/arch/<arch>.md and the patterns the
// analysis flags), or a tag a tag file defines. Asked in Triton, the
// response format, ABI and plan sections are Triton's and `isa-syntax` is
// how Triton reaches each requested family. The same inputs give the same
// bytes; the sha256, the parts and each document's sha256 let results be
// grouped by prompt and by tag.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_PROMPT_H
#define PTXBENCH_PROMPT_PROMPT_H

#include "ptxbench/Prompt/Tags.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxbench::prompt {

/// The language the answer is asked in: CUDA C++ or PTX (the default), or
/// Triton (docs/triton.md).
enum class AnswerLanguage { Native, Triton };
llvm::StringRef answerLanguageName(AnswerLanguage language);
std::optional<AnswerLanguage> parseAnswerLanguage(llvm::StringRef name);

/// The architectures prompts are written for.
llvm::ArrayRef<llvm::StringLiteral> promptArchitectures();

struct PromptOptions {
  std::string arch = "sm_90a";
  /// The documents after the task's parts (default: the built-in `brief`).
  Tag tag{"brief", {"isa-syntax"}};
  AnswerLanguage language = AnswerLanguage::Native;
  /// The docs/ folder (for documents read from files); empty =
  /// findDocsDir(task.dir) when one is needed.
  std::string docsDir;
};

struct ChatMessage {
  std::string role; // "system" or "user"
  std::string content;
};

/// One document of a prompt as it went in.
struct PromptDocument {
  /// The part's name (Documents.h).
  std::string name;
  /// SHA-256 (lower-case hex) of its text, and its size in bytes.
  std::string sha256;
  uint64_t bytes = 0;
};

struct Prompt {
  std::string task, arch;
  /// The tag's name.
  std::string context;
  AnswerLanguage language = AnswerLanguage::Native;
  std::vector<ChatMessage> messages;
  /// The names of the parts included, in order (system, task, abi, ...).
  std::vector<std::string> parts;
  /// The tag's documents, in order (the last parts).
  std::vector<PromptDocument> documents;

  /// SHA-256 (lower-case hex) of the messages concatenated as
  /// "<role>\n<content>\n" each, in order.
  std::string sha256() const;
};

/// The docs/ folder of the repository holding `taskDir`: the nearest
/// ancestor of it with docs/arch/, else of the current directory.
llvm::Expected<std::string> findDocsDir(llvm::StringRef taskDir);

llvm::Expected<Prompt> buildPrompt(const runtime::Task &task,
                                   const PromptOptions &options);

/// {"task", "arch", "context", "parts", "documents": [{"name", "sha256",
/// "bytes"}, ...], "sha256", "messages": [{"role", "content"}, ...]}, and
/// "language": "triton" for a Triton prompt.
llvm::json::Value toJSON(const Prompt &prompt);
/// The "documents" array of toJSON().
llvm::json::Array documentsJSON(const std::vector<PromptDocument> &documents);
/// Each message under a `=== role ===` line.
void printText(const Prompt &prompt, llvm::raw_ostream &os);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_PROMPT_H
