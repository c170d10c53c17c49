//===- IncludeCheck.cpp - A submission includes toolkit headers only ------===//
//
// A small lexer over the source as the preprocessor sees it: line splices
// removed first (a `#inc\` + newline + `lude` is an include), comments
// and string, character and raw string literals skipped (raw strings on
// the text before splicing, as the standard has it), a directive wherever
// `#` or the digraph `%:` is the first token of a line, also after a
// comment (`/* x */ #include`). pp-numbers are read whole, with digit
// separators, so that `1'2'` does not open a character literal. Every
// `#include`, `#include_next`, `#import` and `#embed` must name, in quotes
// or angle brackets, a relative path without `..` that is a file below one
// of the include folders; `__has_include` likewise (it would otherwise
// tell whether any host file exists). One pass over the text; at most
// `limit` findings.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/IncludeCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

using namespace ptxbench::toolchain;
using llvm::StringRef;

namespace {

constexpr const char *onlyToolkit =
    "submissions may include only CUDA toolkit headers";

/// The source after line splicing, each character with its offset in the
/// source (and one past the end).
struct Spliced {
  std::string text;
  std::vector<size_t> offset;
  explicit Spliced(StringRef source) {
    text.reserve(source.size());
    offset.reserve(source.size() + 1);
    for (size_t i = 0; i < source.size();) {
      if (source[i] == '\\') {
        size_t j = i + 1;
        if (j < source.size() && source[j] == '\r')
          ++j;
        if (j < source.size() && source[j] == '\n') {
          i = j + 1;
          continue;
        }
      }
      text += source[i];
      offset.push_back(i++);
    }
    offset.push_back(source.size());
  }
  /// The first spliced index at or after source offset `physical`.
  size_t at(size_t physical) const {
    return size_t(std::lower_bound(offset.begin(), offset.end(), physical) -
                  offset.begin());
  }
};

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}
bool isIdentStart(char c) {
  return llvm::isAlpha(c) || c == '_' || c == '$' || (unsigned char)c >= 0x80;
}
bool isIdentChar(char c) { return isIdentStart(c) || llvm::isDigit(c); }

class Scanner {
public:
  Scanner(StringRef source, llvm::ArrayRef<std::string> dirs, unsigned limit)
      : source(source), s(source), t(s.text), dirs(dirs), limit(limit) {}

  /// Findings by their offset in the source.
  std::map<size_t, std::string> findings;

  void run() {
    size_t n = t.size(), i = 0;
    bool lineStart = true;
    while (i < n && findings.size() < limit) {
      char c = t[i];
      if (c == '\n') {
        lineStart = true;
        ++i;
      } else if (isBlank(c)) {
        ++i;
      } else if (startsComment(i)) {
        // A comment that spans lines leaves a line start behind it.
        size_t end = skipComment(i);
        if (StringRef(t).slice(i, end).contains('\n'))
          lineStart = true;
        i = end;
      } else if (lineStart && (c == '#' || (c == '%' && peek(i + 1) == ':'))) {
        lineStart = false;
        i = directive(i + (c == '#' ? 1 : 2));
      } else {
        lineStart = false;
        i = token(i);
      }
    }
  }

private:
  StringRef source;
  Spliced s;
  const std::string &t;
  llvm::ArrayRef<std::string> dirs;
  unsigned limit;

  char peek(size_t i) const { return i < t.size() ? t[i] : '\0'; }
  bool startsComment(size_t i) const {
    return t[i] == '/' && (peek(i + 1) == '/' || peek(i + 1) == '*');
  }
  size_t skipComment(size_t i) const {
    if (peek(i + 1) == '/')
      return std::min(t.find('\n', i), t.size());
    size_t end = t.find("*/", i + 2);
    return end == std::string::npos ? t.size() : end + 2;
  }
  /// Past blanks and comments; `newlines` also past line ends.
  size_t skipSpace(size_t i, bool newlines) const {
    while (i < t.size()) {
      if (isBlank(t[i]) || (newlines && t[i] == '\n'))
        ++i;
      else if (t[i] == '/' && peek(i + 1) == '*')
        i = skipComment(i);
      else
        break;
    }
    return i;
  }
  size_t identEnd(size_t i) const {
    while (i < t.size() && isIdentChar(t[i]))
      ++i;
    return i;
  }

