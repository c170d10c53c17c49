//===- Wire.h - The chat APIs' request and response formats -----*- C++ -*-===//
//
// A WireFormat builds the request of one chat turn (URL path, headers,
// JSON body) and reads the answer, whole or streamed as server-sent
// events. OpenAI Chat Completions (also spoken by vLLM, SGLang, llama.cpp,
// Ollama and gateways: `openai-compatible`) and Anthropic Messages are the
// two formats; each lives in its own file. Errors are classified here:
// 429, 408, 409, 5xx, cut or stalled streams and malformed bodies may
// succeed on another attempt; other 4xx (a prompt too long, a bad
// parameter, a bad key) will not.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CLIENT_WIRE_H
#define PTXBENCH_CLIENT_WIRE_H

#include "ptxbench/Client/Chat.h"
#include "ptxbench/Client/Http.h"
#include "ptxbench/Client/Sse.h"

#include <memory>
#include <variant>

namespace ptxbench::client {

using Outcome = std::variant<Completion, ProviderError>;

/// Accumulates a streamed answer event by event.
class StreamReader {
public:
  virtual ~StreamReader() = default;
  /// Reads one event (invalid UTF-8 in it replaced, and noted); returns
  /// whether it carried content (answer or reasoning text, the finish, the
  /// usage): what the stall timer counts, unlike pings and role-only
  /// chunks.
  bool onEvent(const SseEvent &event);
  /// The answer once the transfer ended; a stream that ended before its
  /// final event is a retryable error.
  virtual Outcome finish() = 0;
  /// What arrived so far, to charge a stream that failed.
  PartialReply partial() const;
  /// Fails the stream for what its events cannot say (a line or an event
  /// past the SSE parser's limits), not to be retried: the server would
  /// send the same again. The first failure stays.
  void fail(llvm::StringRef why);
  /// Whether fail() did: that is the outcome unless the transfer then ran
  /// into one of its own limits (reply size, stall, deadline).
  bool refused() const { return wasRefused; }

protected:
  /// onEvent's work, on an event whose data is valid UTF-8.
  virtual bool read(const SseEvent &event) = 0;
  /// `completion`, or the failure with what arrived so far.
  Outcome result(llvm::StringRef unfinished) const;

  Completion completion;
  std::optional<ProviderError> failed;
  /// Bytes of answer and reasoning text received.
  uint64_t contentBytes = 0;
  bool done = false;

private:
  bool repaired = false;
  bool wasRefused = false;
};

class WireFormat {
public:
  virtual ~WireFormat() = default;
  /// The path appended to the base URL (`/chat/completions`, `/messages`).
  virtual llvm::StringRef path() const = 0;
  /// The headers; `key` is empty when the model needs none.
  virtual HeaderList headers(llvm::StringRef key) const = 0;
  virtual llvm::json::Object body(llvm::StringRef modelId,
                                  const std::vector<Message> &messages,
                                  const Sampling &sampling,
                                  bool stream) const = 0;
  /// A whole (non-streamed) 2xx body.
  virtual Outcome parse(llvm::StringRef body) const = 0;
  virtual std::unique_ptr<StreamReader> streamReader() const = 0;
  /// The `message` of an error body, or the body's start.
  virtual std::string errorMessage(llvm::StringRef body) const;
};

/// OpenAI Chat Completions. `compatible` sends `max_tokens` (which every
/// compatible server knows) instead of `max_completion_tokens`.
std::unique_ptr<WireFormat> createOpenAIWire(bool compatible);
/// Anthropic Messages (`anthropic-version: 2023-06-01`).
std::unique_ptr<WireFormat> createAnthropicWire();

/// The outcome of one finished transfer: the error (classified) for a
/// transport failure, a non-2xx status or a limit that stopped it (not
/// retryable), else what `parse` or the stream reader made of the body. A
/// reply that started and failed carries what it delivered (`partial`).
Outcome readOutcome(const WireFormat &wire, const HttpResult &result,
                    StreamReader *stream);

/// The body callback of a streamed request: parses the chunks into events
/// for `reader` and says whether they carried content.
HttpClient::DataFn feedStream(std::shared_ptr<StreamReader> reader);

/// An answer the wire format cannot read ("malformed answer: WHAT"); worth
/// another attempt.
ProviderError malformedAnswer(llvm::StringRef what);
/// `text` when it is valid UTF-8, else with the invalid bytes replaced by
/// U+FFFD and `note` (when given) saying so.
std::string repairUTF8(llvm::StringRef text, std::string *note = nullptr);

/// Seconds in a Retry-After value (delta seconds or an HTTP date).
std::optional<double> parseRetryAfter(llvm::StringRef value);

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_WIRE_H
