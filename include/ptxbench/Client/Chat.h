//===- Chat.h - What a chat request says and what comes back ----*- C++ -*-===//
//
// The provider-neutral shape of one chat turn: the conversation, the
// sampling parameters of the models file, and the completion (text, finish
// reason, token usage, the provider's request id). The wire formats
// (OpenAIWire.h, AnthropicWire.h) translate to and from these.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CLIENT_CHAT_H
#define PTXBENCH_CLIENT_CHAT_H

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxbench::client {

struct Message {
  std::string role; // system, user, assistant
  std::string content;
};

struct Sampling {
  std::optional<double> temperature, topP;
  int64_t maxOutputTokens = 8192;
  /// OpenAI's `reasoning_effort` (low, medium, high); empty: not sent.
  std::string reasoningEffort;
  /// Anthropic's extended thinking budget in tokens; 0: not sent.
  int64_t thinkingBudget = 0;
  /// Sent as the request's `seed` where the API has one.
  std::optional<int64_t> seed;
  /// Extra top-level request fields, merged last (they win).
  llvm::json::Object extra;
};

struct Usage {
  /// Every input token, cached ones included.
  int64_t input = 0;
  int64_t output = 0;
  /// Input tokens served from the provider's prompt cache.
  int64_t cached = 0;
  /// Output tokens spent on reasoning (included in `output`).
  int64_t reasoning = 0;
  /// Input tokens written to the prompt cache (Anthropic).
  int64_t cacheWrite = 0;
};

struct Completion {
  std::string text;
  std::string finishReason;
  std::string requestId;
  std::string model;
  Usage usage;
  /// Whether the provider reported the usage (some compatible servers do
  /// not in streams); when not, generate estimates it.
  bool usageReported = false;
  /// What was repaired in the reply (invalid UTF-8 replaced), for the
  /// record.
  std::vector<std::string> notes;
};

/// What a reply delivered before it failed (cut, stalled, past a limit):
/// providers bill what they sent, so the budget counts it.
struct PartialReply {
  /// Bytes of answer text received (streams), or of the body (whole
  /// replies).
  uint64_t bytes = 0;
  Usage usage;
  bool usageReported = false;
};

llvm::json::Value toJSON(const Usage &usage);

/// A structured failure of a provider: the message (already free of the
/// key), whether another attempt may succeed, and the HTTP status if any.
struct ProviderError {
  std::string message;
  bool retryable = false;
  long status = 0;
  /// Seconds the server asked to wait (Retry-After), when it did.
  std::optional<double> retryAfter;
  /// Set when a reply started and then failed.
  std::optional<PartialReply> partial;
};

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_CHAT_H
