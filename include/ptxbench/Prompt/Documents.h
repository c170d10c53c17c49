//===- Documents.h - The documents a tag puts in a prompt -------*- C++ -*-===//
//
// Each document of a tag (Tags.h) renders to one Markdown section of the
// user message. ptxbench generates five itself: `isa-syntax` (the ISA
// table's syntax for the requested families; in a Triton prompt, how Triton
// reaches them, as the part `triton-features`), `arch-doc`
// (docs/arch/<arch>.md), `card` (that page's machine parameters section),
// `patterns` (what the analysis flags) and `helpers` (the helper header of
// each requested family that has one, docs/prompts/[<arch>/]helpers/).
// Every other name is a note: docs/prompts/<arch>/<name>.md, else
// docs/prompts/<name>.md.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_DOCUMENTS_H
#define PTXBENCH_PROMPT_DOCUMENTS_H

#include "ptxbench/Prompt/Prompt.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ptxbench::prompt {

/// The names of the documents ptxbench generates.
llvm::ArrayRef<llvm::StringLiteral> generatedDocuments();

/// What a document is rendered from.
struct DocumentInput {
  std::string arch;
  AnswerLanguage language = AnswerLanguage::Native;
  /// The task's requested families on `arch`.
  std::vector<std::string> requested;
  /// The docs/ folder (arch/ and prompts/ under it).
  std::string docsDir;
};

struct Document {
  /// The name in the prompt's `parts` (`triton-features` for `isa-syntax`
  /// in a Triton prompt, else the name the tag lists).
  std::string part;
  std::string text;
};

/// Largest note or helper header read (bytes).
constexpr size_t maxDocumentBytes = 256 << 10;

llvm::Expected<Document> renderDocument(llvm::StringRef name,
                                        const DocumentInput &input);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_DOCUMENTS_H
