//===- HostPaths.cpp - This host's folders kept out of what leaves it -----===//
//
// A folder matches where it starts a path: at the text's start or after a
// character that cannot be part of a path, and where it ends one: at the
// text's end, before '/', or before such a character. So `/work/x` is not
// found inside `/work/xy` and `out` not inside `layout/`.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/HostPaths.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace ptxbench;
using llvm::StringRef;

namespace {

/// A character a path may hold (besides '/').
bool inPath(char c) {
  return llvm::isAlnum(c) || c == '.' || c == '_' || c == '-' || c == '+' ||
         c == '@' || c == '~' || c == '%' || c == '=' || c == ',' ||
         (unsigned char)c >= 0x80;
}

} // namespace

HostPaths HostPaths::standard() {
  HostPaths paths;
  llvm::SmallString<256> cwd;
  if (!llvm::sys::fs::current_path(cwd) && cwd != "/")
    paths.addFolder(cwd);
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("HOME");
      home && *home != "/" && !home->empty())
    paths.addFolder(*home, "~");
  llvm::SmallString<128> tmp;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, tmp);
  for (std::string dir : {std::string(tmp), std::string("/tmp")}) {
    std::string prefix = StringRef(dir).rtrim('/').str() + "/ptxbench-";
    if (!llvm::is_contained(paths.prefixes,
                            std::make_pair(prefix, std::string("ptxbench-"))))
      paths.prefixes.emplace_back(prefix, "ptxbench-");
  }
  return paths;
}

void HostPaths::addFolder(StringRef folder, StringRef replacement) {
  std::vector<std::string> forms = {folder.str()};
  llvm::SmallString<256> absolute(folder);
  if (!llvm::sys::fs::make_absolute(absolute))
    forms.push_back(std::string(absolute));
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(folder, real))
    forms.push_back(std::string(real));
  for (std::string form : forms) {
    while (form.size() > 1 && form.back() == '/')
      form.pop_back();
    if (form.empty() || form == "." || form == "/")
      continue;
    if (llvm::none_of(folders, [&](const auto &f) { return f.first == form; }))
      folders.emplace_back(form, replacement.str());
  }
  llvm::stable_sort(folders, [](const auto &a, const auto &b) {
    return a.first.size() > b.first.size();
  });
}

std::string HostPaths::operator()(StringRef text) const {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    bool starts = at == 0 || (!inPath(text[at - 1]) && text[at - 1] != '/');
    bool replaced = false;
    for (const auto &[prefix, with] : prefixes)
      if (text.substr(at).starts_with(prefix) &&
          (at == 0 || !inPath(text[at - 1]))) {
        out += with;
        at += prefix.size();
        replaced = true;
        break;
      }
    for (size_t i = 0; !replaced && starts && i < folders.size(); ++i) {
      const auto &[folder, with] = folders[i];
      if (!text.substr(at).starts_with(folder))
        continue;
      size_t end = at + folder.size();
      if (end < text.size() && text[end] != '/' && inPath(text[end]))
        continue; // a longer name
      if (end < text.size() && text[end] == '/') {
        out += with.empty() ? "" : with + "/";
        at = end + 1;
      } else {
        out += with.empty() ? "." : with;
        at = end;
      }
      replaced = true;
    }
    if (!replaced)
      out += text[at++];
  }
  return out;
}

void HostPaths::apply(llvm::json::Value &value) const {
  if (std::optional<StringRef> s = value.getAsString()) {
    value = (*this)(*s);
  } else if (llvm::json::Array *array = value.getAsArray()) {
    for (llvm::json::Value &v : *array)
      apply(v);
  } else if (llvm::json::Object *object = value.getAsObject()) {
    llvm::json::Object scrubbed;
    for (auto &[key, v] : *object) {
      apply(v);
      scrubbed[(*this)(key)] = std::move(v);
    }
    *object = std::move(scrubbed);
  }
}

std::string HostPaths::applyToJSON(StringRef json) const {
  bool named = llvm::any_of(folders,
                            [&](const auto &f) {
                              return json.contains(f.first);
                            }) ||
               llvm::any_of(prefixes, [&](const auto &p) {
                 return json.contains(p.first);
               });
  if (!named)
    return json.str();
  auto value = llvm::json::parse(json);
  if (!value) {
    llvm::consumeError(value.takeError());
    return json.str();
  }
  apply(*value);
  return llvm::formatv("{0}", *value).str();
}
