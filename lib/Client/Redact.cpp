//===- Redact.cpp - Keys kept out of everything written -------------------===//
//
// Each form of a key is cut into windows of Redactor::minRun characters (a
// form shorter than that is one window); a text is scanned with a rolling
// hash of its lower-cased bytes, each hit is compared byte by byte, and the
// bytes of every window found are marked. Overlapping windows cover any
// longer run, so each maximal marked run becomes one `[redacted]`.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Redact.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Base64.h"

using namespace ptxbench::client;
using llvm::StringRef;

namespace {

constexpr uint64_t base = 1099511628211ull;

unsigned char lower(char c) { return (unsigned char)llvm::toLower(c); }

/// The hash of `length` lower-cased bytes at `text`, salted by the length
/// so windows of different lengths do not meet.
uint64_t windowHash(const char *text, size_t length) {
  uint64_t h = 0;
  for (size_t i = 0; i < length; ++i)
    h = h * base + lower(text[i]);
  return h ^ (uint64_t(length) * 0x9e3779b97f4a7c15ull);
}

/// `bytes` in base64 without padding, in the standard alphabet or the
/// URL-safe one.
std::string base64(StringRef bytes, bool urlSafe) {
  std::string out = llvm::encodeBase64(bytes);
  while (!out.empty() && out.back() == '=')
    out.pop_back();
  if (urlSafe)
    for (char &c : out)
      c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

/// The characters of the base64 of `secret` that do not depend on the
/// bytes around it when it starts `align` bytes into a 3-byte group.
std::string base64Core(StringRef secret, unsigned align, bool urlSafe) {
  std::string padded(align, '\0');
  padded += secret.str();
  std::string encoded = base64(padded, urlSafe);
  size_t skip = align == 0 ? 0 : align == 1 ? 2 : 3;
  size_t drop = padded.size() % 3 ? 1 : 0;
  if (encoded.size() <= skip + drop)
    return "";
  return encoded.substr(skip, encoded.size() - skip - drop);
}

std::string percentEncoded(StringRef secret) {
  std::string out;
  for (char c : secret) {
    if (llvm::isAlnum(c) || StringRef("-._~").contains(c))
      out.push_back(c);
    else
      out += "%" + llvm::utohexstr((unsigned char)c, false, 2);
  }
  return out;
}

} // namespace

void Redactor::addForm(std::string form) {
  if (form.size() < 4 || llvm::is_contained(forms, form))
    return;
  size_t index = forms.size();
  size_t length = std::min(form.size(), minRun);
  if (!llvm::is_contained(lengths, length))
    lengths.push_back(length);
  for (size_t at = 0; at + length <= form.size(); ++at)
    windows[windowHash(form.data() + at, length)].push_back(
        {index, at, length});
  forms.push_back(std::move(form));
}

void Redactor::add(StringRef secret) {
  if (secret.size() < 4)
    return;
  addForm(secret.lower());
  for (bool urlSafe : {false, true})
    for (unsigned align = 0; align < 3; ++align)
      addForm(StringRef(base64Core(secret, align, urlSafe)).lower());
  addForm(StringRef(percentEncoded(secret)).lower());
}

std::string Redactor::operator()(StringRef text) const {
  if (forms.empty())
    return text.str();
  std::vector<bool> marked(text.size(), false);
  bool any = false;
  for (size_t length : lengths) {
    if (text.size() < length)
      continue;
    uint64_t power = 1; // base^(length - 1)
    for (size_t i = 1; i < length; ++i)
      power *= base;
    uint64_t salt = uint64_t(length) * 0x9e3779b97f4a7c15ull;
    uint64_t h = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      if (i >= length)
        h -= power * lower(text[i - length]);
      h = h * base + lower(text[i]);
      if (i + 1 < length)
        continue;
      auto it = windows.find(h ^ salt);
      if (it == windows.end())
        continue;
      size_t start = i + 1 - length;
      for (const Window &w : it->second) {
        if (w.length != length)
          continue;
        StringRef want = StringRef(forms[w.form]).substr(w.offset, length);
        if (!text.substr(start, length).equals_insensitive(want))
          continue;
        std::fill(marked.begin() + start, marked.begin() + start + length,
                  true);
        any = true;
        break;
      }
    }
  }
  if (!any)
    return text.str();
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (!marked[i]) {
      out.push_back(text[i]);
      continue;
    }
    out += "[redacted]";
    while (i + 1 < text.size() && marked[i + 1])
      ++i;
  }
  return out;
}

void Redactor::apply(llvm::json::Value &value) const {
  if (forms.empty())
    return;
  if (std::optional<StringRef> s = value.getAsString()) {
    std::string redacted = (*this)(*s);
    if (redacted != *s)
      value = std::move(redacted);
  } else if (llvm::json::Array *a = value.getAsArray()) {
    for (llvm::json::Value &v : *a)
      apply(v);
  } else if (llvm::json::Object *o = value.getAsObject()) {
    llvm::json::Object out;
    for (auto &kv : *o) {
      llvm::json::Value v = std::move(kv.second);
      apply(v);
      out[(*this)(kv.first)] = std::move(v);
    }
    *o = std::move(out);
  }
}
