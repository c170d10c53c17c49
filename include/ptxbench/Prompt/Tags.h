//===- Tags.h - A prompt's context as a named list of documents -*- C++ -*-===//
//
// A tag names the documents a prompt carries after its task, ABI, plan and
// features parts, in order. Three tags are built in and keep the meaning
// the context levels had: `none` (no document), `brief` (`isa-syntax`) and
// `full` (`isa-syntax`, `arch-doc`, `patterns`). More are defined in a tag
// file, a JSON object {"NAME": ["document", ...], ...}
// (docs/prompting.md). Tag and document names are checked here; the
// documents themselves are rendered by Documents.h.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_PROMPT_TAGS_H
#define PTXBENCH_PROMPT_TAGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptxbench::prompt {

struct Tag {
  std::string name;
  std::vector<std::string> documents;
};

/// Tags by name, as a tag file defines them.
using TagSet = std::map<std::string, Tag>;

/// Limits on what a tag file may hold.
constexpr unsigned maxTagNameLength = 64, maxTagsPerFile = 64,
                   maxDocumentsPerTag = 32;

/// A tag name is also a folder of the sample tree: a letter or digit, then
/// letters, digits, '.', '_' or '-', at most 64 characters. Why `name` is
/// not one, or empty.
std::string checkTagName(llvm::StringRef name);
/// A document name: a lower-case letter or digit, then lower-case letters,
/// digits, '_' or '-', at most 64 characters (so it can name no path).
std::string checkDocumentName(llvm::StringRef name);

/// The built-in tags: none, brief, full.
llvm::ArrayRef<Tag> builtinTags();
const Tag *findBuiltinTag(llvm::StringRef name);

/// Tags defined by a JSON object {"NAME": ["document", ...], ...}; `what`
/// names it in errors (a file, or a study's key). A name that is not a tag
/// name, a built-in tag redefined, an empty or repeated document list
/// entry, or more than the limits is refused.
llvm::Expected<TagSet> parseTagSet(const llvm::json::Value &value,
                                   llvm::StringRef what);
/// parseTagSet() of the JSON file at `path` (at most 1 MiB).
llvm::Expected<TagSet> loadTagFile(llvm::StringRef path);

/// The tag `name`: one of `defined`, else a built-in one.
llvm::Expected<Tag> resolveTag(llvm::StringRef name, const TagSet &defined);

} // namespace ptxbench::prompt

#endif // PTXBENCH_PROMPT_TAGS_H
