//===- Http.h - Many HTTP requests in flight on one thread ------*- C++ -*-===//
//
// A small wrapper over libcurl's multi interface: requests are started with
// a callback for the finished transfer (and optionally one for each chunk of
// the body as it arrives, for server-sent events), and poll() drives every
// transfer on the calling thread with curl_multi_poll. Three limits stop a
// transfer, each reported as such: a stall (no progress for `stallSeconds`;
// progress is any byte, or only what the chunk callback calls progress),
// a size (more than `maxBytes` of headers and decoded body: a compressed
// body is counted after decompression) and a total deadline.
// Handles are owned by RAII wrappers; nothing here logs a request's headers.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CLIENT_HTTP_H
#define PTXBENCH_CLIENT_HTTP_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxbench::client {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  HeaderList headers;
  std::string body;
  double connectTimeoutSeconds = 30;
  /// Abort when no byte arrives for this long once the response has
  /// started (0: never).
  double stallSeconds = 120;
  /// Abort when the response has not started after this long (0: never).
  double firstByteSeconds = 0;
  /// Abort after this long in total (0: no limit).
  double totalTimeoutSeconds = 0;
  /// Abort once more than this many bytes of response headers and decoded
  /// body arrived (0: no limit).
  uint64_t maxBytes = 0;
  /// The stall timer counts only the chunks the data callback calls
  /// progress, from when the request was sent (a stream's keep-alive
  /// bytes are not progress); otherwise every byte counts.
  bool progressByData = false;
  /// The most of the body HttpResult::body keeps (0: all); the data
  /// callback sees all of it. A stream's events go to the callback, so its
  /// body is kept only for an error message.
  uint64_t keptBodyBytes = 0;
};

/// Why a transfer was stopped by one of its limits.
enum class HttpLimit { None, Stall, Size, Deadline };

struct HttpResult {
  /// The HTTP status; 0 when no response arrived.
  long status = 0;
  /// Response headers, names in lower case, of the last response.
  HeaderList headers;
  std::string body;
  /// The transport error in words (connection refused, reset, timeout);
  /// empty when the transfer completed.
  std::string error;
  /// The limit that stopped the transfer, if one did (`error` says so).
  HttpLimit limit = HttpLimit::None;
  /// Bytes of headers and decoded body received, and of body as it came
  /// over the wire (compressed, when it was).
  uint64_t receivedBytes = 0, wireBytes = 0;
  double seconds = 0;

  std::optional<std::string> header(llvm::StringRef name) const;
};

class HttpClient {
public:
  using DoneFn = std::function<void(HttpResult &&)>;
  /// Gets each chunk of the body; returns whether it made progress (for a
  /// request with `progressByData`).
  using DataFn = std::function<bool(llvm::StringRef chunk)>;

  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient &) = delete;
  HttpClient &operator=(const HttpClient &) = delete;

  /// Starts `request`; `done` runs from poll() when it ends, `onData` (if
  /// set) for each chunk of the body as it arrives. Returns an id.
  uint64_t start(const HttpRequest &request, DoneFn done, DataFn onData = {});
  /// Drives the transfers, waiting at most `timeoutMs` for activity (or a
  /// wakeup()), and runs the callbacks of those that ended. Returns the
  /// transfers still in flight.
  size_t poll(int timeoutMs);
  /// Interrupts a poll() waiting on another thread.
  void wakeup();
  size_t inFlight() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_HTTP_H
