//===- PTXLexer.cpp - Tokens of PTX text ----------------------------------===//
//
// A hand-written lexer over the PTX buffer: one pass, no copies, line and
// column tracked as it goes.
//
//===----------------------------------------------------------------------===//

#include "PTXLexer.h"

#include "llvm/ADT/StringExtras.h"

using namespace ptxbench::ptximport;

static bool isWordStart(char c) {
  return llvm::isAlpha(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

static bool isWordChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/// Whether the number in [start, cur) is decimal (not 0x, 0f, 0d, 0b).
static bool isDecimal(const char *start, const char *cur) {
  return !(cur - start > 1 && start[0] == '0' && llvm::isAlpha(start[1]) &&
           start[1] != 'e' && start[1] != 'E');
}

void Lexer::skipTo(const char *pos) {
  for (; cur < pos; ++cur)
    if (*cur == '\n') {
      ++line;
      lineStart = cur + 1;
    }
}

void Lexer::skipSpaceAndComments() {
  while (cur < end) {
    char c = *cur;
    if (c == '\n') {
      ++line;
      lineStart = ++cur;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++cur;
    } else if (c == '/' && cur + 1 < end && cur[1] == '/') {
      const char *start = cur;
      while (cur < end && *cur != '\n')
        ++cur;
      llvm::StringRef comment(start, cur - start);
      if (comment.starts_with("// begin inline asm"))
        inlineAsm = true;
      else if (comment.starts_with("// end inline asm"))
        inlineAsm = false;
    } else if (c == '/' && cur + 1 < end && cur[1] == '*') {
      const char *close = cur + 2;
      while (close + 1 < end && !(close[0] == '*' && close[1] == '/'))
        ++close;
      // An unterminated comment runs to the end of the buffer.
      skipTo(close + 1 < end ? close + 2 : end);
    } else {
      return;
    }
  }
}

Token Lexer::make(Token::Kind kind, const char *start) {
  Token tok;
  tok.kind = kind;
  tok.text = llvm::StringRef(start, cur - start);
  tok.line = line;
  tok.column = start - lineStart + 1;
  return tok;
}

Token Lexer::next() {
  skipSpaceAndComments();
  const char *start = cur;
  if (cur == end)
    return make(Token::Eof, start);
  char c = *cur;
  if (isWordStart(c)) {
    // A directive word ends at the next dot: `.reg.b16` is `.reg` `.b16`
    // and `.ptr.global.align` three words.
    bool directive = c == '.';
    ++cur;
    while (cur < end) {
      if (directive && *cur == '.')
        break;
      if (isWordChar(*cur))
        ++cur;
      else if (*cur == ':' && cur + 1 < end && cur[1] == ':')
        cur += 2;
      else
        break;
    }
    return make(Token::Word, start);
  }
  if (llvm::isDigit(c)) {
    // 42, 42U, 0x1F, 0f3F800000, 0d..., 1.5, 1.5e-3: alphanumerics and dots,
    // with a sign right after an exponent.
    ++cur;
    while (cur < end) {
      if (llvm::isAlnum(*cur) || *cur == '.')
        ++cur;
      else if ((*cur == '-' || *cur == '+') &&
               (cur[-1] == 'e' || cur[-1] == 'E') && isDecimal(start, cur))
        ++cur;
      else
        break;
    }
    return make(Token::Number, start);
  }
  if (c == '"') {
    ++cur;
    while (cur < end && *cur != '"' && *cur != '\n') {
      if (*cur == '\\' && cur + 1 < end)
        ++cur;
      ++cur;
    }
    if (cur == end || *cur != '"')
      return make(Token::Error, start);
    ++cur;
    return make(Token::String, start);
  }
  switch (c) {
  case ',':
  case ';':
  case ':':
  case '[':
  case ']':
  case '{':
  case '}':
  case '(':
  case ')':
  case '<':
  case '>':
  case '+':
  case '-':
  case '|':
  case '!':
  case '@':
  case '=':
  case '*':
  case '/':
  case '~':
  case '&':
  case '^':
    ++cur;
    return make(Token::Punct, start);
  default:
    ++cur;
    return make(Token::Error, start);
  }
}
