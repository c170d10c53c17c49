//===- Wire.cpp - Classifying a finished transfer -------------------------===//
//
// What both wire formats share: the HTTP status and transport errors turned
// into a ProviderError that says whether to retry, Retry-After, and error
// bodies' messages.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Wire.h"

#include "llvm/Support/FormatVariadic.h"

#include <ctime>

using namespace ptxbench::client;
using llvm::StringRef;

ProviderError ptxbench::client::malformedAnswer(StringRef what) {
  ProviderError e;
  e.message = ("malformed answer: " + what).str();
  e.retryable = true;
  return e;
}

std::string WireFormat::errorMessage(StringRef body) const {
  if (auto value = llvm::json::parse(body)) {
    if (const llvm::json::Object *o = value->getAsObject()) {
      if (const llvm::json::Object *e = o->getObject("error")) {
        std::string message = e->getString("message").value_or("").str();
        std::string type = e->getString("type").value_or("").str();
        if (!type.empty() && !message.empty())
          return type + ": " + message;
        if (!message.empty())
          return message;
      }
      if (auto m = o->getString("message"))
        return m->str();
      if (auto e = o->getString("error"))
        return e->str();
    }
  } else {
    llvm::consumeError(value.takeError());
  }
  return StringRef(body).trim().take_front(500).str();
}

std::optional<double> ptxbench::client::parseRetryAfter(StringRef value) {
  value = value.trim();
  double seconds;
  if (!value.getAsDouble(seconds))
    return std::max(0.0, seconds);
  // An HTTP date: "Wed, 21 Oct 2015 07:28:00 GMT".
  struct tm tm = {};
  std::string text = value.str();
  if (!strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm))
    return std::nullopt;
  time_t at = timegm(&tm);
  return std::max(0.0, double(at - time(nullptr)));
}

Outcome ptxbench::client::readOutcome(const WireFormat &wire,
                                      const HttpResult &result,
                                      StreamReader *stream) {
  ProviderError error;
  error.status = result.status;
  if (std::optional<std::string> after = result.header("retry-after"))
    error.retryAfter = parseRetryAfter(*after);
  bool ok = result.status >= 200 && result.status < 300;
  if (!result.error.empty() && !ok) {
    // No (complete) response: connection refused or reset, a timeout.
    error.message = result.error;
    error.retryable = true;
    return error;
  }
  if (!ok) {
    long s = result.status;
    error.retryable = s == 408 || s == 409 || s == 429 || s >= 500;
    error.message =
        llvm::formatv("HTTP {0}: {1}", s, wire.errorMessage(result.body)).str();
    return error;
  }
  if (!result.error.empty()) {
    // The response started and was cut or stalled midway.
    error.message =
        (result.stalled ? "stream " : "stream cut: ") + result.error;
    error.retryable = true;
    return error;
  }
  if (stream)
    return stream->finish();
  return wire.parse(result.body);
}
