//===- Models.h - The models file: who answers and on what terms -*- C++
//-*-===//
//
// A JSON file naming the models a run may ask: per model its provider
// (openai, anthropic, openai-compatible, or the embedded corpus and
// replay), base URL, model id, the NAME of the environment variable that
// holds its key (never the key), sampling parameters, prices per million
// tokens, limits, timeouts and retry policy. docs/generate.md documents
// the fields with an example. Errors name the file and the field.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CLIENT_MODELS_H
#define PTXBENCH_CLIENT_MODELS_H

#include "ptxbench/Client/Chat.h"

#include "llvm/Support/Error.h"

#include <map>

namespace ptxbench::client {

enum class Provider { OpenAI, Anthropic, OpenAICompatible, Corpus, Replay };
llvm::StringRef providerName(Provider provider);

struct Prices {
  /// US dollars per million tokens.
  double input = 0, output = 0, cachedInput = 0;
};

struct Limits {
  /// 0: unlimited.
  double requestsPerMinute = 0, tokensPerMinute = 0;
  unsigned concurrency = 8;
  /// Bytes of one reply (headers and decoded body); unset: derived from
  /// max_output_tokens (ModelConfig::replyByteLimit).
  std::optional<uint64_t> maxReplyBytes;
};

struct RetryPolicy {
  unsigned maxAttempts = 6;
  double initialBackoffSeconds = 1, maxBackoffSeconds = 60;
};

struct ModelConfig {
  std::string name;
  Provider provider = Provider::Corpus;
  std::string baseUrl;
  std::string modelId;
  /// The environment variable holding the key; empty: no key is sent.
  std::string apiKeyEnv;
  Sampling sampling;
  Prices prices;
  Limits limits;
  RetryPolicy retry;
  bool stream = true;
  double connectTimeoutSeconds = 30, stallSeconds = 120;
  /// Seconds one request may take in all; unset: derived from
  /// max_output_tokens (ModelConfig::deadlineSeconds); 0: none.
  std::optional<double> totalTimeoutSeconds;
  /// replay: the folder of recorded responses.
  std::string replayDir;

  bool embedded() const {
    return provider == Provider::Corpus || provider == Provider::Replay;
  }
  /// The cost in dollars of `usage` at this model's prices.
  double cost(const Usage &usage) const;
  /// The size limit of one reply: max_reply_bytes, else 1 MiB plus 1 KiB
  /// per output token (a streamed token costs a few hundred bytes of
  /// event, an escaped one in a whole body at most a few dozen).
  uint64_t replyByteLimit() const;
  /// The total deadline of one request: total_s, else 10 minutes plus a
  /// tenth of a second per output token (the slowest servers' rate).
  double deadlineSeconds() const;
};

/// Whether `name` can be a folder of the sample tree (a model's, a task's):
/// not empty, no separator, not starting with '.' (so not `.` or `..`),
/// no control characters.
bool isFolderName(llvm::StringRef name);

/// The built-in `corpus` model (provider corpus, no file needed).
ModelConfig builtinCorpusModel();

/// Reads `path`; errors name the file and field
/// (`models.json: models.gpt.provider: ...`).
llvm::Expected<std::map<std::string, ModelConfig>>
loadModels(llvm::StringRef path);
/// Parses the text of a models file; `path` names it in errors.
llvm::Expected<std::map<std::string, ModelConfig>>
parseModels(llvm::StringRef text, llvm::StringRef path);

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_MODELS_H
