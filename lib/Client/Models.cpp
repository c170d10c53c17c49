//===- Models.cpp - The models file: who answers and on what terms --------===//
//
// A hand-written reader rather than llvm::json::ObjectMapper so that every
// error names the file and the dotted field, and unknown fields (a typo in
// `temprature`) are errors rather than silently ignored.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Models.h"

#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>

using namespace ptxbench::client;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::json::Object;
using llvm::json::Value;

StringRef ptxbench::client::providerName(Provider provider) {
  switch (provider) {
  case Provider::OpenAI:
    return "openai";
  case Provider::Anthropic:
    return "anthropic";
  case Provider::OpenAICompatible:
    return "openai-compatible";
  case Provider::Corpus:
    return "corpus";
  case Provider::Replay:
    return "replay";
  }
  return "";
}

double ModelConfig::cost(const Usage &usage) const {
  double uncached = double(std::max<int64_t>(0, usage.input - usage.cached));
  return (uncached * prices.input + double(usage.cached) * prices.cachedInput +
          double(usage.output) * prices.output) /
         1e6;
}

uint64_t ModelConfig::replyByteLimit() const {
  if (limits.maxReplyBytes)
    return *limits.maxReplyBytes;
  return (uint64_t(1) << 20) + uint64_t(sampling.maxOutputTokens) * 1024;
}

double ModelConfig::deadlineSeconds() const {
  if (totalTimeoutSeconds)
    return *totalTimeoutSeconds;
  return 600 + double(sampling.maxOutputTokens) / 10;
}

bool ptxbench::client::isFolderName(StringRef name) {
  return !name.empty() && !name.starts_with(".") &&
         llvm::none_of(name, [](char c) {
           return c == '/' || c == '\\' || (unsigned char)c < 0x20 ||
                  (unsigned char)c == 0x7f;
         });
}

ModelConfig ptxbench::client::builtinCorpusModel() {
  ModelConfig m;
  m.name = "corpus";
  m.provider = Provider::Corpus;
  m.modelId = "corpus";
  m.limits.concurrency = 64;
  return m;
}

Value ptxbench::client::toJSON(const Usage &u) {
  return Object{{"input", u.input},
                {"output", u.output},
                {"cached", u.cached},
                {"reasoning", u.reasoning},
                {"cache_write", u.cacheWrite}};
}

namespace {

/// Reads the fields of one JSON object, each error naming `file: field`.
class Fields {
public:
  Fields(const Object &o, std::string file, std::string where)
      : o(o), file(std::move(file)), where(std::move(where)) {}

  Error error(StringRef field, const llvm::Twine &what) const {
    return llvm::createStringError(file + ": " + path(field) + ": " + what);
  }
  std::string path(StringRef field) const {
    return where.empty() ? field.str() : where + "." + field.str();
  }

  const Value *get(StringRef field) {
    seen.insert(field.str());
    return o.get(field);
  }

