//===- Http.h - Many HTTP requests in flight on one thread ------*- C++ -*-===//
//
// A small wrapper over libcurl's multi interface: requests are started with
// a callback for the finished transfer (and optionally one for each chunk of
// the body as it arrives, for server-sent events), and poll() drives every
// transfer on the calling thread with curl_multi_poll. A transfer that
// receives nothing for `stallSeconds` is aborted and reported as stalled.
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
};

struct HttpResult {
  /// The HTTP status; 0 when no response arrived.
  long status = 0;
  /// Response headers, names in lower case, of the last response.
  HeaderList headers;
  std::string body;
  /// The transport error in words (connection refused, reset, timeout);
  /// empty when the transfer completed.
  std::string error;
  /// The stall timeout aborted the transfer.
  bool stalled = false;
  double seconds = 0;

  std::optional<std::string> header(llvm::StringRef name) const;
};

class HttpClient {
public:
  using DoneFn = std::function<void(HttpResult &&)>;
  using DataFn = std::function<void(llvm::StringRef chunk)>;

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
