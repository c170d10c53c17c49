//===- TerminalTextTest.cpp - Untrusted text made safe for a terminal -----===//
//
// The sequences a hostile answer would use on a terminal (a title change,
// a screen clear, a line overwritten by CR or backspaces, NUL, 8-bit CSI,
// a bidi override) come out visible; code and UTF-8 text come out as they
// were.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/TerminalText.h"

#include "gtest/gtest.h"

using namespace ptxbench;

namespace {

TEST(TerminalTextTest, ControlsAreShown) {
  EXPECT_EQ(escapeControls("\x1b]0;pwned\x07title"), "\\x1b]0;pwned\\x07title");
  EXPECT_EQ(escapeControls("ok\x1b[2J"), "ok\\x1b[2J");
  EXPECT_EQ(escapeControls("secret\rshown"), "secret\\x0dshown");
  EXPECT_EQ(escapeControls("abc\b\b\bxyz"), "abc\\x08\\x08\\x08xyz");
  EXPECT_EQ(escapeControls(llvm::StringRef("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(escapeControls("del\x7f"), "del\\x7f");
  // The C1 CSI as UTF-8 and as a raw byte; a right-to-left override.
  EXPECT_EQ(escapeControls("\xc2\x9b"
                           "31m"),
            "\\u009b31m");
  EXPECT_EQ(escapeControls("\x9b"
                           "31m"),
            "\\x9b31m");
  EXPECT_EQ(escapeControls("x\xe2\x80\xaey"), "x\\u202ey");
  // Not UTF-8: an overlong slash, a cut sequence, a surrogate.
  EXPECT_EQ(escapeControls("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(escapeControls("\xe2\x82"), "\\xe2\\x82");
  EXPECT_EQ(escapeControls("\xed\xa0\x80"), "\\xed\\xa0\\x80");
}

TEST(TerminalTextTest, TextIsKept) {
  const char *code =
      "__global__ void k(float *x) {\n\tx[0] = 1.0f; // é ∑ 🙂\r\n}\n";
  EXPECT_EQ(escapeControls(code), code);
  std::string out;
  llvm::raw_string_ostream os(out);
  writeForTerminal(os, "\x1b[2J"); // not a terminal: as it is
  EXPECT_EQ(out, "\x1b[2J");
}

TEST(TerminalTextTest, QuotedPrefixCutsBetweenCharacters) {
  EXPECT_EQ(quotedPrefix("short", 5), "short");
  EXPECT_EQ(quotedPrefix("longer", 4), "long...");
  // "é" is two bytes and "🙂" four: a cut inside one backs off to its start.
  EXPECT_EQ(quotedPrefix("a\xc3\xa9" "b", 2), "a...");
  EXPECT_EQ(quotedPrefix("a\xc3\xa9" "b", 3), "a\xc3\xa9...");
  EXPECT_EQ(quotedPrefix("\xf0\x9f\x99\x82!", 3), "...");
}

} // namespace
