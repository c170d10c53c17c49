//===- Generate.cpp - Ask models for kernels, turn after turn -------------===//
//
// One loop on the calling thread: it starts the requests that the global
// and per-model concurrency, the per-model rate limits, Retry-After pauses
// and the budget allow, drives them with HttpClient::poll, and collects the
// evaluations that worker threads finish. A sample moves Ready -> InFlight
// -> (Evaluating -> Ready for the next turn) -> Done. Files are written
// atomically (temp + rename); `generation.json` is written last and marks a
// turn as answered, `outcome.json` marks it as evaluated, so a rerun after
// kill -9 sends only what is missing.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Generate.h"

#include "ptxbench/Client/Embedded.h"
#include "ptxbench/Client/Http.h"
#include "ptxbench/Client/RateLimit.h"
#include "ptxbench/Client/TurnEval.h"
#include "ptxbench/Client/Wire.h"
#include "ptxbench/Eval/GpuPool.h"
#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/Sweep.h"
#include "ptxbench/Prompt/Prompt.h"
#include "ptxbench/Runtime/Task.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <thread>

using namespace ptxbench;
using namespace ptxbench::client;
using llvm::Error;
using llvm::StringRef;
using llvm::json::Object;
using Clock = std::chrono::steady_clock;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

std::string join(StringRef a, const llvm::Twine &b) {
  llvm::SmallString<256> p(a);
  path::append(p, b);
  return std::string(p);
}

/// Writes `text` to `file` through a temporary file and a rename, so a
/// reader (or a rerun after kill -9) sees the whole file or none.
Error writeAtomic(StringRef file, StringRef text) {
  if (std::error_code ec = fs::create_directories(path::parent_path(file)))
    return llvm::createStringError("cannot create folder for '" + file +
                                   "': " + ec.message());
  return llvm::writeToOutput(file, [&](llvm::raw_ostream &os) {
    os << text;
    return Error::success();
  });
}

