//===- SampleTree.h - The samples of a sweep on disk ------------*- C++ -*-===//
//
// Samples live under `ROOT/<model>/<context>/<task>/<sample_id>/`, holding
// `solution.cu` or `solution.ptx`, optionally the model's raw `response.md`
// (its code block is extracted when there is no solution file) and a
// `turn` file with an integer (default 0). A multi-turn sample may instead
// hold one folder per turn, `turn<N>` or `turn-<N>`, each laid out the same
// way. A `generation.json` left by `ptxbench generate` says why a turn has
// no answer when its request failed. Sharding splits the samples by a hash
// of their key.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_SAMPLETREE_H
#define PTXBENCH_EVAL_SAMPLETREE_H

#include "ptxbench/Eval/Sample.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace ptxbench::eval {

struct SampleInput {
  SampleKey key;
  std::string dir;
  /// solution.cu or solution.ptx; empty when there is none.
  std::string solutionPath;
  /// response.md; empty when there is none.
  std::string responsePath;
  /// generation.json (what `ptxbench generate` recorded of the request);
  /// empty when there is none.
  std::string generationPath;
};

/// Every sample under `root`, ordered by key. Errors name the file: an
/// unreadable folder, a `turn` file that is not an integer.
llvm::Expected<std::vector<SampleInput>> scanSamples(llvm::StringRef root);

/// A shard: `index` of `count`, 0 <= index < count.
struct Shard {
  unsigned index = 0, count = 1;
};
/// Parses `K/N`; the error says what is wrong.
llvm::Expected<Shard> parseShard(llvm::StringRef text);
/// Whether `key` falls in `shard` (a stable hash of key.str(), the same on
/// every machine and run).
bool inShard(const SampleKey &key, Shard shard);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_SAMPLETREE_H
