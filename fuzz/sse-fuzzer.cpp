//===- sse-fuzzer.cpp - libFuzzer target: server-sent events --------------===//
//
// The SSE parser (SseParser::feed) on arbitrary bytes, with its default
// limits and with small ones (so the line and event limits are reached by
// short inputs). Besides crashes and leaks it checks that the parse does
// not depend on how the network cut the stream: the whole body at once,
// byte by byte, and in chunks of a size taken from the input give the same
// events, the same error and the same pending state.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Sse.h"

#include <cstdio>
#include <cstdlib>

using namespace ptxbench::client;

namespace {

struct Parse {
  std::vector<SseEvent> events;
  std::string error;
  bool pending = false;
};

Parse parseInChunks(llvm::StringRef text, size_t step, SseLimits limits) {
  SseParser parser(limits);
  Parse p;
  for (size_t at = 0; at < text.size(); at += step)
    for (SseEvent &e : parser.feed(text.substr(at, step)))
      p.events.push_back(std::move(e));
  p.error = parser.error();
  p.pending = parser.pending();
  return p;
}

bool same(const Parse &a, const Parse &b) {
  if (a.error != b.error || a.pending != b.pending ||
      a.events.size() != b.events.size())
    return false;
  for (size_t i = 0; i < a.events.size(); ++i)
    if (a.events[i].event != b.events[i].event ||
        a.events[i].data != b.events[i].data)
      return false;
  return true;
}

void describe(const char *name, const Parse &p) {
  fprintf(stderr, "%s: %zu events, error '%s', pending %d\n", name,
          p.events.size(), p.error.c_str(), int(p.pending));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  SseLimits small;
  small.maxLine = 40;
  small.maxEvent = 100;
  for (SseLimits limits : {SseLimits(), small}) {
    Parse whole = parseInChunks(text, std::max<size_t>(size, 1), limits);
    Parse bytes = parseInChunks(text, 1, limits);
    Parse chunks = parseInChunks(text, 1 + size % 13, limits);
    if (!same(whole, bytes) || !same(whole, chunks)) {
      fprintf(stderr, "sse-fuzzer: the parse depends on the chunks (limits "
                      "%zu/%zu)\n",
              limits.maxLine, limits.maxEvent);
      describe("whole", whole);
      describe("byte by byte", bytes);
      describe("chunks", chunks);
      abort();
    }
  }
  return 0;
}