  Error string(StringRef field, std::string &out) {
    if (const Value *v = get(field)) {
      if (!v->getAsString())
        return error(field, "expected a string");
      out = v->getAsString()->str();
    }
    return Error::success();
  }
  Error number(StringRef field, double &out, double min = 0) {
    if (const Value *v = get(field)) {
      if (!v->getAsNumber())
        return error(field, "expected a number");
      if (*v->getAsNumber() < min)
        return error(field,
                     "expected a number >= " + llvm::formatv("{0}", min).str());
      out = *v->getAsNumber();
    }
    return Error::success();
  }
  Error optNumber(StringRef field, std::optional<double> &out) {
    if (const Value *v = get(field); v && v->kind() != Value::Null) {
      double d = 0;
      if (Error e = number(field, d))
        return e;
      out = d;
    }
    return Error::success();
  }
  Error integer(StringRef field, int64_t &out, int64_t min = 0) {
    if (const Value *v = get(field); v && v->kind() != Value::Null) {
      if (!v->getAsInteger())
        return error(field, "expected an integer");
      if (*v->getAsInteger() < min)
        return error(field, "expected an integer >= " + llvm::Twine(min));
      out = *v->getAsInteger();
    }
    return Error::success();
  }
  Error boolean(StringRef field, bool &out) {
    if (const Value *v = get(field)) {
      if (!v->getAsBoolean())
        return error(field, "expected true or false");
      out = *v->getAsBoolean();
    }
    return Error::success();
  }
  Expected<std::optional<Fields>> object(StringRef field) {
    const Value *v = get(field);
    if (!v)
      return std::nullopt;
    if (!v->getAsObject())
      return error(field, "expected an object");
    return Fields(*v->getAsObject(), file, path(field));
  }
  /// Every field present was read.
  Error done() const {
    for (const auto &kv : o)
      if (!seen.count(kv.first.str()))
        return error(kv.first.str(), "unknown field");
    return Error::success();
  }

private:
  const Object &o;
  std::string file, where;
  std::set<std::string> seen;
};

bool isEnvName(StringRef name) {
  if (name.empty() || llvm::isDigit(name[0]))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

Error readSampling(Fields f, Sampling &s) {
  if (Error e = f.optNumber("temperature", s.temperature))
    return e;
  if (Error e = f.optNumber("top_p", s.topP))
    return e;
  if (Error e = f.integer("max_output_tokens", s.maxOutputTokens, 1))
    return e;
  if (Error e = f.string("reasoning_effort", s.reasoningEffort))
    return e;
  if (Error e = f.integer("thinking_budget", s.thinkingBudget, 0))
    return e;
  if (const Value *extra = f.get("extra")) {
    if (!extra->getAsObject())
      return f.error("extra", "expected an object of request fields");
    s.extra = *extra->getAsObject();
  }
  return f.done();
}

Expected<ModelConfig> readModel(StringRef name, const Value &value,
                                StringRef file) {
  std::string where = ("models." + name).str();
  if (!value.getAsObject())
    return llvm::createStringError(file + ": " + where +
                                   ": expected an object");
  Fields f(*value.getAsObject(), file.str(), where);
  ModelConfig m;
  m.name = name.str();
  std::string provider;
  if (Error e = f.string("provider", provider))
    return std::move(e);
  if (provider.empty())
    return f.error("provider", "missing (openai, anthropic, "
                               "openai-compatible, corpus or replay)");
  std::optional<Provider> p =
      llvm::StringSwitch<std::optional<Provider>>(provider)
          .Case("openai", Provider::OpenAI)
          .Case("anthropic", Provider::Anthropic)
          .Case("openai-compatible", Provider::OpenAICompatible)
          .Case("corpus", Provider::Corpus)
          .Case("replay", Provider::Replay)
          .Default(std::nullopt);
  if (!p)
    return f.error("provider", "unknown provider '" + provider +
                                   "' (expected openai, anthropic, "
                                   "openai-compatible, corpus or replay)");
  m.provider = *p;
  if (Error e = f.string("base_url", m.baseUrl))
    return std::move(e);
  if (Error e = f.string("model", m.modelId))
    return std::move(e);
  if (Error e = f.string("api_key_env", m.apiKeyEnv))
    return std::move(e);
  if (Error e = f.string("dir", m.replayDir))
    return std::move(e);
  if (Error e = f.boolean("stream", m.stream))
    return std::move(e);

  auto sub = [&](StringRef field,
                 llvm::function_ref<Error(Fields)> read) -> Error {
    auto o = f.object(field);
    if (!o)
      return o.takeError();
    return *o ? read(**o) : Error::success();
  };
  if (Error e = sub("sampling", [&](Fields s) {
        return readSampling(std::move(s), m.sampling);
      }))
    return std::move(e);
  if (Error e = sub("prices", [&](Fields s) -> Error {
        if (Error e = s.number("input", m.prices.input))
          return e;
        if (Error e = s.number("output", m.prices.output))
          return e;
        if (Error e = s.number("cached_input", m.prices.cachedInput))
          return e;
        return s.done();
      }))
    return std::move(e);
  if (Error e = sub("limits", [&](Fields s) -> Error {
        if (Error e =
                s.number("requests_per_minute", m.limits.requestsPerMinute))
          return e;
        if (Error e = s.number("tokens_per_minute", m.limits.tokensPerMinute))
          return e;
        int64_t c = m.limits.concurrency;
        if (Error e = s.integer("concurrency", c, 1))
          return e;
        m.limits.concurrency = unsigned(c);
        int64_t bytes = -1;
        if (Error e = s.integer("max_reply_bytes", bytes, 1024))
          return e;
        if (bytes >= 0)
          m.limits.maxReplyBytes = uint64_t(bytes);
        return s.done();
      }))
    return std::move(e);
  if (Error e = sub("timeouts", [&](Fields s) -> Error {
        if (Error e = s.number("connect_s", m.connectTimeoutSeconds))
          return e;
        if (Error e = s.number("stall_s", m.stallSeconds))
          return e;
        if (Error e = s.optNumber("total_s", m.totalTimeoutSeconds))
          return e;
        return s.done();
      }))
    return std::move(e);
  if (Error e = sub("retry", [&](Fields s) -> Error {
        int64_t n = m.retry.maxAttempts;
        if (Error e = s.integer("max_attempts", n, 1))
          return e;
        m.retry.maxAttempts = unsigned(n);
        if (Error e =
                s.number("initial_backoff_s", m.retry.initialBackoffSeconds))
          return e;
        if (Error e = s.number("max_backoff_s", m.retry.maxBackoffSeconds))
          return e;
        return s.done();
      }))
    return std::move(e);
  if (Error e = f.done())
    return std::move(e);

  // What each provider needs.
  if (m.provider == Provider::OpenAI && m.baseUrl.empty())
    m.baseUrl = "https://api.openai.com/v1";
  if (m.provider == Provider::Anthropic && m.baseUrl.empty())
    m.baseUrl = "https://api.anthropic.com/v1";
  if (!m.embedded()) {
    if (m.baseUrl.empty())
      return f.error("base_url", "missing (the server's URL, e.g. "
                                 "http://127.0.0.1:8000/v1)");
    if (!StringRef(m.baseUrl).starts_with("http://") &&
        !StringRef(m.baseUrl).starts_with("https://"))
      return f.error("base_url", "expected an http:// or https:// URL, got '" +
                                     m.baseUrl + "'");
    while (StringRef(m.baseUrl).ends_with("/"))
      m.baseUrl.pop_back();
    if (m.modelId.empty())
      return f.error("model", "missing (the provider's model id)");
    if (m.apiKeyEnv.empty() && m.provider != Provider::OpenAICompatible)
      return f.error("api_key_env",
                     "missing (the NAME of the environment variable holding "
                     "the key, e.g. OPENAI_API_KEY)");
    // Not echoed: a key pasted here by mistake must not reach a log.
    if (!m.apiKeyEnv.empty() && !isEnvName(m.apiKeyEnv))
      return f.error("api_key_env", "expected the NAME of an environment "
                                    "variable ([A-Za-z_][A-Za-z0-9_]*), "
                                    "not a key");
  }
  if (m.provider == Provider::Replay && m.replayDir.empty())
    return f.error("dir", "missing (the folder of recorded responses)");
  if (m.modelId.empty())
    m.modelId = m.name;
  return m;
}

} // namespace

Expected<std::map<std::string, ModelConfig>>
ptxbench::client::parseModels(StringRef text, StringRef path) {
  auto value = ptxbench::parseJSON(text);
  if (!value)
    return llvm::createStringError(
        ptxbench::describeJSONError(value.takeError(), path));
  const Object *root = value->getAsObject();
  const Object *models = root ? root->getObject("models") : nullptr;
  if (!models)
    return llvm::createStringError(
        path + ": models: missing (expected {\"models\": {\"NAME\": {...}}})");
  for (const auto &kv : *root)
    if (kv.first != "models" && kv.first != "description")
      return llvm::createStringError(path + ": " + kv.first.str() +
                                     ": unknown field");
  std::map<std::string, ModelConfig> out;
  for (const auto &kv : *models) {
    StringRef name = kv.first;
    if (!isFolderName(name))
      return llvm::createStringError(path + ": models." + name +
                                     ": a model name must be a folder name");
    auto model = readModel(name, kv.second, path);
    if (!model)
      return model.takeError();
    out[name.str()] = std::move(*model);
  }
  return out;
}

Expected<std::map<std::string, ModelConfig>>
ptxbench::client::loadModels(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("cannot read models file '" + path +
                                   "': " + buffer.getError().message());
  return parseModels((*buffer)->getBuffer(), path);
}
