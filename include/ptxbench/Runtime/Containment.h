//===- Containment.h - Bounded output capture, guarded layouts -*- C++ -*-===//
//
// Host-side arithmetic that keeps a submission contained, kept apart from
// the GPU code so it can be unit-tested anywhere: the bounded capture of a
// worker's stdout/stderr (device printf lands there), the layout of a
// tensor inside a reserved address range with unmapped guard pages on both
// sides, the number of input sets the timed runs rotate through, and the
// device-runtime calls a compiled submission may not make.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_CONTAINMENT_H
#define PTXBENCH_RUNTIME_CONTAINMENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxbench::runtime {

/// Keeps the first `headLimit` and the last `tailLimit` bytes of a stream
/// and counts all of it, so a kernel that prints gigabytes costs a few KiB.
class OutputCapture {
public:
  explicit OutputCapture(size_t headLimit = 4096, size_t tailLimit = 4096)
      : headLimit(headLimit), tailLimit(tailLimit) {}
  void append(llvm::StringRef bytes);
  uint64_t total() const { return totalBytes; }
  /// The first bytes, and the last bytes not already in the head.
  const std::string &head() const { return headText; }
  std::string tail() const;
  /// Bytes neither in the head nor in the tail.
  uint64_t omitted() const;
  void clear();

private:
  size_t headLimit, tailLimit;
  uint64_t totalBytes = 0;
  std::string headText;
  /// The last bytes as a ring of `tailLimit` bytes starting at `ringStart`.
  std::string ring;
  size_t ringStart = 0;
};

/// Where a buffer of `bytes` goes inside a reserved virtual range: the
/// range holds a guard region, the mapped pages, and a guard region;
/// the buffer starts `offset` bytes into the mapped pages, placed so that
/// its end is the end of the mapping where `alignment` allows (a write just
/// past the end faults), its start then being aligned to `alignment`.
struct GuardedLayout {
  uint64_t granularity = 0;   // the driver's allocation granularity
  uint64_t guardBytes = 0;    // unmapped bytes before and after the mapping
  uint64_t mappedBytes = 0;   // pages backed by physical memory
  uint64_t reservedBytes = 0; // guard + mapped + guard
  uint64_t offset = 0;        // buffer start within the mapped pages
  uint64_t slack = 0;         // mapped bytes after the buffer's end
};
/// The layout of a `bytes`-long buffer (0 is treated as 1) with pages of
/// `granularity` bytes (a power of two), guards of at least `guardBytes`
/// (rounded up to pages, at least one page) and a start aligned to
/// `alignment` (a power of two, at most `granularity`).
GuardedLayout guardedLayout(uint64_t bytes, uint64_t granularity,
                            uint64_t guardBytes, uint64_t alignment);

/// How many distinct input sets (inputs and their reference outputs) the
/// timed runs rotate through: as many as `budgetBytes` holds at
/// `bytesPerSet` each, clamped to [2, maxSets] (at least two always, so
/// no timed launch sees the inputs of the launch before it).
unsigned inputSetCount(uint64_t bytesPerSet, uint64_t budgetBytes,
                       unsigned maxSets = 8);

/// The functions a cubin (an ELF image from ptxas or the driver's JIT)
/// calls but does not define, other than printf's `vprintf` and assert's
/// `__assertfail`: the device runtime's malloc and free (a heap that keeps
/// its contents from one launch to the next), device-side launches (work
/// outside the timed launch) and anything else the harness does not
/// provide. A failure when `cubin` is not a readable ELF image.
llvm::Expected<std::vector<std::string>>
refusedDeviceCalls(llvm::StringRef cubin);

/// The message for a submission that calls `names` (refusedDeviceCalls).
std::string refusedDeviceCallsMessage(llvm::ArrayRef<std::string> names);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_CONTAINMENT_H
