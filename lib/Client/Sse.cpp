//===- Sse.cpp - Server-sent events, parsed incrementally -----------------===//
//
// Lines end with LF, CRLF or CR; a field line is `name: value` (one space
// after the colon is dropped), a line without a colon is a field with an
// empty value, and an event is dispatched at an empty line when it has data.
// The unfinished line is searched for its end only in the bytes that came
// since the last search, so a long line costs linear time.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Sse.h"

#include "llvm/Support/FormatVariadic.h"

using namespace ptxbench::client;
using llvm::StringRef;

void SseParser::fail(const std::string &why) {
  failure = why;
  buffer.clear();
  buffer.shrink_to_fit();
  current = SseEvent();
  hasData = false;
}

std::vector<SseEvent> SseParser::feed(StringRef chunk) {
  std::vector<SseEvent> events;
  if (!failure.empty())
    return events;
  buffer.append(chunk.begin(), chunk.end());
  size_t start = 0;
  while (true) {
    size_t end = buffer.find_first_of("\r\n", std::max(start, searchFrom));
    // The line so far (to the end of the buffer when it has not ended).
    if (std::min(end, buffer.size()) - start > limits.maxLine) {
      fail(llvm::formatv("a line of the event stream is longer than {0} bytes",
                         limits.maxLine));
      return events;
    }
    if (end == std::string::npos)
      break;
    // A CR at the very end may be the first half of CRLF: wait for more.
    if (buffer[end] == '\r' && end + 1 == buffer.size())
      break;
    StringRef line(buffer.data() + start, end - start);
    start = end + 1;
    if (buffer[end] == '\r' && buffer[start] == '\n')
      ++start;
    if (line.empty()) {
      if (hasData) {
        if (StringRef(current.data).ends_with("\n"))
          current.data.pop_back();
        events.push_back(std::move(current));
      }
      current = SseEvent();
      hasData = false;
      continue;
    }
    if (line.starts_with(":"))
      continue;
    auto [name, value] = line.split(':');
    value.consume_front(" ");
    if (name == "data") {
      if (current.data.size() + value.size() + 1 > limits.maxEvent) {
        fail(llvm::formatv("an event of the stream has more than {0} bytes "
                           "of data",
                           limits.maxEvent));
        return events;
      }
      current.data.append(value.begin(), value.end());
      current.data.push_back('\n');
      hasData = true;
    } else if (name == "event") {
      current.event = value.str();
    }
  }
  buffer.erase(0, start);
  // The rest has no line end, but a CR at its end may start a CRLF.
  searchFrom = buffer.empty() ? 0 : buffer.size() - 1;
  return events;
}

bool SseParser::pending() const {
  return hasData || !StringRef(buffer).trim().empty();
}
