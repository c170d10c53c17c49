//===- GenerateRequests.cpp - Send a turn, record its answer --------------===//
//
// One request of `ptxbench generate`: whether the budget (cost, tokens)
// and the model's rate limit allow it, the request itself (an HTTP
// request through the model's wire format, streamed or not, or an
// embedded model's answer), and what comes back: a retry with backoff and
// jitter for a transient failure, the failure recorded for the others, and
// for an answer its usage and cost counted and response.md, request.json
// (keys redacted) and generation.json written, in that order.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "ptxbench/Generate/Embedded.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace ptxbench;
using namespace ptxbench::client;
using namespace ptxbench::generate;
using namespace ptxbench::generate::detail;

namespace {

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

/// The output tokens of `bytes` of answer, estimated the same way.
int64_t estimateOutputTokens(uint64_t bytes) {
  return int64_t(double(bytes) / 3.5) + 1;
}

/// No tokenizer's token is this long: reported usage below it cannot be
/// the text that came.
constexpr uint64_t maxBytesPerToken = 256;

/// Why the usage a server reported cannot fit what was exchanged (the
/// answer received, the conversation sent), or empty; when it cannot, the
/// usage is raised to the estimate.
std::string checkUsage(Completion &c, const std::vector<Message> &sent) {
  uint64_t prompt = 0;
  for (const Message &m : sent)
    prompt += m.content.size();
  std::string why;
  if (uint64_t(std::max<int64_t>(0, c.usage.output)) * maxBytesPerToken <
      c.text.size()) {
    why = llvm::formatv("the reported {0} output tokens cannot hold the {1} "
                        "bytes of the answer",
                        c.usage.output, c.text.size())
              .str();
    c.usage.output = estimateOutputTokens(c.text.size());
  }
  if (uint64_t(std::max<int64_t>(0, c.usage.input)) * maxBytesPerToken <
      prompt) {
    why += llvm::formatv("{0}the reported {1} input tokens cannot hold the "
                         "{2} bytes of the conversation",
                         why.empty() ? "" : "; ", c.usage.input, prompt)
               .str();
    c.usage.input = estimateInputTokens(sent);
  }
  if (!why.empty())
    why += "; charged by the estimate";
  return why;
}

void addUsage(Usage &to, const Usage &u) {
  to.input += u.input;
  to.output += u.output;
  to.cached += u.cached;
  to.reasoning += u.reasoning;
  to.cacheWrite += u.cacheWrite;
}

} // namespace

