//===- Tags.cpp - A prompt's context as a named list of documents ---------===//
//
// The built-in tags, the name rules, and the reader of tag definitions
// (a tag file, or the `tag_definitions` of a study file).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/Tags.h"

#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::prompt;

namespace {

bool isNameChar(char c, bool upper, StringRef more) {
  return isDigit(c) || isLower(c) || (upper && isUpper(c)) ||
         more.contains(c);
}

/// What a rejected name is shown as: printable and at most 70 bytes.
std::string shown(StringRef name) {
  std::string out;
  for (char c : name.take_front(64))
    out += isPrint(c) ? std::string(1, c) : "\\x" + utohexstr((uint8_t)c, true, 2);
  return name.size() > 64 ? out + "..." : out;
}

std::string checkName(StringRef name, StringRef what, bool upper,
                      StringRef more, StringRef rule) {
  if (name.empty())
    return what.str() + " name is empty";
  bool ok = name.size() <= maxTagNameLength &&
            isNameChar(name.front(), upper, "") &&
            all_of(name, [&](char c) { return isNameChar(c, upper, more); });
  if (ok)
    return "";
  return (what + " name '" + shown(name) + "' is not " + rule +
          ", at most " + Twine(maxTagNameLength) + " characters)")
      .str();
}

} // namespace

std::string prompt::checkTagName(StringRef name) {
  return checkName(name, "tag", /*upper=*/true, "._-",
                   "a folder name (a letter or digit, then letters, digits, "
                   "'.', '_' or '-'");
}

std::string prompt::checkDocumentName(StringRef name) {
  return checkName(name, "document", /*upper=*/false, "_-",
                   "a document name (a lower-case letter or digit, then "
                   "lower-case letters, digits, '_' or '-'");
}

ArrayRef<Tag> prompt::builtinTags() {
  static const std::vector<Tag> tags = {
      {"none", {}},
      {"brief", {"isa-syntax"}},
      {"full", {"isa-syntax", "arch-doc", "patterns"}},
  };
  return tags;
}

const Tag *prompt::findBuiltinTag(StringRef name) {
  for (const Tag &t : builtinTags())
    if (t.name == name)
      return &t;
  return nullptr;
}

Expected<TagSet> prompt::parseTagSet(const json::Value &value,
                                     StringRef what) {
  auto refuse = [&](const Twine &why) {
    return createStringError(what + ": " + why);
  };
  const json::Object *o = value.getAsObject();
  if (!o)
    return refuse("expected an object {\"TAG\": [\"document\", ...], ...}");
  if (o->size() > maxTagsPerFile)
    return refuse("defines " + Twine(o->size()) + " tags; at most " +
                  Twine(maxTagsPerFile));
  TagSet tags;
  for (const auto &[key, docs] : *o) {
    StringRef name = key;
    if (std::string why = checkTagName(name); !why.empty())
      return refuse(why);
    if (findBuiltinTag(name))
      return refuse("tag '" + name +
                    "' is built in (none, brief, full keep their meaning); "
                    "give yours another name");
    const json::Array *list = docs.getAsArray();
    if (!list)
      return refuse("tag '" + name + "': expected a list of document names");
    if (list->size() > maxDocumentsPerTag)
      return refuse("tag '" + name + "' lists " + Twine(list->size()) +
                    " documents; at most " + Twine(maxDocumentsPerTag));
    Tag tag{name.str(), {}};
    for (const json::Value &d : *list) {
      std::optional<StringRef> doc = d.getAsString();
      if (!doc)
        return refuse("tag '" + name + "': a document name must be a string");
      if (std::string why = checkDocumentName(*doc); !why.empty())
        return refuse("tag '" + name + "': " + why);
      if (is_contained(tag.documents, *doc))
        return refuse("tag '" + name + "' lists document '" + *doc +
                      "' twice");
      tag.documents.push_back(doc->str());
    }
    tags[tag.name] = std::move(tag);
  }
  return tags;
}

Expected<TagSet> prompt::loadTagFile(StringRef path) {
  constexpr size_t maxBytes = 1 << 20;
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return createStringError("cannot read tag file '" + path +
                             "': " + buffer.getError().message());
  if ((*buffer)->getBufferSize() > maxBytes)
    return createStringError("tag file '" + path + "' is larger than 1 MiB");
  JSONLimits limits;
  limits.maxDepth = 8;
  limits.maxBytes = maxBytes;
  auto value = parseJSON((*buffer)->getBuffer(), limits);
  if (!value)
    return createStringError(describeJSONError(value.takeError(), path));
  return parseTagSet(*value, path);
}

Expected<Tag> prompt::resolveTag(StringRef name, const TagSet &defined) {
  if (std::string why = checkTagName(name); !why.empty())
    return createStringError(why);
  if (auto it = defined.find(name.str()); it != defined.end())
    return it->second;
  if (const Tag *t = findBuiltinTag(name))
    return *t;
  std::vector<std::string> known;
  for (const Tag &t : builtinTags())
    known.push_back(t.name);
  for (const auto &[n, t] : defined)
    known.push_back(n);
  return createStringError("unknown tag '" + name + "' (known: " +
                           join(known, ", ") +
                           (defined.empty() ? "; a tag file defines more)"
                                            : ")"));
}
