//===- Embedded.h - Models that need no network: corpus, replay -*- C++ -*-===//
//
// `corpus` answers with one of the task's solutions (tasks/<task>/solutions
// and any tasks/*/solutions whose manifest lists the task; without those the
// manifest marks for another arch), chosen deterministically by
// sample id, turn and seed, written as a model answers: a sentence and one
// code block. `replay` answers with the response recorded for the same
// context, task, sample and turn under a folder laid out as generate's
// output for one model (`<dir>/<context>/<task>/<id>/[turn<N>/]response.md`).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_GENERATE_EMBEDDED_H
#define PTXBENCH_GENERATE_EMBEDDED_H

#include "ptxbench/Client/Models.h"
#include "ptxbench/Client/Wire.h"

namespace ptxbench::generate {

struct EmbeddedQuery {
  std::string tasksDir, arch, context, task, sampleId;
  unsigned turn = 1;
  int64_t seed = 0;
  /// The corpus answers from its Triton solutions (.py) when the prompt
  /// asks for Triton, else from its CUDA C++ and PTX ones.
  bool triton = false;
};

/// The answer of an embedded model; errors are not retryable.
client::Outcome embeddedAnswer(const client::ModelConfig &model,
                               const EmbeddedQuery &query);

/// The solution files of a task usable for `arch`, sorted: its Triton ones
/// with `triton`, else its CUDA C++ and PTX ones.
std::vector<std::string> corpusSolutions(llvm::StringRef tasksDir,
                                         llvm::StringRef task,
                                         llvm::StringRef arch,
                                         bool triton = false);

} // namespace ptxbench::generate

#endif // PTXBENCH_GENERATE_EMBEDDED_H
