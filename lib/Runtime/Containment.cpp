//===- Containment.cpp - Bounded output capture, guarded layouts ----------===//
//
// The plain arithmetic behind the worker's output capture, the guarded
// device allocations and the number of rotated input sets (Containment.h).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Containment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace ptxbench::runtime;

void OutputCapture::append(llvm::StringRef bytes) {
  totalBytes += bytes.size();
  if (headText.size() < headLimit) {
    size_t take = std::min(headLimit - headText.size(), bytes.size());
    headText += bytes.take_front(take).str();
    bytes = bytes.drop_front(take);
  }
  if (tailLimit == 0 || bytes.empty())
    return;
  // Only the last tailLimit bytes of this chunk can survive.
  if (bytes.size() > tailLimit)
    bytes = bytes.take_back(tailLimit);
  for (char c : bytes) {
    if (ring.size() < tailLimit) {
      ring.push_back(c);
      continue;
    }
    ring[ringStart] = c;
    ringStart = (ringStart + 1) % tailLimit;
  }
}

std::string OutputCapture::tail() const {
  return ring.substr(ringStart) + ring.substr(0, ringStart);
}

uint64_t OutputCapture::omitted() const {
  return totalBytes - headText.size() - ring.size();
}

void OutputCapture::clear() {
  totalBytes = 0;
  headText.clear();
  ring.clear();
  ringStart = 0;
}

static uint64_t roundUp(uint64_t v, uint64_t to) {
  return (v + to - 1) / to * to;
}

GuardedLayout ptxbench::runtime::guardedLayout(uint64_t bytes,
                                               uint64_t granularity,
                                               uint64_t guardBytes,
                                               uint64_t alignment) {
  GuardedLayout l;
  bytes = std::max<uint64_t>(bytes, 1);
  alignment = std::clamp<uint64_t>(alignment, 1, granularity);
  l.granularity = granularity;
  l.guardBytes = roundUp(std::max(guardBytes, granularity), granularity);
  l.mappedBytes = roundUp(bytes, granularity);
  // End the buffer at the end of the mapping, then move its start down to
  // the alignment; what that costs stays mapped after the end (slack).
  uint64_t start = l.mappedBytes - bytes;
  l.offset = start / alignment * alignment;
  l.slack = l.mappedBytes - l.offset - bytes;
  l.reservedBytes = l.mappedBytes + 2 * l.guardBytes;
  return l;
}

unsigned ptxbench::runtime::inputSetCount(uint64_t bytesPerSet,
                                          uint64_t budgetBytes,
                                          unsigned maxSets) {
  uint64_t fit = bytesPerSet ? budgetBytes / bytesPerSet : maxSets;
  return unsigned(std::clamp<uint64_t>(fit, 2, std::max(maxSets, 2u)));
}

std::vector<std::string> ptxbench::runtime::moduleGlobals(llvm::StringRef ptx) {
  std::vector<std::string> names;
  auto declaration = [&](llvm::StringRef statement) {
    llvm::SmallVector<llvm::StringRef> words;
    llvm::SplitString(statement, words, " \t\r\n");
    auto global = llvm::find(words, ".global");
    if (global == words.end() || llvm::is_contained(words, ".extern"))
      return;
    // `.global .align 4 .b8 name[16] = ...`: the first word that is not a
    // directive or a number.
    for (auto it = global + 1; it != words.end() && !it->starts_with("=");
         ++it) {
      llvm::StringRef name =
          it->take_until([](char c) { return c == '[' || c == '='; });
      if (!name.empty() && !name.starts_with(".") &&
          !llvm::isDigit(name.front())) {
        names.push_back(name.str());
        return;
      }
    }
  };
  // Statements at module scope, comments and strings aside: a body's braces
  // hide what is inside it; an initializer's do not end the statement.
  std::string statement;
  int depth = 0;
  for (size_t i = 0; i < ptx.size(); ++i) {
    char c = ptx[i];
    if (c == '/' && i + 1 < ptx.size() &&
        (ptx[i + 1] == '/' || ptx[i + 1] == '*')) {
      size_t end =
          ptx[i + 1] == '/' ? ptx.find('\n', i) : ptx.find("*/", i + 2);
      i = end == llvm::StringRef::npos ? ptx.size() : end + (ptx[i + 1] == '*');
      statement += ' ';
      continue;
    }
    if (c == '"') {
      size_t end = ptx.find('"', i + 1);
      i = end == llvm::StringRef::npos ? ptx.size() : end;
      continue;
    }
    bool initializer = llvm::StringRef(statement).contains('=');
    if (c == '{') {
      if (depth++ == 0 && !initializer)
        statement.clear();
      continue;
    }
    if (c == '}') {
      if (depth > 0 && --depth == 0 && !initializer)
        statement.clear();
      continue;
    }
    if (depth > 0)
      continue;
    if (c == ';') {
      declaration(statement);
      statement.clear();
      continue;
    }
    statement += c;
  }
  return names;
}
