//===- JSON.cpp - Reading untrusted JSON text within limits ---------------===//
//
// One pass without recursion finds what llvm::json::parse must not see or
// does not report: the nesting depth (brackets outside strings), and keys
// repeated within an object (each object's keys by its number in the text).
// The text is then handed to llvm::json::parse, whose recursion is bounded by
// the depth found, and its syntax errors are given the same shape as ours.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <vector>

using namespace ptxbench;
using llvm::StringRef;

char JSONError::ID = 0;

void JSONError::log(llvm::raw_ostream &os) const {
  if (line)
    os << line << ":" << column << ": ";
  if (!path.empty())
    os << path << ": ";
  os << message;
}

std::error_code JSONError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

std::string ptxbench::describeJSONError(llvm::Error error, StringRef file) {
  std::string text;
  llvm::handleAllErrors(
      std::move(error),
      [&](const JSONError &e) {
        text = file.str();
        if (e.line)
          text += llvm::formatv(":{0}:{1}", e.line, e.column).str();
        text += ": " + (e.path.empty() ? "" : e.path + ": ") + e.message;
      },
      [&](const llvm::ErrorInfoBase &e) {
        text = file.str() + ": " + e.message();
      });
  return text;
}

namespace {

/// The 1-based line and column of byte `offset`.
std::pair<unsigned, unsigned> placeOf(StringRef text, size_t offset) {
  StringRef before = text.take_front(offset);
  size_t lineStart = before.rfind('\n');
  lineStart = lineStart == StringRef::npos ? 0 : lineStart + 1;
  return {unsigned(before.count('\n') + 1), unsigned(offset - lineStart + 1)};
}

llvm::Error errorAt(JSONError::Kind kind, StringRef text, size_t offset,
                    std::string path, const llvm::Twine &message) {
  auto [line, column] = placeOf(text, offset);
  return llvm::make_error<JSONError>(kind, line, column, std::move(path),
                                     message.str());
}

/// A string's text between its quotes, decoded when it has escapes.
std::string decodeString(StringRef raw) {
  if (!raw.contains('\\'))
    return raw.str();
  // Its own string literal: no nesting, so llvm::json can decode it.
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse(("\"" + raw + "\"").str());
  if (!value) {
    llvm::consumeError(value.takeError());
    return raw.str();
  }
  return value->getAsString().value_or(raw).str();
}

/// An array or object being scanned, and the element of it being read.
struct Frame {
  bool object = false;
  /// Objects: the next string is a key (after `{` or `,`).
  bool expectKey = false;
  unsigned serial = 0;
  std::string key;
  size_t index = 0;
};

/// The JSON path of the element each frame is reading, TaskReader's way:
/// `a.b[2].c`.
std::string pathOf(const std::vector<Frame> &stack) {
  std::string path;
  for (const Frame &f : stack) {
    if (f.object)
      path += (path.empty() ? "" : ".") + f.key;
    else
      path += "[" + std::to_string(f.index) + "]";
  }
  return path;
}

class Scanner {
public:
  Scanner(StringRef text, const JSONLimits &limits)
      : text(text), limits(limits) {}

  /// The depth error, or success with `duplicate` set to the first repeated
  /// key.
  llvm::Error run() {
    std::vector<Frame> stack;
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      switch (c) {
      case '"': {
        size_t end = i + 1;
        while (end < text.size() && text[end] != '"')
          end += text[end] == '\\' ? 2 : 1;
        if (end >= text.size())
          return llvm::Error::success(); // unterminated: parse says so
        if (!stack.empty() && stack.back().object && stack.back().expectKey)
          key(stack, i, text.slice(i + 1, end));
        i = end;
        break;
      }
      case '{':
      case '[':
        if (stack.size() >= limits.maxDepth)
          return errorAt(JSONError::Kind::Depth, text, i, "",
                         llvm::formatv("arrays and objects nested deeper than "
                                       "{0} levels",
                                       limits.maxDepth));
        stack.emplace_back();
        stack.back().object = c == '{';
        stack.back().expectKey = c == '{';
        stack.back().serial = objects++;
        break;
      case '}':
      case ']':
        if (!stack.empty())
          stack.pop_back();
        break;
      case ',':
        if (!stack.empty()) {
          stack.back().expectKey = stack.back().object;
          ++stack.back().index;
        }
        break;
      default:
        break;
      }
    }
    return llvm::Error::success();
  }

  /// The first repeated key: its offset, path and message.
  struct Duplicate {
    size_t offset;
    std::string path, message;
  };
  std::optional<Duplicate> duplicate;

private:
  void key(std::vector<Frame> &stack, size_t offset, StringRef raw) {
    Frame &f = stack.back();
    f.expectKey = false;
    f.key = decodeString(raw);
    if (duplicate)
      return;
    std::string id(reinterpret_cast<const char *>(&f.serial), sizeof f.serial);
    id += f.key;
    auto [it, inserted] = firstKey.try_emplace(id, offset);
    if (inserted)
      return;
    auto [line, column] = placeOf(text, it->second);
    duplicate = Duplicate{offset, pathOf(stack),
                          llvm::formatv("duplicate key \"{0}\" (the first is "
                                        "at {1}:{2}; JSON keeps only one)",
                                        f.key, line, column)};
  }

  StringRef text;
  const JSONLimits &limits;
  unsigned objects = 0;
  /// The offset of each object's keys: object serial, then the key.
  llvm::StringMap<size_t> firstKey;
};

/// llvm::json's "[3:2, byte=10]: Expected , or ] after array element" as a
/// JSONError.
llvm::Error syntaxError(llvm::Error error) {
  std::string text = llvm::toString(std::move(error));
  StringRef rest(text);
  unsigned line = 0, column = 0;
  if (rest.consume_front("[")) {
    auto [place, message] = rest.split("]: ");
    StringRef lineText = place.take_until([](char c) { return c == ':'; });
    StringRef columnText =
        place.drop_front(lineText.size() + 1).take_until([](char c) {
          return c == ',';
        });
    if (!lineText.getAsInteger(10, line) &&
        !columnText.getAsInteger(10, column))
      rest = message;
    else
      line = column = 0;
  }
  if (!line)
    rest = text;
  return llvm::make_error<JSONError>(JSONError::Kind::Syntax, line, column,
                                     "", rest.str());
}

} // namespace

llvm::Expected<llvm::json::Value>
ptxbench::parseJSON(StringRef text, const JSONLimits &limits) {
  if (text.size() > limits.maxBytes)
    return llvm::make_error<JSONError>(
        JSONError::Kind::Size, 0, 0, "",
        llvm::formatv("the JSON text is {0} bytes, over the limit of {1}",
                      text.size(), limits.maxBytes)
            .str());
  if (text.starts_with("\xEF\xBB\xBF"))
    return llvm::make_error<JSONError>(
        JSONError::Kind::ByteOrderMark, 1, 1, "",
        "the text starts with a UTF-8 byte-order mark (EF BB BF), which JSON "
        "does not allow; save it as UTF-8 without one");
  Scanner scanner(text, limits);
  if (llvm::Error error = scanner.run())
    return std::move(error);
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value)
    return syntaxError(value.takeError());
  if (const std::optional<Scanner::Duplicate> &d = scanner.duplicate)
    return errorAt(JSONError::Kind::DuplicateKey, text, d->offset, d->path,
                   d->message);
  return value;
}
