//===- Generator.h - `ptxbench generate`'s engine ---------------*- C++ -*-===//
//
// The state of one `ptxbench generate` run: the models (wire format, key,
// rate limiter), the samples and where each is in its turns, the pool of
// threads that evaluate answered turns, and the Generator that drives
// them. Shared by Generate.cpp (setup, the loop, progress),
// GenerateRequests.cpp (sending a turn and recording its answer) and
// GenerateTurns.cpp (the files of a turn on disk, resume, evaluation) and
// ContextPolicy.cpp (what each request carries of the conversation).
// Private to lib/Generate.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_GENERATE_GENERATOR_H
#define PTXBENCH_LIB_GENERATE_GENERATOR_H

#include "ptxbench/Client/Http.h"
#include "ptxbench/Client/RateLimit.h"
#include "ptxbench/Client/Redact.h"
#include "ptxbench/Client/Wire.h"
#include "ptxbench/Eval/GpuPool.h"
#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/Sweep.h"
#include "ptxbench/Generate/Generate.h"
#include "ptxbench/Generate/TurnEval.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace ptxbench::generate::detail {

using client::HttpClient;
using client::Message;
using client::ModelConfig;
using client::Outcome;
using client::PartialReply;
using client::ProviderError;
using client::RateLimiter;
using client::Redactor;
using client::Usage;
using client::WireFormat;
using llvm::Error;
using llvm::StringRef;
using llvm::json::Object;
using Clock = std::chrono::steady_clock;

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// `b` appended to the path `a`.
std::string join(StringRef a, const llvm::Twine &b);
/// Writes `text` to `file` through a temporary file and a rename, so a
/// reader (or a rerun after kill -9) sees the whole file or none.
Error writeAtomic(StringRef file, StringRef text);

//===----------------------------------------------------------------------===//
// Per-model state: wire format, key, limits
//===----------------------------------------------------------------------===//

struct ModelState {
  const ModelConfig *config = nullptr;
  std::unique_ptr<WireFormat> wire;
  std::string key; // from the environment; never written anywhere
  std::unique_ptr<RateLimiter> limiter;
};

//===----------------------------------------------------------------------===//
// Samples
//===----------------------------------------------------------------------===//

enum class State { Ready, InFlight, Evaluating, Done };

struct Sample {
  ModelState *model = nullptr;
  std::string context, task, id;
  unsigned index = 0;
  std::string dir;
  /// The whole conversation: the prompt's messages, then each answer and
  /// its feedback. What a request carries of it is the context policy's.
  std::vector<Message> conversation;
  /// How many of its first messages are the prompt.
  size_t promptMessages = 0;
  std::string promptSha;
  /// The prompt's documents, as request.json records them.
  llvm::json::Array documents;
  std::vector<std::string> requested;
  unsigned turn = 1;
  unsigned attempts = 0;
  /// Why earlier attempts of this turn failed (redacted).
  std::vector<std::string> retried;
  Clock::time_point notBefore;
  State state = State::Ready;
  bool failed = false;
  /// Worst-case cost and tokens reserved while in flight.
  double reservedCost = 0, reservedTokens = 0;
  /// What the failed attempts of this turn delivered, and cost: providers
  /// bill a cut reply.
  Usage failedUsage;
  double failedCost = 0;
};

/// A turn's evaluation, done on a worker thread.
struct EvalResult {
  Sample *sample;
  unsigned turn;
  TurnVerdict verdict;
};

/// Worker threads running evaluations; finished ones are collected by the
/// loop, which poll() wakes through `notify`.
class EvalPool {
public:
  EvalPool(unsigned threads, std::function<void()> notify)
      : notify(std::move(notify)) {
    for (unsigned i = 0; i < threads; ++i)
      workers.emplace_back([this] { work(); });
  }
  ~EvalPool() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    cv.notify_all();
    for (std::thread &t : workers)
      t.join();
  }
  void submit(std::function<EvalResult()> job) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      jobs.push_back(std::move(job));
      ++pending;
    }
    cv.notify_one();
  }
  std::vector<EvalResult> take() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<EvalResult> out = std::move(done);
    done.clear();
    pending -= out.size();
    return out;
  }
  size_t busy() {
    std::lock_guard<std::mutex> lock(mutex);
    return pending;
  }

