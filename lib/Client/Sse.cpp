//===- Sse.cpp - Server-sent events, parsed incrementally -----------------===//
//
// Lines end with LF, CRLF or CR; a field line is `name: value` (one space
// after the colon is dropped), a line without a colon is a field with an
// empty value, and an event is dispatched at an empty line when it has data.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Sse.h"

using namespace ptxbench::client;
using llvm::StringRef;

std::vector<SseEvent> SseParser::feed(StringRef chunk) {
  buffer.append(chunk.begin(), chunk.end());
  std::vector<SseEvent> events;
  size_t start = 0;
  while (true) {
    size_t end = buffer.find_first_of("\r\n", start);
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
      current.data.append(value.begin(), value.end());
      current.data.push_back('\n');
      hasData = true;
    } else if (name == "event") {
      current.event = value.str();
    }
  }
  buffer.erase(0, start);
  return events;
}

bool SseParser::pending() const {
  return hasData || !StringRef(buffer).trim().empty();
}
