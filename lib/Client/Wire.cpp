//===- Wire.cpp - Classifying a finished transfer -------------------------===//
//
// What both wire formats share: the HTTP status, transport errors and the
// limits that stopped a transfer turned into a ProviderError that says
// whether to retry and what a failed reply delivered, Retry-After, error
// bodies' messages (also in a 2xx body), and the stream readers' common
// part (UTF-8 repair, what arrived so far).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Wire.h"

#include "ptxbench/Support/JSON.h"
#include "ptxbench/Support/TerminalText.h"

#include "llvm/ADT/StringExtras.h"
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

std::string ptxbench::client::repairUTF8(StringRef text, std::string *note) {
  if (llvm::json::isUTF8(text))
    return text.str();
  if (note)
    *note = "invalid UTF-8 in the reply was replaced with U+FFFD";
  return llvm::json::fixUTF8(text);
}

/// At most `bytes` bytes of `text` for a message: invalid UTF-8 replaced
/// (a server's body or header is anything), and not cut inside a
/// character.
static std::string textPrefix(StringRef text, size_t bytes) {
  return ptxbench::quotedPrefix(ptxbench::client::repairUTF8(text), bytes);
}

bool StreamReader::onEvent(const SseEvent &event) {
  if (failed)
    return false;
  if (llvm::json::isUTF8(event.data))
    return read(event);
  SseEvent fixed{event.event, ""};
  std::string note;
  fixed.data = repairUTF8(event.data, &note);
  if (!repaired)
    completion.notes.push_back(note);
  repaired = true;
  return read(fixed);
}

void StreamReader::fail(StringRef why) {
  if (failed)
    return;
  failed = malformedAnswer(why);
  failed->retryable = false;
  wasRefused = true;
}

HttpClient::DataFn
ptxbench::client::feedStream(std::shared_ptr<StreamReader> reader) {
  auto parser = std::make_shared<SseParser>();
  return [reader, parser](StringRef chunk) {
    bool content = false;
    for (const SseEvent &e : parser->feed(chunk))
      content |= reader->onEvent(e);
    if (!parser->error().empty())
      reader->fail(parser->error());
    return content;
  };
}

PartialReply StreamReader::partial() const {
  PartialReply p;
  p.bytes = contentBytes;
  p.usage = completion.usage;
  p.usageReported = completion.usageReported;
  return p;
}

Outcome StreamReader::result(StringRef unfinished) const {
  ProviderError e;
  if (failed)
    e = *failed;
  else if (!done)
    e = malformedAnswer(unfinished);
  else
    return completion;
  e.partial = partial();
  return e;
}

std::string WireFormat::errorMessage(StringRef body) const {
  if (auto value = ptxbench::parseJSON(body)) {
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
  return textPrefix(body.trim(), 500);
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

namespace {

/// A 2xx body that is an error object (`error`, or `type: error`): the
/// server's message, worth another attempt.
std::optional<ProviderError> errorInSuccess(const WireFormat &wire,
                                            StringRef body) {
  auto value = ptxbench::parseJSON(body);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *o = value->getAsObject();
  if (!o || !(o->get("error") || o->getString("type").value_or("") == "error"))
    return std::nullopt;
  ProviderError e;
  e.message = "the server answered with an error: " + wire.errorMessage(body);
  e.retryable = true;
  return e;
}

/// The error for a transfer that one of its limits stopped.
std::string limitMessage(const HttpResult &result, bool stream) {
  switch (result.limit) {
  case HttpLimit::Size: {
    std::string m = "reply too large: " + result.error +
                    " (limits.max_reply_bytes in the models file)";
    if (result.wireBytes && result.wireBytes * 2 < result.receivedBytes)
      m += llvm::formatv("; it came compressed, {0} bytes over the wire",
                         result.wireBytes)
               .str();
    return m;
  }
  case HttpLimit::Stall:
    return result.error + (stream ? " (timeouts.stall_s; keep-alive bytes "
                                    "and SSE comments are not content)"
                                  : " (timeouts.stall_s)");
  case HttpLimit::Deadline:
    return result.error + " (timeouts.total_s)";
  case HttpLimit::None:
    break;
  }
  return result.error;
}

} // namespace

Outcome ptxbench::client::readOutcome(const WireFormat &wire,
                                      const HttpResult &result,
                                      StreamReader *stream) {
  ProviderError error;
  error.status = result.status;
  if (std::optional<std::string> after = result.header("retry-after"))
    error.retryAfter = parseRetryAfter(*after);
  bool ok = result.status >= 200 && result.status < 300;
  // What a reply that started delivered: the provider bills it.
  auto delivered = [&] {
    if (stream)
      return stream->partial();
    // Whitespace is what servers keep a connection alive with, not answer.
    PartialReply p;
    p.bytes =
        llvm::count_if(result.body, [](char c) { return !llvm::isSpace(c); });
    return p;
  };
  if (result.limit != HttpLimit::None) {
    // A broken or hostile server: another attempt would cost as much.
    error.message = limitMessage(result, stream);
    error.retryable = false;
    if (ok)
      error.partial = delivered();
    return error;
  }
  // Past the SSE parser's limits: what ended the stream after that (a cut,
  // the server closing) does not matter.
  if (stream && stream->refused())
    return stream->finish();
  if (!result.error.empty() && !ok) {
    // No (complete) response: connection refused or reset, a timeout.
    error.message = result.error;
    error.retryable = true;
    return error;
  }
  if (!ok) {
    long s = result.status;
    error.retryable = s == 408 || s == 409 || s == 429 || s >= 500;
    if (s >= 300 && s < 400) {
      std::optional<std::string> to = result.header("location");
      error.message =
          llvm::formatv("HTTP {0}: the server redirects to {1}; redirects "
                        "are not followed: set base_url in the models file "
                        "to the address it should be",
                        s,
                        to && !to->empty() ? textPrefix(*to, 500)
                                           : "(no Location)")
              .str();
      return error;
    }
    error.message =
        llvm::formatv("HTTP {0}: {1}", s, wire.errorMessage(result.body)).str();
    return error;
  }
  if (!result.error.empty()) {
    // The response started and was cut midway.
    error.message = (stream ? "stream cut: " : "reply cut: ") + result.error;
    error.retryable = true;
    error.partial = delivered();
    return error;
  }
  if (stream) {
    Outcome outcome = stream->finish();
    // A server that answers a stream request with a whole error object.
    if (auto *e = std::get_if<ProviderError>(&outcome);
        e && !stream->partial().bytes)
      if (std::optional<ProviderError> body = errorInSuccess(wire, result.body))
        return *body;
    return outcome;
  }
  std::string note;
  std::string body = repairUTF8(result.body, &note);
  if (std::optional<ProviderError> e = errorInSuccess(wire, body)) {
    e->status = result.status;
    return *e;
  }
  Outcome outcome = wire.parse(body);
  if (auto *c = std::get_if<Completion>(&outcome)) {
    if (!note.empty())
      c->notes.push_back(note);
  } else {
    std::get<ProviderError>(outcome).partial = delivered(); // malformed
  }
  return outcome;
}