std::optional<std::string> readText(StringRef file) {
  auto buffer = llvm::MemoryBuffer::getFile(file);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

std::optional<llvm::json::Value> readJSON(StringRef file) {
  std::optional<std::string> text = readText(file);
  if (!text)
    return std::nullopt;
  auto value = llvm::json::parse(*text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  return std::move(*value);
}

std::string sha256Hex(StringRef text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

std::string conversationSha(const std::vector<Message> &messages) {
  std::string all;
  for (const Message &m : messages)
    all += m.role + "\n" + m.content + "\n";
  return sha256Hex(all);
}

/// Replaces every key in `text` (a server may echo a header back).
class Redactor {
public:
  void add(std::string secret) {
    if (secret.size() >= 4)
      secrets.push_back(std::move(secret));
  }
  std::string operator()(std::string text) const {
    for (const std::string &s : secrets)
      for (size_t at; (at = text.find(s)) != std::string::npos;)
        text.replace(at, s.size(), "[redacted]");
    return text;
  }

private:
  std::vector<std::string> secrets;
};

/// What request.json records for an embedded model: the conversation it
/// was given.
Object embeddedBody(const ModelConfig &config,
                    const std::vector<Message> &messages) {
  llvm::json::Array msgs;
  for (const Message &m : messages)
    msgs.push_back(Object{{"role", m.role}, {"content", m.content}});
  return Object{{"model", config.modelId}, {"messages", std::move(msgs)}};
}

/// The input tokens of a conversation, estimated: about four characters a
/// token, with a margin for the chat template and the tokenizer.
int64_t estimateInputTokens(const std::vector<Message> &messages) {
  size_t chars = 0;
  for (const Message &m : messages)
    chars += m.content.size();
  return int64_t(double(chars) / 3.5) + 64;
}

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
  std::vector<Message> conversation;
  std::string promptSha;
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

std::string shortCount(int64_t n) {
  if (n >= 1000000)
    return llvm::formatv("{0:f1}M", n / 1e6).str();
  if (n >= 1000)
    return llvm::formatv("{0:f1}k", n / 1e3).str();
  return std::to_string(n);
}

std::string duration(double seconds) {
  long s = long(seconds + 0.5);
  if (s >= 3600)
    return llvm::formatv("{0}h{1:2}m", s / 3600, (s % 3600) / 60).str();
  if (s >= 60)
    return llvm::formatv("{0}m{1:2}s", s / 60, s % 60).str();
  return std::to_string(s) + "s";
}

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
  void resume(Sample &s);
  std::string turnDir(const Sample &s, unsigned turn) const {
    return options.turns == 1 ? s.dir : join(s.dir, "turn" + llvm::Twine(turn));
  }
  int64_t keyTurn(unsigned turn) const { return options.turns == 1 ? 0 : turn; }
  bool evaluating() const { return !options.dbPath.empty(); }

  void dispatch();
  bool budgetAllows(const Sample &s, double &cost, double &tokens);
  void start(Sample &s, double cost, double tokens);
  void finishRequest(Sample &s, Outcome outcome, double latency,
                     const Object &body, StringRef url);
  void recordFailure(Sample &s, const ProviderError &error);
  void queueEval(Sample &s, unsigned turn);
  EvalResult evaluate(Sample *s, unsigned turn);
  void applyEval(EvalResult &r);
  void printProgress(bool final);

  const GenerateOptions &options;
  GenerateStats stats;
  std::vector<std::unique_ptr<ModelState>> models;
  std::vector<std::unique_ptr<Sample>> samples;
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

Error Generator::prepare() {
  for (const ModelConfig &m : options.models) {
    auto state = std::make_unique<ModelState>();
    state->config = &m;
    state->limiter = std::make_unique<RateLimiter>(m.limits);
    if (m.provider == Provider::Anthropic)
      state->wire = createAnthropicWire();
    else if (!m.embedded())
      state->wire = createOpenAIWire(m.provider == Provider::OpenAICompatible);
    if (!m.apiKeyEnv.empty()) {
      std::optional<std::string> key = llvm::sys::Process::GetEnv(m.apiKeyEnv);
      if (!key || key->empty())
        return llvm::createStringError(
            "model '" + m.name + "': the environment variable " + m.apiKeyEnv +
            " (api_key_env) is not set");
      state->key = *key;
      redact.add(*key);
    }
    models.push_back(std::move(state));
  }

  // Prompts, built once per task and context.
  std::map<std::pair<std::string, std::string>, prompt::Prompt> prompts;
  std::map<std::string, std::vector<std::string>> requested;
  for (const std::string &task : options.tasks) {
    std::string dir = join(options.tasksDir, task);
    if (!fs::exists(join(dir, "task.json")))
      return llvm::createStringError("unknown task '" + task + "': no " +
                                     join(dir, "task.json"));
    auto loaded = runtime::loadTask(dir);
    if (!loaded)
      return loaded.takeError();
    auto it = loaded->features.find(options.arch);
    if (it == loaded->features.end())
      return llvm::createStringError(join(dir, "task.json") +
                                     ": requests no features for " +
                                     options.arch);
    requested[task] = it->second;
    for (const std::string &context : options.contexts) {
      std::optional<prompt::ContextLevel> level =
          prompt::parseContextLevel(context);
      if (!level)
        return llvm::createStringError("unknown context '" + context +
                                       "' (expected none, brief or full)");
      prompt::PromptOptions po;
      po.arch = options.arch;
      po.context = *level;
      auto built = prompt::buildPrompt(*loaded, po);
      if (!built)
        return built.takeError();
      prompts[{task, context}] = std::move(*built);
    }
  }

  for (auto &model : models)
    for (const std::string &context : options.contexts)
      for (const std::string &task : options.tasks)
        for (unsigned i = 0; i < options.samples; ++i) {
          auto s = std::make_unique<Sample>();
          s->model = model.get();
          s->context = context;
          s->task = task;
          s->index = i;
          s->id = "s" + std::to_string(i);
          s->dir = join(options.outDir, model->config->name + "/" + context +
                                            "/" + task + "/" + s->id);
          const prompt::Prompt &p = prompts[{task, context}];
          for (const prompt::ChatMessage &m : p.messages)
            s->conversation.push_back({m.role, m.content});
          s->promptSha = p.sha256();
          s->requested = requested[task];
          samples.push_back(std::move(s));
        }
  stats.samples = samples.size();
  turnsTotal = samples.size() * options.turns;

  if (evaluating()) {
    auto opened = eval::ResultsStore::open(options.dbPath);
    if (!opened)
      return opened.takeError();
    store = std::move(*opened);
    bool realGpus = !options.staticOnly && !options.gpus.empty() &&
                    !options.gpus.front().empty();
    if (realGpus)
      gpus = std::make_unique<eval::GpuPool>(options.gpus);
    pool = std::make_unique<EvalPool>(std::max(1u, options.evalJobs),
                                      [this] { http.wakeup(); });
  }
  return Error::success();
}

/// Reads what earlier runs left for `s`: answered turns join the
/// conversation, evaluated turns add their feedback.
void Generator::resume(Sample &s) {
  for (unsigned t = 1; t <= options.turns; ++t) {
    std::string dir = turnDir(s, t);
    std::optional<llvm::json::Value> gen =
        readJSON(join(dir, "generation.json"));
    const Object *g = gen ? gen->getAsObject() : nullptr;
    s.turn = t;
    if (!g)
      return; // not answered yet
    if (g->getString("status").value_or("") != "ok") {
      if (g->getBoolean("retryable").value_or(false))
        return; // a transient failure: send again
      s.state = State::Done;
      s.failed = true;
      turnsDone += options.turns - t + 1;
      return;
    }
    std::optional<std::string> text = readText(join(dir, "response.md"));
    if (!text)
      return; // answered but its text is gone: send again
    ++stats.resumed;
    ++turnsDone;
    s.conversation.push_back({"assistant", *text});
    if (!evaluating()) {
      if (t == options.turns)
        s.state = State::Done;
      continue;
    }
    std::optional<llvm::json::Value> outcome =
        readJSON(join(dir, "outcome.json"));
    const Object *o = outcome ? outcome->getAsObject() : nullptr;
    if (!o) {
      s.state = State::Evaluating;
      queueEval(s, t);
      return;
    }
    bool solved = o->getBoolean("solved").value_or(false);
    if (solved || t == options.turns) {
      s.state = State::Done;
      turnsDone += options.turns - t;
      return;
    }
    std::optional<std::string> feedback = readText(join(dir, "feedback.md"));
    if (!feedback) {
      s.state = State::Evaluating;
      queueEval(s, t);
      return;
    }
    s.conversation.push_back({"user", *feedback});
  }
}

bool Generator::budgetAllows(const Sample &s, double &cost, double &tokens) {
  const ModelConfig &m = *s.model->config;
  double input = double(estimateInputTokens(s.conversation));
  double output = double(m.sampling.maxOutputTokens);
  Usage worst;
  worst.input = int64_t(input);
  worst.output = int64_t(output);
  cost = m.embedded() ? 0 : m.cost(worst);
  tokens = m.embedded() ? 0 : input + output;
  bool costOk = options.maxCost <= 0 ||
                stats.cost + reservedCost + cost <= options.maxCost;
  bool tokensOk =
      options.maxTokens <= 0 || double(stats.inputTokens + stats.outputTokens) +
                                        reservedTokens + tokens <=
                                    double(options.maxTokens);
  if (costOk && tokensOk)
    return true;
  // Requests in flight may cost less than reserved: wait for them first.
  if (inFlight == 0 && !stopping) {
    stopping = true;
    stats.stopReason =
        !costOk ? llvm::formatv("the next request could exceed --max-cost "
                                "${0:f4} (spent ${1:f4}; the request may "
                                "cost up to ${2:f4})",
                                options.maxCost, stats.cost, cost)
                      .str()
                : llvm::formatv("the next request could exceed --max-tokens "
                                "{0} (spent {1}; the request may use up to "
                                "{2:f0})",
                                options.maxTokens,
                                stats.inputTokens + stats.outputTokens, tokens)
                      .str();
  }
  return false;
}

void Generator::dispatch() {
  auto now = Clock::now();
  for (auto &sp : samples) {
    Sample &s = *sp;
    if (stopping)
      return;
    if (s.state != State::Ready || now < s.notBefore)
      continue;
    if (inFlight >= options.concurrency)
      return;
    double cost, tokens;
    Clock::time_point retryAt = Clock::time_point::max();
    if (!s.model->config->embedded()) {
      if (!budgetAllows(s, cost, tokens))
        return; // the budget holds every sample, not only this one
      if (!s.model->limiter->allows(now, tokens, retryAt))
        continue;
    } else {
      cost = tokens = 0;
    }
    start(s, cost, tokens);
  }
}

void Generator::start(Sample &s, double cost, double tokens) {
  ModelState &m = *s.model;
  const ModelConfig &config = *m.config;
  unsigned turn = s.turn;
  if (config.embedded()) {
    EmbeddedQuery q{
        options.tasksDir,        options.arch, s.context, s.task, s.id, turn,
        options.seed.value_or(0)};
    auto t0 = Clock::now();
    Outcome outcome = embeddedAnswer(config, q);
    s.state = State::InFlight;
    ++inFlight;
    finishRequest(s, std::move(outcome),
                  std::chrono::duration<double>(Clock::now() - t0).count(),
                  embeddedBody(config, s.conversation), "");
    return;
  }
  Sampling sampling = config.sampling;
  if (options.seed)
    sampling.seed = *options.seed + s.index;
  auto body = std::make_shared<Object>(
      m.wire->body(config.modelId, s.conversation, sampling, config.stream));
  HttpRequest request;
  request.url = config.baseUrl + m.wire->path().str();
  request.headers = m.wire->headers(m.key);
  request.body = llvm::formatv("{0}", llvm::json::Value(Object(*body))).str();
  request.connectTimeoutSeconds = config.connectTimeoutSeconds;
  request.stallSeconds = config.stallSeconds;
  // A stream's headers come at once; a whole answer may take minutes to
  // start (total_s bounds it).
  request.firstByteSeconds = config.stream ? config.stallSeconds : 0;
  request.totalTimeoutSeconds = config.totalTimeoutSeconds;

  s.state = State::InFlight;
  s.reservedCost = cost;
  s.reservedTokens = tokens;
  reservedCost += cost;
  reservedTokens += tokens;
  ++inFlight;
  m.limiter->started(Clock::now(), tokens);
  std::shared_ptr<StreamReader> reader;
  std::shared_ptr<SseParser> parser;
  HttpClient::DataFn onData;
  if (config.stream) {
    reader = m.wire->streamReader();
    parser = std::make_shared<SseParser>();
    onData = [reader, parser](StringRef chunk) {
      for (const SseEvent &e : parser->feed(chunk))
        reader->onEvent(e);
    };
  }
  std::string url = request.url;
  http.start(
      request,
      [this, &s, reader, body, url](HttpResult &&result) {
        Outcome outcome = readOutcome(*s.model->wire, result, reader.get());
        finishRequest(s, std::move(outcome), result.seconds, *body, url);
      },
      std::move(onData));
}

static llvm::json::Array toArray(const std::vector<std::string> &v) {
  llvm::json::Array a;
  for (const std::string &s : v)
    a.push_back(s);
  return a;
}

void Generator::recordFailure(Sample &s, const ProviderError &error) {
  std::string dir = turnDir(s, s.turn);
  Object gen{{"status", "error"},
             {"model", s.model->config->name},
             {"turn", int64_t(s.turn)},
             {"attempts", int64_t(s.attempts)},
             {"http_status", int64_t(error.status)},
             {"error", redact(error.message)},
             {"retryable", error.retryable},
             {"retried", toArray(s.retried)}};
  if (Error e = writeAtomic(
          join(dir, "generation.json"),
          llvm::formatv("{0:2}\n", llvm::json::Value(std::move(gen))).str()))
    llvm::errs() << "generate: " << llvm::toString(std::move(e)) << "\n";
  s.state = State::Done;
  s.failed = true;
  ++stats.failed;
  turnsDone += options.turns - s.turn + 1;
}

void Generator::finishRequest(Sample &s, Outcome outcome, double latency,
                              const Object &body, StringRef url) {
  ModelState &m = *s.model;
  const ModelConfig &config = *m.config;
  --inFlight;
  if (!config.embedded()) {
    m.limiter->finished();
    reservedCost -= s.reservedCost;
    reservedTokens -= s.reservedTokens;
    s.reservedCost = s.reservedTokens = 0;
  }
  ++s.attempts;
  if (auto *error = std::get_if<ProviderError>(&outcome)) {
    if (error->retryAfter && *error->retryAfter > 0)
      m.limiter->pause(Clock::now() + std::chrono::milliseconds(
                                          int64_t(*error->retryAfter * 1000)));
    if (error->retryable && s.attempts < config.retry.maxAttempts &&
        !stopping) {
      // Exponential backoff with full jitter, at least Retry-After.
      double ceiling = std::min(config.retry.maxBackoffSeconds,
                                config.retry.initialBackoffSeconds *
                                    std::pow(2.0, double(s.attempts - 1)));
      std::uniform_real_distribution<double> jitter(0.5, 1.0);
      double delay = ceiling * jitter(rng);
      if (error->retryAfter)
        delay = std::max(delay, *error->retryAfter);
      s.notBefore =
          Clock::now() + std::chrono::milliseconds(int64_t(delay * 1000));
      s.state = State::Ready;
      s.retried.push_back(redact(error->message));
      ++stats.retries;
      return;
    }
    if (error->retryable && stopping) {
      s.state = State::Ready; // left for a rerun
      return;
    }
    return recordFailure(s, *error);
  }

  Completion &c = std::get<Completion>(outcome);
  // A server that reports no usage is charged an estimate (the budget must
  // not count its answers as free), and the files say so.
  bool estimated = !config.embedded() && !c.usageReported;
  if (estimated) {
    c.usage = Usage();
    c.usage.input = estimateInputTokens(s.conversation);
    c.usage.output = int64_t(double(c.text.size()) / 3.5) + 1;
  }
  double cost = config.cost(c.usage);
  stats.cost += cost;
  stats.inputTokens += c.usage.input;
  stats.outputTokens += c.usage.output;
  stats.cachedTokens += c.usage.cached;
  std::string dir = turnDir(s, s.turn);
  Object request{{"model", config.name},
                 {"provider", providerName(config.provider)},
                 {"model_id", config.modelId},
                 {"url", url},
                 {"turn", int64_t(s.turn)},
                 {"prompt_sha256", s.promptSha},
                 {"conversation_sha256", conversationSha(s.conversation)},
                 {"stream", config.stream && !config.embedded()},
                 {"body", Object(body)}};
  Object gen{{"status", "ok"},
             {"model", config.name},
             {"turn", int64_t(s.turn)},
             {"provider_model", c.model},
             {"finish_reason", c.finishReason},
             {"usage", toJSON(c.usage)},
             {"usage_estimated", estimated},
             {"latency_s", latency},
             {"cost_usd", cost},
             {"request_id", c.requestId},
             {"attempts", int64_t(s.attempts)},
             {"retried", toArray(s.retried)}};
  Error e = writeAtomic(join(dir, "response.md"), c.text);
  if (!e)
    e = writeAtomic(
        join(dir, "request.json"),
        redact(llvm::formatv("{0:2}\n", llvm::json::Value(std::move(request)))
                   .str()));
  if (!e)
    e = writeAtomic(
        join(dir, "generation.json"),
        llvm::formatv("{0:2}\n", llvm::json::Value(std::move(gen))).str());
  if (e) {
    ProviderError pe;
    pe.message = llvm::toString(std::move(e));
    return recordFailure(s, pe);
  }
  ++stats.answered;
  ++turnsDone;
  s.attempts = 0;
  s.retried.clear();
  s.conversation.push_back({"assistant", c.text});
  if (!evaluating()) {
    if (s.turn == options.turns)
      s.state = State::Done;
    else
      ++s.turn, s.state = State::Ready;
    return;
  }
  s.state = State::Evaluating;
  queueEval(s, s.turn);
}

void Generator::queueEval(Sample &s, unsigned turn) {
  Sample *sp = &s;
  pool->submit([this, sp, turn] { return evaluate(sp, turn); });
}

/// Evaluates one turn on a worker thread: touches only the store, the
/// files of this turn, and the sample's immutable fields.
EvalResult Generator::evaluate(Sample *s, unsigned turn) {
  eval::SampleInput input;
  input.key = {s->model->config->name, s->context, s->task, s->id,
               keyTurn(turn)};
  input.dir = turnDir(*s, turn);
  input.responsePath = join(input.dir, "response.md");
  eval::SweepOptions so;
  so.tasksDir = options.tasksDir;
  so.arch = options.arch;
  so.shapes = options.shapes;
  so.staticOnly = options.staticOnly;
  so.tool = options.tool;
  so.runTimeoutSeconds = options.runTimeoutSeconds;
  so.jobs = 1;
  std::string gpu;
  if (gpus)
    so.gpus = {gpu = gpus->acquire()};
  TurnVerdict verdict = evaluateTurn(*store, input, so);
  if (gpus)
    gpus->release(gpu);
  return {s, turn, std::move(verdict)};
}

void Generator::applyEval(EvalResult &r) {
  Sample &s = *r.sample;
  std::string dir = turnDir(s, r.turn);
  if (!r.verdict.error.empty()) {
    // The store or the evaluation failed: the turn stays unevaluated and
    // a rerun evaluates it again.
    llvm::errs() << "generate: cannot evaluate " << dir << ": "
                 << r.verdict.error << "\n";
    s.state = State::Done;
    s.failed = true;
    ++stats.failed;
    turnsDone += options.turns - r.turn;
    return;
  }
  bool last = r.turn == options.turns;
  Error e = Error::success();
  if (!r.verdict.solved && !last)
    e = writeAtomic(join(dir, "feedback.md"), r.verdict.feedback);
  if (!e)
    e = writeAtomic(
        join(dir, "outcome.json"),
        llvm::formatv("{0:2}\n", llvm::json::Value(
                                     Object{{"status", r.verdict.status},
                                            {"run_status", r.verdict.runStatus},
                                            {"solved", r.verdict.solved}}))
            .str());
  if (e) {
    llvm::errs() << "generate: " << llvm::toString(std::move(e)) << "\n";
    s.state = State::Done;
    s.failed = true;
    ++stats.failed;
    return;
  }
  if (r.verdict.solved || last) {
    if (r.verdict.solved && !last)
      ++stats.solvedEarly;
    turnsDone += options.turns - r.turn;
    s.state = State::Done;
    return;
  }
  s.conversation.push_back({"user", r.verdict.feedback});
  s.turn = r.turn + 1;
  s.state = State::Ready;
}

void Generator::printProgress(bool final) {
  if (!options.progress)
    return;
  auto now = Clock::now();
  if (!final && now - lastProgress < std::chrono::seconds(1))
    return;
  lastProgress = now;
  double elapsed = std::chrono::duration<double>(now - begin).count();
  unsigned doneNow = turnsDone - stats.resumed;
  unsigned left = turnsTotal - turnsDone;
  unsigned waiting = 0;
  for (auto &s : samples)
    waiting += s->state == State::Ready && s->attempts > 0;
  std::string eta =
      doneNow ? "~" + duration(elapsed / doneNow * left) + " left" : "";
  *options.progress
      << (tty ? "\r" : "")
      << llvm::formatv("generate: {0}/{1} turns done, {2} failed, {3} "
                       "retrying, {4} in flight, {5} evaluating; tokens {6} "
                       "in / {7} out; ${8:f4}; {9} {10}",
                       turnsDone, turnsTotal, stats.failed, waiting, inFlight,
                       pool ? pool->busy() : 0, shortCount(stats.inputTokens),
                       shortCount(stats.outputTokens), stats.cost,
                       duration(elapsed), eta)
      << (tty && !final ? "" : "\n");
  options.progress->flush();
}

llvm::Expected<GenerateStats> Generator::run() {
  if (Error e = prepare())
    return std::move(e);
  tty = options.progress && llvm::sys::Process::StandardErrIsDisplayed();
  for (auto &s : samples)
    resume(*s);

  while (true) {
    if (pool)
      for (EvalResult &r : pool->take())
        applyEval(r);
    dispatch();
    bool busy = inFlight > 0 || (pool && pool->busy() > 0);
    bool ready = false;
    Clock::time_point wake = Clock::now() + std::chrono::seconds(1);
    for (auto &s : samples)
      if (s->state == State::Ready) {
        ready = true;
        wake = std::min(wake, s->notBefore);
      }
    if (!busy && (!ready || stopping))
      break;
    int timeout = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                          wake - Clock::now())
                          .count());
    http.poll(std::clamp(timeout, 0, 1000));
    printProgress(false);
  }
  printProgress(true);
  for (auto &s : samples)
    if (s->state != State::Done) {
      ++stats.unfinished;
      stats.turnsLeft += options.turns - s->turn + 1;
    }
  return stats;
}

} // namespace

llvm::Expected<GenerateStats>
ptxbench::client::runGenerate(const GenerateOptions &options) {
  Generator generator(options);
  return generator.run();
}