  void report(size_t i, std::string text) {
    if (findings.size() < limit)
      findings.emplace(s.offset[std::min(i, s.offset.size() - 1)],
                       std::move(text));
  }

  bool allowed(StringRef name) const {
    if (name.empty() || name.starts_with("/") || name.contains('\\') ||
        name.contains('\0'))
      return false;
    for (StringRef part : llvm::split(name, '/'))
      if (part == "..")
        return false;
    for (const std::string &dir : dirs) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, name);
      if (llvm::sys::fs::is_regular_file(path))
        return true;
    }
    return false;
  }

  /// A header name in quotes or angle brackets at `i`: its closing
  /// character's index, or npos.
  size_t headerEnd(size_t i) const {
    char close = t[i] == '"' ? '"' : '>';
    size_t end = t.find_first_of(std::string(1, close) + "\n", i + 1);
    return end == std::string::npos || t[end] != close ? std::string::npos
                                                       : end;
  }

  /// The directive after its `#` at `i`; returns where scanning goes on.
  size_t directive(size_t i) {
    i = skipSpace(i, /*newlines=*/false);
    if (i >= t.size() || !isIdentStart(t[i]))
      return i;
    size_t end = identEnd(i);
    StringRef word = StringRef(t).slice(i, end);
    if (word != "include" && word != "include_next" && word != "import" &&
        word != "embed")
      return end;
    size_t k = skipSpace(end, /*newlines=*/false);
    if (k < t.size() && (t[k] == '"' || t[k] == '<')) {
      size_t close = headerEnd(k);
      if (close == std::string::npos)
        return k + 1; // NVRTC refuses it and reads nothing
      StringRef name = StringRef(t).slice(k + 1, close);
      if (!allowed(name))
        report(k, ("#" + word + " " + StringRef(t).slice(k, close + 1) +
                   " is not allowed: " + onlyToolkit)
                      .str());
      return close + 1;
    }
    if (k < t.size() && isIdentStart(t[k])) {
      size_t macroEnd = identEnd(k);
      report(k, ("#" + word + " of a macro (" +
                 StringRef(t).slice(k, macroEnd) + ") is not allowed: " +
                 onlyToolkit + ", named in quotes or angle brackets")
                    .str());
      return macroEnd;
    }
    return k;
  }

  /// Whether the identifier at `i` follows `defined` or `defined (`.
  bool afterDefined(size_t i) const {
    auto back = [&](size_t j) {
      while (j > 0 && isBlank(t[j - 1]))
        --j;
      return j;
    };
    size_t j = back(i);
    if (j > 0 && t[j - 1] == '(')
      j = back(j - 1);
    return j >= 7 && StringRef(t).slice(j - 7, j) == "defined" &&
           (j == 7 || !isIdentChar(t[j - 8]));
  }

  /// `__has_include` (or `_next`) at [i, end).
  void hasInclude(size_t i, size_t end) {
    StringRef word = StringRef(t).slice(i, end);
    size_t k = skipSpace(end, /*newlines=*/false);
    if (peek(k) != '(') {
      if (!afterDefined(i))
        report(i, (word + " through a macro is not allowed: " + onlyToolkit)
                      .str());
      return;
    }
    k = skipSpace(k + 1, /*newlines=*/false);
    if (k < t.size() && (t[k] == '"' || t[k] == '<')) {
      size_t close = headerEnd(k);
      if (close != std::string::npos &&
          allowed(StringRef(t).slice(k + 1, close)))
        return;
      size_t last = close == std::string::npos ? k + 1 : close + 1;
      report(k, (word + "(" + StringRef(t).slice(k, last) +
                 ") is not allowed: " + onlyToolkit)
                    .str());
      return;
    }
    report(k, (word + " of a macro is not allowed: " + onlyToolkit +
               ", named in quotes or angle brackets")
                  .str());
  }

  /// A quoted literal at `i`; ends at its quote or before the line's end.
  size_t skipQuoted(size_t i) const {
    char quote = t[i];
    for (size_t j = i + 1; j < t.size(); ++j) {
      if (t[j] == '\\')
        ++j;
      else if (t[j] == quote)
        return j + 1;
      else if (t[j] == '\n')
        return j;
    }
    return t.size();
  }

  /// A raw string whose opening quote is at spliced index `quote`: read on
  /// the source, where splices are not undone. Returns the spliced index
  /// past it, or `quote` when it is not a raw string after all.
  size_t skipRaw(size_t quote) const {
    size_t p = s.offset[quote] + 1;
    size_t open = source.find('(', p);
    if (open == StringRef::npos || open - p > 16)
      return quote;
    StringRef delimiter = source.slice(p, open);
    if (delimiter.find_first_of(" ()\\\t\v\f\n") != StringRef::npos)
      return quote;
    std::string closing = (")" + delimiter + "\"").str();
    size_t end = source.find(closing, open + 1);
    return s.at(end == StringRef::npos ? source.size() : end + closing.size());
  }

  /// A pp-number at `i`, digit separators and exponent signs included.
  size_t skipNumber(size_t i) const {
    size_t j = i + 1;
    while (j < t.size()) {
      char c = t[j];
      if (isIdentChar(c) || c == '.')
        ++j;
      else if (c == '\'' && isIdentChar(peek(j + 1)))
        j += 2;
      else if ((c == '+' || c == '-') && StringRef("eEpP").contains(t[j - 1]))
        ++j;
      else
        break;
    }
    return j;
  }

  /// One token of ordinary text at `i`; returns the index past it.
  size_t token(size_t i) {
    char c = t[i];
    if (c == '"' || c == '\'')
      return skipQuoted(i);
    if (llvm::isDigit(c) || (c == '.' && llvm::isDigit(peek(i + 1))))
      return skipNumber(i);
    if (!isIdentStart(c))
      return i + 1;
    size_t end = identEnd(i);
    StringRef word = StringRef(t).slice(i, end);
    if (peek(end) == '"' &&
        (word == "R" || word == "LR" || word == "uR" || word == "UR" ||
         word == "u8R")) {
      size_t past = skipRaw(end);
      return past == end ? end : past;
    }
    if (word == "__has_include" || word == "__has_include_next")
      hasInclude(i, end);
    return end;
  }
};

