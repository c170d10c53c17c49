//===- Generate.h - Ask models for kernels, turn after turn -----*- C++ -*-===//
//
// `ptxbench generate`'s engine. For every (model, context, task, sample)
// it sends the task's prompt, writes the answer into the sample tree that
// `ptxbench eval` reads, and with several turns evaluates each answer
// (lib/Eval's sweep, into the results store), renders the feedback
// (renderFeedback) and sends the conversation so far plus the feedback as
// the next user message, until the sample passes or the turns run out.
// HTTP requests run concurrently on one thread (HttpClient); evaluations
// run on worker threads. Every file is written atomically and the run
// resumes from what is on disk. docs/generate.md describes the files.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CLIENT_GENERATE_H
#define PTXBENCH_CLIENT_GENERATE_H

#include "ptxbench/Client/Models.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace ptxbench::client {

struct GenerateOptions {
  std::string tasksDir = "tasks";
  std::string arch = "sm_90a";
  std::string outDir;
  /// The results store; empty: answers are not evaluated (one turn only).
  std::string dbPath;
  std::vector<ModelConfig> models;
  std::vector<std::string> tasks;
  /// none, brief, full.
  std::vector<std::string> contexts;
  unsigned samples = 1, turns = 1;
  /// Requests in flight over all models.
  unsigned concurrency = 64;
  /// The run's budget; 0: none.
  double maxCost = 0;
  int64_t maxTokens = 0;
  /// Sent as each request's seed (plus the sample's index) when set; it
  /// also seeds the corpus' choice and the retry jitter.
  std::optional<int64_t> seed;
  /// Evaluation: as `ptxbench eval`.
  bool staticOnly = false;
  std::string shapes = "dev";
  std::string tool;
  std::vector<std::string> gpus{""};
  unsigned evalJobs = 1;
  double runTimeoutSeconds = 60;
  /// The progress line, when set.
  llvm::raw_ostream *progress = nullptr;
};

struct GenerateStats {
  unsigned samples = 0;
  /// Turns answered now, and already on disk.
  unsigned answered = 0, resumed = 0;
  /// Samples whose request failed for good (recorded in generation.json).
  unsigned failed = 0;
  /// Retries made.
  unsigned retries = 0;
  /// Samples that passed before their last turn.
  unsigned solvedEarly = 0;
  /// Samples (and at most how many turns) left unsent by the budget.
  unsigned unfinished = 0, turnsLeft = 0;
  int64_t inputTokens = 0, outputTokens = 0, cachedTokens = 0;
  double cost = 0;
  /// Why the run stopped early (the budget), or empty.
  std::string stopReason;
};

llvm::Expected<GenerateStats> runGenerate(const GenerateOptions &options);

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_GENERATE_H
