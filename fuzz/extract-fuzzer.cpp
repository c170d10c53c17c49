//===- extract-fuzzer.cpp - libFuzzer target: a model's answer ------------===//
//
// The answer extractor as `ptxbench extract`, generate and eval call it
// (extractCode) on arbitrary bytes. Checked besides crashes: the code it
// returns is the answer's own lines from the line it names on (each line
// as written, a CR before its LF dropped), never more than the answer.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/ExtractCode.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdio>
#include <cstdlib>

using namespace ptxbench::prompt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef answer(reinterpret_cast<const char *>(data), size);
  llvm::Expected<ExtractedCode> code = extractCode(answer);
  if (!code) {
    llvm::consumeError(code.takeError());
    return 0;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  answer.split(lines, '\n');
  llvm::StringRef rest(code->code);
  unsigned at = code->line;
  bool ok = at >= 1 && code->code.size() <= answer.size();
  while (ok && !rest.empty()) {
    auto [line, tail] = rest.split('\n');
    ok = at <= lines.size() && rest.contains('\n');
    if (ok) {
      llvm::StringRef written = lines[at - 1];
      written.consume_back("\r");
      ok = written == line;
    }
    rest = tail;
    ++at;
  }
  if (!ok) {
    fprintf(stderr, "extract-fuzzer: the code is not the answer's lines from "
                    "line %u\n",
            code->line);
    abort();
  }
  return 0;
}