/// The 1-based line and column of source offset `offset`.
std::pair<unsigned, unsigned> lineAndColumn(StringRef source, size_t offset) {
  StringRef before = source.take_front(offset);
  size_t lineStart = before.rfind('\n');
  lineStart = lineStart == StringRef::npos ? 0 : lineStart + 1;
  return {unsigned(before.count('\n') + 1), unsigned(offset - lineStart + 1)};
}

} // namespace

std::vector<CompilerMessage>
ptxbench::toolchain::checkIncludes(StringRef source, StringRef name,
                                   llvm::ArrayRef<std::string> includeDirs,
                                   unsigned limit) {
  Scanner scanner(source, includeDirs, limit);
  scanner.run();
  std::vector<CompilerMessage> messages;
  for (auto &[offset, text] : scanner.findings) {
    CompilerMessage m;
    m.file = name.str();
    std::tie(m.line, m.column) = lineAndColumn(source, offset);
    m.error = true;
    m.text = std::move(text);
    messages.push_back(std::move(m));
  }
  return messages;
}

std::string ptxbench::toolchain::formatCompilerMessages(
    llvm::ArrayRef<CompilerMessage> messages, StringRef source) {
  llvm::SmallVector<StringRef> lines;
  source.split(lines, '\n');
  std::string log;
  for (const CompilerMessage &m : messages) {
    log += m.location() + ": " + (m.error ? "error: " : "warning: ") + m.text +
           "\n";
    if (m.line == 0 || m.line > lines.size())
      continue;
    StringRef line = lines[m.line - 1].rtrim();
    log += "  " + line.str() + "\n  ";
    // The caret under the column, tabs kept so that it lines up.
    for (unsigned c = 1; c < m.column && c <= line.size(); ++c)
      log += line[c - 1] == '\t' ? '\t' : ' ';
    log += "^\n";
  }
  return log;
}
