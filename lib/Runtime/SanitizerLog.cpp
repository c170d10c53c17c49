//===- SanitizerLog.cpp - Read a compute-sanitizer report ------------------===//
//
// The worker writes its JSON events (one object a line, keys in sorted
// order, so "event" need not come first) to the stream compute-sanitizer
// writes its report to; those lines are dropped before the report is kept.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/SanitizerLog.h"

#include "ptxbench/Runtime/Containment.h"

#include "llvm/ADT/StringExtras.h"

using namespace ptxbench::runtime;
using llvm::StringRef;

namespace {

/// The number right after the last `marker` in `text`, or -1.
int64_t numberAfter(StringRef text, StringRef marker) {
  size_t at = text.rfind(marker);
  if (at == StringRef::npos)
    return -1;
  StringRef digits = text.drop_front(at + marker.size())
                         .take_while([](char c) { return llvm::isDigit(c); });
  int64_t n = -1;
  if (digits.getAsInteger(10, n))
    return -1;
  return n;
}

bool isWorkerEvent(StringRef line) {
  return line.starts_with("{") && line.contains("\"event\":");
}

} // namespace

SanitizerReport ptxbench::runtime::readSanitizerLog(StringRef tool,
                                                    StringRef text) {
  SanitizerReport report;
  report.tool = tool.str();
  OutputCapture capture;
  llvm::SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines)
    if (!isWorkerEvent(line))
      capture.append((line + "\n").str());
  report.head = capture.head();
  report.tail = capture.tail();
  report.bytes = capture.total();
  report.errors = numberAfter(text, "ERROR SUMMARY: ");
  if (report.errors < 0 && tool == "racecheck") {
    size_t at = text.rfind("RACECHECK SUMMARY: ");
    if (at != StringRef::npos)
      report.errors = numberAfter(text.drop_front(at), "displayed (");
  }
  return report;
}
