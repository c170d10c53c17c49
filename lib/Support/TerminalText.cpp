//===- TerminalText.cpp - Untrusted text made safe for a terminal ---------===//
//
// One pass over the bytes, decoding UTF-8 as it goes: a sequence that is
// well formed and not a control is copied, everything else is escaped.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/TerminalText.h"

#include "llvm/Support/Format.h"

using namespace ptxbench;
using llvm::StringRef;

namespace {

/// The length and code point of the UTF-8 sequence at `s[i]`, or 0 when it
/// is not well formed (overlong, surrogate, past U+10FFFF, cut short).
size_t decodeUTF8(StringRef s, size_t i, uint32_t &cp) {
  unsigned char c = s[i];
  size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
  if (!n || c >= 0xf8 || i + n > s.size())
    return 0;
  cp = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = s[i + k];
    if ((d & 0xc0) != 0x80)
      return 0;
    cp = (cp << 6) | (d & 0x3f);
  }
  static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

bool isHiddenControl(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

} // namespace

std::string ptxbench::escapeControls(StringRef text) {
  std::string out;
  out.reserve(text.size());
  llvm::raw_string_ostream os(out);
  for (size_t i = 0; i < text.size();) {
    unsigned char c = text[i];
    if (c < 0x80) {
      bool kept = c >= 0x20 ? c != 0x7f
                            : c == '\n' || c == '\t' ||
                                  (c == '\r' && i + 1 < text.size() &&
                                   text[i + 1] == '\n');
      if (kept)
        os << char(c);
      else
        os << "\\x" << llvm::format_hex_no_prefix(c, 2);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    size_t n = decodeUTF8(text, i, cp);
    if (!n) {
      os << "\\x" << llvm::format_hex_no_prefix(c, 2);
      ++i;
    } else if (isHiddenControl(cp)) {
      os << "\\u" << llvm::format_hex_no_prefix(cp, 4);
      i += n;
    } else {
      os << text.substr(i, n);
      i += n;
    }
  }
  return out;
}

std::string ptxbench::quotedPrefix(StringRef text, size_t bytes) {
  if (text.size() <= bytes)
    return text.str();
  size_t cut = bytes;
  while (cut > 0 && (uint8_t(text[cut]) & 0xc0) == 0x80)
    --cut;
  return text.take_front(cut).str() + "...";
}

void ptxbench::writeForTerminal(llvm::raw_ostream &os, StringRef text) {
  if (os.is_displayed())
    os << escapeControls(text);
  else
    os << text;
}