bool Generator::budgetAllows(const Sample &s, double &cost, double &tokens) {
  const ModelConfig &m = *s.model->config;
  double input = double(estimateInputTokens(outgoing(s)));
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
      if (!s.model->limiter->allows(now, tokens, retryAt)) {
        // A rate window or a pause: look again when it opens.
        if (retryAt != Clock::time_point::max())
          s.notBefore = std::max(s.notBefore, retryAt);
        continue;
      }
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
  std::vector<Message> messages = outgoing(s);
  if (config.embedded()) {
    EmbeddedQuery q{
        options.tasksDir,        options.arch, s.context, s.task, s.id, turn,
        options.seed.value_or(0),
        options.language == prompt::AnswerLanguage::Triton};
    auto t0 = Clock::now();
    Outcome outcome = embeddedAnswer(config, q);
    s.state = State::InFlight;
    ++inFlight;
    finishRequest(s, std::move(outcome),
                  std::chrono::duration<double>(Clock::now() - t0).count(),
                  embeddedBody(config, messages), "");
    return;
  }
  Sampling sampling = config.sampling;
  if (options.seed)
    sampling.seed = *options.seed + s.index;
  auto body = std::make_shared<Object>(
      m.wire->body(config.modelId, messages, sampling, config.stream));
  HttpRequest request;
  request.url = config.baseUrl + m.wire->path().str();
  request.headers = m.wire->headers(m.key);
  request.body = llvm::formatv("{0}", llvm::json::Value(Object(*body))).str();
  request.connectTimeoutSeconds = config.connectTimeoutSeconds;
  request.stallSeconds = config.stallSeconds;
  // A stream's stall timer counts content events from when the request is
  // out; a whole answer may take minutes to start (total_s bounds it).
  request.progressByData = config.stream;
  request.totalTimeoutSeconds = config.deadlineSeconds();
  request.maxBytes = config.replyByteLimit();
  if (config.stream)
    request.keptBodyBytes = 64 << 10;

  s.state = State::InFlight;
  s.reservedCost = cost;
  s.reservedTokens = tokens;
  reservedCost += cost;
  reservedTokens += tokens;
  ++inFlight;
  m.limiter->started(Clock::now(), tokens);
  std::shared_ptr<StreamReader> reader;
  HttpClient::DataFn onData;
  if (config.stream) {
    reader = m.wire->streamReader();
    onData = feedStream(reader);
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

double Generator::charge(const ModelConfig &model, const Usage &usage) {
  double cost = model.cost(usage);
  stats.cost += cost;
  stats.inputTokens += usage.input;
  stats.outputTokens += usage.output;
  stats.cachedTokens += usage.cached;
  return cost;
}

void Generator::chargeFailed(Sample &s, const PartialReply &partial) {
  if (!partial.bytes && !partial.usageReported)
    return; // nothing was delivered
  Usage u = partial.usageReported ? partial.usage : Usage();
  if (u.input <= 0)
    u.input = estimateInputTokens(outgoing(s));
  u.output = std::max(u.output, estimateOutputTokens(partial.bytes));
  addUsage(s.failedUsage, u);
  s.failedCost += charge(*s.model->config, u);
}

/// What the failed attempts of a turn cost, for its generation.json.
static void addFailedAttempts(Object &gen, const Sample &s) {
  if (s.failedCost > 0 || s.failedUsage.input || s.failedUsage.output)
    gen["failed_attempts"] = Object{{"usage", toJSON(s.failedUsage)},
                                    {"cost_usd", s.failedCost},
                                    {"usage_estimated", true}};
}

std::string Generator::redactedJSON(Object object) const {
  llvm::json::Value value(std::move(object));
  redact.apply(value);
  return llvm::formatv("{0:2}\n", value).str();
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
  addFailedAttempts(gen, s);
  if (Error e = writeAtomic(join(dir, "generation.json"),
                            redactedJSON(std::move(gen))))
    llvm::errs() << "generate: " << redact(llvm::toString(std::move(e)))
                 << "\n";
  s.state = State::Done;
  s.failed = true;
  ++stats.failed;
  turnsDone += options.turns - s.turn + 1;
  recordUnanswered(s, s.turn);
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
    if (error->partial && !config.embedded())
      chargeFailed(s, *error->partial);
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
  // A model may write the key too: the answer is kept, and sent back in the
  // conversation, without it.
  c.text = redact(c.text);
  // A server that reports no usage is charged an estimate (the budget must
  // not count its answers as free), and the files say so; so is one whose
  // usage cannot be what was exchanged.
  bool estimated = !config.embedded() && !c.usageReported;
  // What this turn's request carried (the context policy's choice).
  std::vector<Message> sent = outgoing(s);
  if (estimated) {
    c.usage = Usage();
    c.usage.input = estimateInputTokens(sent);
    c.usage.output = estimateOutputTokens(c.text.size());
  }
  std::string usageCheck =
      config.embedded() || estimated ? "" : checkUsage(c, sent);
  double cost = charge(config, c.usage);
  std::string dir = turnDir(s, s.turn);
  Object request{{"model", config.name},
                 {"provider", providerName(config.provider)},
                 {"model_id", config.modelId},
                 {"url", url},
                 {"turn", int64_t(s.turn)},
                 {"tag", s.context},
                 {"replica", int64_t(s.index)},
                 {"prompt_sha256", s.promptSha},
                 {"documents", llvm::json::Array(s.documents)},
                 {"conversation_sha256", conversationSha(sent)},
                 {"context_policy", contextPolicyName(options.contextPolicy)},
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
  if (!usageCheck.empty())
    gen["usage_check"] = usageCheck;
  if (!c.notes.empty())
    gen["notes"] = toArray(c.notes);
  addFailedAttempts(gen, s);
  Error e = writeAtomic(join(dir, "response.md"), c.text);
  if (!e)
    e = writeAtomic(join(dir, "request.json"),
                    redactedJSON(std::move(request)));
  if (!e)
    e = writeAtomic(join(dir, "generation.json"), redactedJSON(std::move(gen)));
  if (e) {
    ProviderError pe;
    pe.message = redact(llvm::toString(std::move(e)));
    return recordFailure(s, pe);
  }
  ++stats.answered;
  ++turnsDone;
  s.attempts = 0;
  s.retried.clear();
  s.failedUsage = Usage();
  s.failedCost = 0;
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
