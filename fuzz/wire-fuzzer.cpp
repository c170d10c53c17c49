//===- wire-fuzzer.cpp - libFuzzer target: chat servers' replies ----------===//
//
// A server's reply as `ptxbench generate` reads it (readOutcome), on
// arbitrary bytes, three ways: a whole 2xx body (WireFormat::parse and the
// error object in a 2xx body), a 3xx, 4xx or 5xx status (the error body's
// message, Location and Retry-After), and a streamed body fed through the
// SSE parser in chunks (feedStream, the stream reader, finish). Built twice: PTXBENCH_FUZZ_ANTHROPIC selects
// Anthropic Messages, else OpenAI Chat Completions. Checked besides
// crashes: everything read from the reply that is written to files and
// terminals (the answer, ids, the finish reason, notes and error messages)
// is valid UTF-8, as the JSON writers require.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Wire.h"

#include "llvm/Support/JSON.h"

#include <cstdio>
#include <cstdlib>

using namespace ptxbench::client;

namespace {

void checkText(const char *what, llvm::StringRef text) {
  if (llvm::json::isUTF8(text))
    return;
  fprintf(stderr, "wire-fuzzer: invalid UTF-8 in the %s: %s\n", what,
          text.str().c_str());
  abort();
}

void checkOutcome(const Outcome &outcome) {
  if (const auto *c = std::get_if<Completion>(&outcome)) {
    checkText("answer", c->text);
    checkText("finish reason", c->finishReason);
    checkText("request id", c->requestId);
    checkText("model", c->model);
    for (const std::string &note : c->notes)
      checkText("note", note);
    return;
  }
  checkText("error message", std::get<ProviderError>(outcome).message);
}

std::unique_ptr<WireFormat> createWire() {
#if PTXBENCH_FUZZ_ANTHROPIC
  return createAnthropicWire();
#else
  return createOpenAIWire(/*compatible=*/true);
#endif
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::unique_ptr<WireFormat> wire = createWire();

  HttpResult whole;
  whole.status = 200;
  whole.body = text.str();
  checkOutcome(readOutcome(*wire, whole, nullptr));

  // A refusal or a redirect, whose headers come from the input too.
  HttpResult refused;
  refused.status = 300 + long(size % 300);
  refused.body = text.str();
  std::string firstLine = text.take_until([](char c) { return c == '\n'; })
                              .take_front(200)
                              .str();
  refused.headers = {{"location", firstLine}, {"retry-after", firstLine}};
  checkOutcome(readOutcome(*wire, refused, nullptr));

  // Chunk sizes vary with the input, so lines and events are cut anywhere.
  std::shared_ptr<StreamReader> reader = wire->streamReader();
  HttpClient::DataFn feed = feedStream(reader);
  size_t step = 1 + size % 61;
  for (size_t at = 0; at < size; at += step)
    feed(text.substr(at, step));
  HttpResult streamed;
  streamed.status = 200;
  streamed.body = text.take_front(64 << 10).str(); // what generate keeps
  checkOutcome(readOutcome(*wire, streamed, reader.get()));
  return 0;
}
