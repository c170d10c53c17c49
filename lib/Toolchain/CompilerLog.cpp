//===- CompilerLog.cpp - NVRTC's log, located and free of host paths ------===//
//
// NVRTC writes `file(line): error: text`, the source line and a caret
// under the column. The file is the program's name or a header's path as
// the include search found it (/usr/local/cuda/include/cuda_fp16.h). The
// log is rewritten once, where it is made, as `file:line:column: error:
// text` with the toolkit's include folders taken off (`cuda_fp16.h:168:10`),
// so that nothing downstream (feedback, the results store, a model's next
// prompt) ever sees where the toolkit, the harness or the sample lives, and
// a message in a header is attributed to that header. parseCompilerLog
// reads both forms.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/CudaCompiler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace ptxbench::toolchain;
using llvm::StringRef;

namespace {

/// The parts of a message's first line.
struct Header {
  StringRef file, rest; // rest: "error: text", "warning #177-D: text"
  unsigned line = 0, column = 0;
};

/// `file(line): rest` (NVRTC's own form).
bool parseNvrtcHeader(StringRef text, Header &h) {
  size_t close = text.find("): ");
  if (close == StringRef::npos)
    return false;
  size_t open = text.take_front(close).rfind('(');
  if (open == StringRef::npos || open == 0 ||
      text.slice(open + 1, close).getAsInteger(10, h.line))
    return false;
  h.file = text.take_front(open);
  h.rest = text.drop_front(close + 3);
  return true;
}

/// `file:line[:column]: rest` (the rewritten form).
bool parseColonHeader(StringRef text, Header &h) {
  for (size_t at = text.find(':'); at != StringRef::npos;
       at = text.find(':', at + 1)) {
    StringRef after = text.drop_front(at + 1);
    size_t digits = after.find_first_not_of("0123456789");
    if (digits == 0 || digits == StringRef::npos)
      continue;
    unsigned line = 0, column = 0;
    after.take_front(digits).getAsInteger(10, line);
    StringRef tail = after.drop_front(digits);
    if (tail.consume_front(":")) {
      size_t more = tail.find_first_not_of("0123456789");
      if (more != 0 && more != StringRef::npos) {
        tail.take_front(more).getAsInteger(10, column);
        tail = tail.drop_front(more);
        if (!tail.consume_front(":"))
          continue;
      }
    } else {
      continue;
    }
    if (!tail.consume_front(" "))
      continue;
    h.file = text.take_front(at);
    h.line = line;
    h.column = column;
    h.rest = tail;
    return !h.file.empty();
  }
  return false;
}

/// Whether `rest` starts a message the log's readers keep.
bool isSeverity(StringRef rest, bool &error) {
  error = rest.starts_with("error") || rest.starts_with("catastrophic error");
  return error || rest.starts_with("warning") || rest.starts_with("remark") ||
         rest.starts_with("note");
}

/// The caret's column in the lines after a header (NVRTC indents the
/// excerpt by two), or 0 when there is none.
unsigned caretColumn(llvm::ArrayRef<StringRef> lines, size_t header) {
  if (header + 2 >= lines.size())
    return 0;
  StringRef caret = lines[header + 2].rtrim();
  if (caret.empty() || caret.back() != '^' ||
      caret.drop_back().find_first_not_of(' ') != StringRef::npos ||
      caret.size() < 3)
    return 0;
  return unsigned(caret.size() - 2);
}

} // namespace

std::string CompilerMessage::location() const {
  std::string where = file + ":" + std::to_string(line);
  if (column)
    where += ":" + std::to_string(column);
  return where;
}

std::vector<CompilerMessage>
ptxbench::toolchain::parseCompilerLog(StringRef log) {
  // Lines after a message (source excerpt and caret) belong to it.
  llvm::SmallVector<StringRef> lines;
  log.split(lines, '\n');
  std::vector<CompilerMessage> messages;
  for (size_t i = 0; i < lines.size(); ++i) {
    Header h;
    bool nvrtc = parseNvrtcHeader(lines[i], h);
    if (!nvrtc && !parseColonHeader(lines[i], h))
      continue;
    CompilerMessage message;
    if (!isSeverity(h.rest, message.error) || h.rest.starts_with("note"))
      continue;
    message.file = h.file.str();
    message.line = h.line;
    message.column = nvrtc ? caretColumn(lines, i) : h.column;
    size_t colon = h.rest.find(": ");
    message.text =
        (colon == StringRef::npos ? h.rest : h.rest.drop_front(colon + 2))
            .trim()
            .str();
    messages.push_back(std::move(message));
  }
  return messages;
}

std::string
ptxbench::toolchain::normalizeCompilerLog(StringRef log,
                                          llvm::ArrayRef<std::string> roots) {
  // Longest folder first: CCCL's lies inside the toolkit's.
  std::vector<std::string> prefixes;
  for (const std::string &root : roots)
    if (!root.empty())
      prefixes.push_back(StringRef(root).rtrim('/').str() + "/");
  llvm::sort(prefixes, [](const std::string &a, const std::string &b) {
    return a.size() > b.size();
  });
  std::string text;
  text.reserve(log.size());
  for (size_t at = 0; at < log.size();) {
    size_t matched = 0;
    for (const std::string &prefix : prefixes)
      if (log.substr(at).starts_with(prefix)) {
        matched = prefix.size();
        break;
      }
    if (matched) {
      at += matched;
      continue;
    }
    text += log[at++];
  }
  llvm::SmallVector<StringRef> lines;
  StringRef(text).split(lines, '\n');
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    Header h;
    bool error;
    if (parseNvrtcHeader(lines[i], h) && isSeverity(h.rest, error)) {
      h.column = caretColumn(lines, i);
      out += (h.file + ":" + llvm::Twine(h.line)).str();
      if (h.column)
        out += ":" + std::to_string(h.column);
      out += ": " + h.rest.str();
    } else {
      out += lines[i].str();
    }
    if (i + 1 < lines.size())
      out += '\n';
  }
  return out;
}
