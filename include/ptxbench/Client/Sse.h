//===- Sse.h - Server-sent events, parsed incrementally ---------*- C++ -*-===//
//
// The `text/event-stream` format both chat APIs stream in: lines of
// `event:` and `data:` fields, an empty line ending each event, `:` lines
// as comments. feed() takes the body in whatever chunks the network
// delivers and returns the events completed so far.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CLIENT_SSE_H
#define PTXBENCH_CLIENT_SSE_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ptxbench::client {

struct SseEvent {
  /// The `event:` field; empty when the event had none.
  std::string event;
  /// The `data:` lines joined with newlines.
  std::string data;
};

class SseParser {
public:
  /// Appends `chunk` and returns the events it completed.
  std::vector<SseEvent> feed(llvm::StringRef chunk);
  /// Whether bytes of an unfinished event are pending (a cut stream).
  bool pending() const;

private:
  std::string buffer;
  SseEvent current;
  bool hasData = false;
};

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_SSE_H
