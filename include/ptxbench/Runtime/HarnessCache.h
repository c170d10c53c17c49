//===- HarnessCache.h - What the harness keeps on disk between runs -*- C++ -*-===//
//
// Files the workers reuse from one run to the next, none of them a
// submission's: the card's measured peaks, the harness's own kernels as
// NVRTC compiled them, a workload's reference outputs for a seed, a
// baseline's time. They live in one folder ($PTXBENCH_CACHE, else
// $XDG_CACHE_HOME/ptxbench, else ~/.cache/ptxbench), each named by a key
// that hashes everything its contents depend on; a file is written under
// a temporary name and renamed, so a reader sees all of it or nothing.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_HARNESSCACHE_H
#define PTXBENCH_RUNTIME_HARNESSCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace ptxbench::runtime {

/// The cache folder, or "" when no home is known (then nothing is cached).
std::string harnessCacheDir();

/// A key for everything in `parts`: the hex SHA-256 of the parts, each
/// preceded by its length (so no two lists of parts give the same key).
std::string cacheKey(llvm::ArrayRef<llvm::StringRef> parts);

/// The contents of cache file `name` (a file name, no folder), if there.
std::optional<std::string> readCached(llvm::StringRef name);

/// Writes cache file `name` atomically; false (with `error`) on failure.
bool writeCached(llvm::StringRef name, llvm::StringRef bytes,
                 std::string *error = nullptr);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_HARNESSCACHE_H
