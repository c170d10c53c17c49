//===- client-bench.cpp - The model client's overhead per request ---------===//
//
// Sends N chat requests with C in flight on one thread through the same
// path `ptxbench generate` uses (request body from the wire format,
// HttpClient, SSE parsing, readOutcome) and reports the wall time, the
// requests per second, the most requests in flight, and this process's CPU
// time (user + system, getrusage) per request: the client's overhead.
//
//   client-bench --url http://127.0.0.1:PORT/v1 [--requests N]
//                [--concurrency C] [--stream] [--anthropic] [--model ID]
//
// docs/performance.md has the command with the scripted server and the figures.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Http.h"
#include "ptxbench/Client/Wire.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/resource.h>

#include <chrono>

using namespace ptxbench::client;
using namespace llvm;

static cl::opt<std::string> url("url", cl::desc("API root"), cl::Required);
static cl::opt<unsigned> requests("requests", cl::init(2000));
static cl::opt<unsigned> concurrency("concurrency", cl::init(64));
static cl::opt<bool> stream("stream", cl::desc("Stream the answers (SSE)"));
static cl::opt<bool> anthropic("anthropic",
                               cl::desc("Anthropic Messages, not OpenAI"));
static cl::opt<std::string> model("model", cl::init("slow/bench"));

static double cpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec +
         u.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "model client benchmark\n");
  std::unique_ptr<WireFormat> wire =
      anthropic ? createAnthropicWire() : createOpenAIWire(true);
  // A prompt of about the size of a `brief` prompt (12 KB).
  std::vector<Message> messages = {{"system", std::string(2000, 's')},
                                   {"user", std::string(10000, 'u')}};
  Sampling sampling;
  HttpClient http;
  unsigned started = 0, done = 0, failed = 0, inFlight = 0, maxInFlight = 0;
  size_t answerBytes = 0;

  auto launch = [&] {
    HttpRequest request;
    request.url = url + wire->path().str();
    request.headers = wire->headers("bench-key");
    request.body =
        formatv("{0}",
                json::Value(wire->body(model, messages, sampling, stream)))
            .str();
    auto reader =
        stream ? std::shared_ptr<StreamReader>(wire->streamReader()) : nullptr;
    HttpClient::DataFn onData;
    if (reader)
      onData = feedStream(reader);
    ++started;
    ++inFlight;
    maxInFlight = std::max(maxInFlight, inFlight);
    http.start(
        request,
        [&, reader](HttpResult &&result) {
          --inFlight;
          ++done;
          Outcome o = readOutcome(*wire, result, reader.get());
          if (auto *c = std::get_if<Completion>(&o))
            answerBytes += c->text.size();
          else {
            if (!failed)
              errs() << "first failure: " << std::get<ProviderError>(o).message
                     << "\n";
            ++failed;
          }
        },
        std::move(onData));
  };

  double cpu0 = cpuSeconds();
  auto t0 = std::chrono::steady_clock::now();
  while (done < requests) {
    while (started < requests && inFlight < concurrency)
      launch();
    http.poll(100);
  }
  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  double cpu = cpuSeconds() - cpu0;
  outs() << formatv(
      "{0} requests ({1}, {2}), {3} failed, {4} in flight at "
      "most, {5:f2} s wall, {6:f0} requests/s, client CPU "
      "{7:f3} ms per request ({8:f2} s total), {9} answer bytes\n",
      requests, anthropic ? "anthropic" : "openai",
      stream ? "streamed" : "whole", failed, maxInFlight, wall, requests / wall,
      cpu / requests * 1000, cpu, answerBytes);
  return failed ? 1 : 0;
}
