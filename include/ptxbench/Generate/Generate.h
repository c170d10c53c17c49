//===- Generate.h - Ask models for kernels, turn after turn -----*- C++ -*-===//
//
// `ptxbench generate`'s engine. For every (model, context, task, sample)
// it sends the task's prompt, writes the answer into the sample tree that
// `ptxbench eval` reads, and with several turns evaluates each answer
// (lib/Eval's sweep, into the results store), renders the feedback
// (renderFeedback) and sends the conversation so far plus the feedback as
// the next user message, until the sample passes (with a target speedup:
// passes at that speedup) or the turns run out. A context policy chooses
// how much of the conversation each request carries.
// HTTP requests run concurrently on one thread (HttpClient); evaluations
// run on worker threads. Every file is written atomically and the run
// resumes from what is on disk. docs/generate.md describes the files.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_GENERATE_GENERATE_H
#define PTXBENCH_GENERATE_GENERATE_H

#include "ptxbench/Client/Models.h"
#include "ptxbench/Prompt/Prompt.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <vector>

namespace ptxbench::generate {

/// What each request of a multi-turn sample carries.
enum class ContextPolicy {
  /// The whole conversation: the task, every answer and its feedback.
  Full,
  /// The task's messages, then only the latest answer and its feedback.
  LastPair,
  /// The task's system message and one user message rebuilt each turn:
  /// the task, the latest submission's code and its feedback.
  Single,
};
llvm::StringRef contextPolicyName(ContextPolicy policy);
std::optional<ContextPolicy> parseContextPolicy(llvm::StringRef name);

/// A conversation sent as it is instead of a task's prompt: a teacher's
/// repair of another model's failed kernel (Repair.h), a request for a
/// written reason (Reasons.h). Each is one sample of every model, in the
/// folder SAMPLES_DIR/<model>/<context>/<task>/<sampleId>, keyed in the
/// store as model/context/task/sampleId@turn.
struct PreparedSample {
  std::string context, task, sampleId;
  /// The first request's messages (system and user).
  std::vector<prompt::ChatMessage> messages;
  /// request.json's prompt_sha256: of the task's prompt the messages
  /// were made from.
  std::string promptSha;
  /// Files (a name and its text) written into the sample's folder before
  /// its first request, when not there yet: what the sample was made
  /// from (repair.json).
  std::vector<std::pair<std::string, std::string>> files;
};

struct GenerateOptions {
  std::string tasksDir = "tasks";
  std::string arch = "sm_90a";
  std::string outDir;
  /// The results store; empty: answers are not evaluated (one turn only).
  std::string dbPath;
  std::vector<client::ModelConfig> models;
  std::vector<std::string> tasks;
  /// The tags (the built-in none, brief, full or one of `tags`); each is a
  /// context folder of the sample tree.
  std::vector<std::string> contexts;
  /// Tags a tag file defines.
  prompt::TagSet tags;
  /// The docs/ folder the documents are read from; empty: found above the
  /// tasks folder.
  std::string docsDir;
  /// When not empty, the samples of every model instead of tasks x
  /// contexts x samples (`tasks`, `contexts` and `samples` are then not
  /// read).
  std::vector<PreparedSample> prepared;
  /// The language the prompts ask for (and the corpus model answers in).
  prompt::AnswerLanguage language = prompt::AnswerLanguage::Native;
  /// Samples (replicas) per model, tag and task, and turns per sample.
  unsigned samples = 1, turns = 1;
  /// A sample that passes goes on (up to `turns`) until every dev workload
  /// reaches this speedup over the library; 0: it stops at its first pass.
  double targetSpeedup = 0;
  ContextPolicy contextPolicy = ContextPolicy::Full;
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
  /// Samples that finished before their last turn: passed (with a target
  /// speedup, at that speedup).
  unsigned solvedEarly = 0;
  /// Samples whose last turn finished them (solved, at the target when
  /// there is one), this run or an earlier one.
  unsigned finished = 0;
  /// Samples (and at most how many turns) left unsent by the budget.
  unsigned unfinished = 0, turnsLeft = 0;
  int64_t inputTokens = 0, outputTokens = 0, cachedTokens = 0;
  double cost = 0;
  /// Why the run stopped early (the budget), or empty.
  std::string stopReason;
};

llvm::Expected<GenerateStats> runGenerate(const GenerateOptions &options);

} // namespace ptxbench::generate

#endif // PTXBENCH_GENERATE_GENERATE_H
