//===- json-fuzzer.cpp - libFuzzer target: untrusted JSON -----------------===//
//
// parseJSON, which every reader of untrusted JSON goes through (server
// replies, task files, manifests, models files, stored results), on
// arbitrary bytes. Checked besides crashes: it agrees with llvm::json::parse
// on everything within its limits: a text it accepts parses to the same
// value, and a text it refuses for its syntax llvm::json refuses too. (It
// may refuse more: depth, size, a byte-order mark, duplicate keys.)
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/JSON.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<llvm::json::Value> ours = ptxbench::parseJSON(text);
  if (ours) {
    // Within the depth limit, so llvm::json's recursion is bounded.
    llvm::Expected<llvm::json::Value> theirs = llvm::json::parse(text);
    if (!theirs || *theirs != *ours) {
      fprintf(stderr, "json-fuzzer: parseJSON accepted what llvm::json %s\n",
              theirs ? "reads differently" : "refuses");
      abort();
    }
    return 0;
  }
  bool syntax = false;
  llvm::handleAllErrors(ours.takeError(), [&](const ptxbench::JSONError &e) {
    syntax = e.kind == ptxbench::JSONError::Kind::Syntax;
  });
  if (syntax) {
    llvm::Expected<llvm::json::Value> theirs = llvm::json::parse(text);
    if (theirs) {
      fprintf(stderr, "json-fuzzer: parseJSON refused as a syntax error what "
                      "llvm::json reads\n");
      abort();
    }
    llvm::consumeError(theirs.takeError());
  }
  return 0;
}
