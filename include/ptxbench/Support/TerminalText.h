//===- TerminalText.h - Untrusted text made safe for a terminal -*- C++ -*-===//
//
// Model output printed to a terminal must not drive it: an escape sequence
// can rewrite the screen, set the window title or hide what follows, a
// carriage return or backspaces can overwrite a line, NUL and the C1
// controls confuse terminals and the tools between. escapeControls shows
// each of them as a visible escape; printed text that goes to a file or a
// pipe stays byte for byte what it was.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_SUPPORT_TERMINALTEXT_H
#define PTXBENCH_SUPPORT_TERMINALTEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ptxbench {

/// `text` with C0 controls but newline and tab (and a carriage return
/// before a newline), DEL, the C1 controls U+0080 to U+009F, the bidi
/// overrides (U+202A to U+202E, U+2066 to U+2069) and bytes that are not
/// UTF-8 written as `\x1b`, `\u009b`, `\u202e`, `\xff`.
std::string escapeControls(llvm::StringRef text);

/// Writes `text` to `os`, through escapeControls when `os` is a terminal.
void writeForTerminal(llvm::raw_ostream &os, llvm::StringRef text);

/// At most the first `bytes` bytes of `text`, for quoting it in a message:
/// when it is cut, the cut backs off UTF-8 continuation bytes (no character
/// is split in two) and "..." is appended.
std::string quotedPrefix(llvm::StringRef text, size_t bytes);

} // namespace ptxbench

#endif // PTXBENCH_SUPPORT_TERMINALTEXT_H
