//===- Documents.cpp - The documents a tag puts in a prompt ---------------===//
//
// Renders one named document: the generated ones from the ISA table, the
// architecture page and the analysis' patterns, the helper headers and the
// notes from files under docs/prompts/. Files are read whole, within
// maxDocumentBytes; a name is checked (Tags.h) before it becomes part of a
// path, so it cannot leave docs/prompts/.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/Documents.h"

#include "ptxbench/ISA/ISA.h"
#include "ptxbench/Prompt/InstructionSyntax.h"
#include "ptxbench/Prompt/Patterns.h"
#include "ptxbench/Prompt/Tags.h"
#include "ptxbench/Prompt/TritonText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::prompt;

namespace {

std::string pathIn(StringRef dir, const Twine &a, const Twine &b = "",
                   const Twine &c = "") {
  SmallString<256> path(dir);
  sys::path::append(path, a, b, c);
  return std::string(path);
}

/// The text of `path`; std::nullopt when there is no such file.
Expected<std::optional<std::string>> readIfPresent(StringRef path) {
  if (!sys::fs::exists(path))
    return std::nullopt;
  if (!sys::fs::is_regular_file(path))
    return createStringError("'" + path + "' is not a regular file");
  uint64_t size = 0;
  if (!sys::fs::file_size(path, size) && size > maxDocumentBytes)
    return createStringError("'" + path + "' is larger than " +
                             Twine(maxDocumentBytes >> 10) + " KiB");
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return createStringError("cannot read " + path + ": " +
                             buffer.getError().message());
  if ((*buffer)->getBufferSize() > maxDocumentBytes)
    return createStringError("'" + path + "' is larger than " +
                             Twine(maxDocumentBytes >> 10) + " KiB");
  return (*buffer)->getBuffer().str();
}

Expected<std::string> readArchDocument(const DocumentInput &in) {
  std::string path = pathIn(in.docsDir, "arch", in.arch + ".md");
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return createStringError("cannot read " + path + ": " +
                             buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

/// The architecture page's "## Machine parameters" section.
Expected<std::string> renderCard(const DocumentInput &in) {
  auto doc = readArchDocument(in);
  if (!doc)
    return doc.takeError();
  SmallVector<StringRef> lines;
  StringRef(*doc).split(lines, '\n');
  std::string out;
  bool in_section = false;
  for (StringRef line : lines) {
    if (line.starts_with("## ")) {
      if (in_section)
        break;
      in_section = line.starts_with("## Machine parameters");
    }
    if (in_section)
      out += line.str() + "\n";
  }
  if (out.empty())
    return createStringError(pathIn(in.docsDir, "arch", in.arch + ".md") +
                             " has no '## Machine parameters' section for "
                             "the card document");
  return StringRef(out).rtrim().str() + "\n";
}

/// The helper headers of the requested families (and their companions)
/// that have one, each in a ```cuda block.
Expected<std::string> renderHelpers(const DocumentInput &in) {
  if (in.language == AnswerLanguage::Triton)
    return createStringError("the helpers document is CUDA C++ with inline "
                             "PTX; a Triton prompt cannot use it");
  auto families = familiesToShow(in.requested);
  if (!families)
    return families.takeError();
  std::string text;
  raw_string_ostream os(text);
  os << "## Helper headers (" << in.arch << ")\n\n"
     << "Inline-PTX wrappers for the requested families, compile-checked "
        "for "
     << in.arch
     << ". NVRTC includes only the toolkit's headers, so paste the ones "
        "you use into the submission (each is guarded against a second "
        "paste); nothing requires them.\n";
  std::vector<std::string> missing;
  unsigned found = 0;
  for (auto [family, wasRequested] : *families) {
    StringRef name = isa::familyName(family);
    std::optional<std::string> header;
    for (std::string path :
         {pathIn(in.docsDir, "prompts", in.arch, "helpers/" + name + ".cuh"),
          pathIn(in.docsDir, "prompts", "helpers", name + ".cuh")}) {
      auto read = readIfPresent(path);
      if (!read)
        return read.takeError();
      if ((header = std::move(*read)))
        break;
    }
    if (!header) {
      if (wasRequested)
        missing.push_back("`" + name.str() + "`");
      continue;
    }
    ++found;
    os << "\n### `" << name << "`\n\n```cuda\n"
       << *header << (StringRef(*header).ends_with("\n") ? "" : "\n")
       << "```\n";
  }
  if (!found)
    os << "\nNo requested family has a helper header for " << in.arch
       << ".\n";
  else if (!missing.empty())
    os << "\nNo helper header for " << join(missing, ", ") << ".\n";
  return text;
}

} // namespace

ArrayRef<StringLiteral> prompt::generatedDocuments() {
  static constexpr StringLiteral names[] = {"isa-syntax", "arch-doc", "card",
                                            "patterns", "helpers"};
  return names;
}

Expected<Document> prompt::renderDocument(StringRef name,
                                          const DocumentInput &in) {
  if (std::string why = checkDocumentName(name); !why.empty())
    return createStringError(why);
  bool triton = in.language == AnswerLanguage::Triton;
  auto wrap = [&](Expected<std::string> text,
                  StringRef part) -> Expected<Document> {
    if (!text)
      return text.takeError();
    return Document{part.str(), std::move(*text)};
  };
  if (name == "isa-syntax")
    return triton ? wrap(renderTritonFeatureHints(in.requested, in.arch),
                         "triton-features")
                  : wrap(renderInstructionSyntax(in.requested, in.arch),
                         "isa-syntax");
  if (name == "arch-doc")
    return wrap(readArchDocument(in), name);
  if (name == "card")
    return wrap(renderCard(in), name);
  if (name == "patterns")
    return wrap(renderPatterns(in.requested), name);
  if (name == "helpers")
    return wrap(renderHelpers(in), name);
  // A note: the architecture's own, else the shared one.
  std::string own = pathIn(in.docsDir, "prompts", in.arch, name + ".md");
  std::string shared = pathIn(in.docsDir, "prompts", name + ".md");
  for (const std::string &path : {own, shared}) {
    auto text = readIfPresent(path);
    if (!text)
      return text.takeError();
    if (*text)
      return Document{name.str(), std::move(**text)};
  }
  return createStringError(
      "unknown document '" + name + "': not one ptxbench generates (" +
      join(generatedDocuments(), ", ") + ") and no note " + own + " or " +
      shared);
}
