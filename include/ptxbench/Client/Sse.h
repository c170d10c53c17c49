//===- Sse.h - Server-sent events, parsed incrementally ---------*- C++ -*-===//
//
// The `text/event-stream` format both chat APIs stream in: lines of
// `event:` and `data:` fields, an empty line ending each event, `:` lines
// as comments. feed() takes the body in whatever chunks the network
// delivers and returns the events completed so far. A line or an event
// longer than its limit ends the parse with an error: the parser's memory
// stays bounded whatever a server sends.
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

struct SseLimits {
  /// Bytes of one line, its end not counted (a chunk of a chat stream is a
  /// few hundred).
  size_t maxLine = size_t(1) << 20;
  /// Bytes of one event's data.
  size_t maxEvent = size_t(4) << 20;
};

class SseParser {
public:
  explicit SseParser(SseLimits limits = {}) : limits(limits) {}

  /// Appends `chunk` and returns the events it completed. After an error,
  /// returns nothing more.
  std::vector<SseEvent> feed(llvm::StringRef chunk);
  /// Whether bytes of an unfinished event are pending (a cut stream).
  bool pending() const;
  /// What went past the limits; empty while the stream is within them.
  const std::string &error() const { return failure; }

private:
  void fail(const std::string &why);

  SseLimits limits;
  std::string buffer;
  /// Where in `buffer` the search for the next line end resumes.
  size_t searchFrom = 0;
  SseEvent current;
  bool hasData = false;
  std::string failure;
};

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_SSE_H
