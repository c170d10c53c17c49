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
  double connectTimeoutSeconds = 30, stallSeconds = 120,
         totalTimeoutSeconds = 0;
  /// replay: the folder of recorded responses.
  std::string replayDir;

  bool embedded() const {
    return provider == Provider::Corpus || provider == Provider::Replay;
  }
  /// The cost in dollars of `usage` at this model's prices.
  double cost(const Usage &usage) const;
};

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
