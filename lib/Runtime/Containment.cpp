//===- Containment.cpp - Bounded output capture, guarded layouts ----------===//
//
// The plain arithmetic behind the worker's output capture, the guarded
// device allocations and the number of rotated input sets (Containment.h).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Containment.h"

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