private:
  void work() {
    while (true) {
      std::function<EvalResult()> job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return stopping || !jobs.empty(); });
        if (jobs.empty())
          return;
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      EvalResult result = job();
      {
        std::lock_guard<std::mutex> lock(mutex);
        done.push_back(std::move(result));
      }
      notify();
    }
  }

  std::function<void()> notify;
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::function<EvalResult()>> jobs;
  std::vector<EvalResult> done;
  size_t pending = 0;
  bool stopping = false;
  std::vector<std::thread> workers;
};

/// What a request carries of `conversation` (the prompt's
/// `promptMessages` messages, then answer, feedback, ...) under `policy`.
std::vector<Message> messagesToSend(ContextPolicy policy,
                                    const std::vector<Message> &conversation,
                                    size_t promptMessages);

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

class Generator {
public:
  explicit Generator(const GenerateOptions &options)
      : options(options), rng(options.seed.value_or(0)) {}

  llvm::Expected<GenerateStats> run();

private:
  Error prepare();
  /// The samples of every model: tasks x contexts x samples, each sent the
  /// task's prompt; or the prepared conversations (GenerateOptions).
  Error promptSamples();
  Error preparedSamples();
  /// Refuses a sample folder whose first turn was asked with another
  /// prompt than `s`'s (its request.json's prompt_sha256).
  Error checkPrompt(const Sample &s) const;
  void resume(Sample &s);
  std::string turnDir(const Sample &s, unsigned turn) const {
    return options.turns == 1 ? s.dir : join(s.dir, "turn" + llvm::Twine(turn));
  }
  int64_t keyTurn(unsigned turn) const { return options.turns == 1 ? 0 : turn; }
  bool evaluating() const { return !options.dbPath.empty(); }
  /// What the next request of `s` carries (the context policy's choice).
  std::vector<Message> outgoing(const Sample &s) const {
    return messagesToSend(options.contextPolicy, s.conversation,
                          s.promptMessages);
  }

  void dispatch();
  bool budgetAllows(const Sample &s, double &cost, double &tokens);
  void start(Sample &s, double cost, double tokens);
  void finishRequest(Sample &s, Outcome outcome, double latency,
                     const Object &body, StringRef url);
  void recordFailure(Sample &s, const ProviderError &error);
  /// `object` as the text of a JSON file, every key redacted.
  std::string redactedJSON(Object object) const;
  /// Adds `usage` at the model's prices to the run's spending; returns the
  /// cost.
  double charge(const ModelConfig &model, const Usage &usage);
  /// Charges what a failed reply delivered to `s`'s turn.
  void chargeFailed(Sample &s, const PartialReply &partial);
  void queueEval(Sample &s, unsigned turn);
  /// What `ptxbench eval` would be given for this run's turns.
  eval::SweepOptions sweepOptions() const;
  EvalResult evaluate(Sample *s, unsigned turn);
  /// Records a turn whose request failed for good in the store (status
  /// no_solution with the request's error), so every rate counts it.
  void recordUnanswered(Sample &s, unsigned turn);
  void applyEval(EvalResult &r);
  void printProgress(bool final);

  const GenerateOptions &options;
  GenerateStats stats;
  std::vector<std::unique_ptr<ModelState>> models;
  std::vector<std::unique_ptr<Sample>> samples;
  /// The prompts the samples were sent, recorded in the store.
  std::vector<prompt::Prompt> prompts;
  Redactor redact;
  HttpClient http;
  std::unique_ptr<eval::ResultsStore> store;
  std::unique_ptr<EvalPool> pool;
  std::unique_ptr<eval::GpuPool> gpus;
  std::mt19937_64 rng;
  unsigned inFlight = 0, turnsTotal = 0, turnsDone = 0;
  double reservedCost = 0, reservedTokens = 0;
  bool stopping = false;
  Clock::time_point begin = Clock::now(), lastProgress;
  bool tty = false;
};

} // namespace ptxbench::generate::detail

#endif // PTXBENCH_LIB_GENERATE_GENERATOR_H
