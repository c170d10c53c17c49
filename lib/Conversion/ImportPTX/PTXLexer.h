//===- PTXLexer.h - Tokens of PTX text --------------------------*- C++ -*-===//
//
// Splits PTX text into tokens without copying it. A word is a name, an
// opcode, a directive or a special register: letters, digits, `_`, `$`,
// `%`, `.` and `::` (so `ld.shared::cta.b32` and `%tid.x` are one token
// each). A directive word (one that starts with a dot) ends at the next dot,
// so `.reg.b16` is the two words `.reg` and `.b16`.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_CONVERSION_IMPORTPTX_PTXLEXER_H
#define PTXBENCH_LIB_CONVERSION_IMPORTPTX_PTXLEXER_H

#include "llvm/ADT/StringRef.h"

namespace ptxbench::ptximport {

struct Token {
  enum Kind {
    Eof,
    Error,  // a byte no PTX token starts with
    Word,   // names, opcodes, directives
    Number, // 42, 0x1F, 0f3F800000, 1.5
    String, // "text", quotes included
    Punct,  // one of , ; : [ ] { } ( ) < > + - | ! @ = * / ~ & ^
  };
  Kind kind = Eof;
  llvm::StringRef text;
  unsigned line = 0;
  unsigned column = 0;

  bool is(char punct) const {
    return kind == Punct && text.size() == 1 && text[0] == punct;
  }
  bool isWord(llvm::StringRef word) const {
    return kind == Word && text == word;
  }
};

class Lexer {
public:
  explicit Lexer(llvm::StringRef buffer)
      : cur(buffer.begin()), end(buffer.end()), lineStart(cur) {}

  /// The next token, skipping whitespace and comments.
  Token next();

  /// The position just after the last token, for verbatim captures.
  const char *position() const { return cur; }
  const char *bufferEnd() const { return end; }
  /// Moves to `pos` (inside the buffer, after the current position), keeping
  /// line numbers right.
  void skipTo(const char *pos);
  unsigned currentLine() const { return line; }
  unsigned currentColumn() const { return cur - lineStart + 1; }
  /// Between the `// begin inline asm` and `// end inline asm` comments
  /// LLVM's NVPTX back end writes around inline assembly (as of the last
  /// comment skipped): its `.loc` lines there count the assembly's own
  /// lines, not the source's.
  bool inInlineAsm() const { return inlineAsm; }

private:
  void skipSpaceAndComments();
  Token make(Token::Kind kind, const char *start);

  const char *cur;
  const char *end;
  const char *lineStart;
  unsigned line = 1;
  bool inlineAsm = false;
};

} // namespace ptxbench::ptximport

#endif // PTXBENCH_LIB_CONVERSION_IMPORTPTX_PTXLEXER_H
