//===- WireTest.cpp - The wire formats on recorded exchanges --------------===//
//
// The bodies below are exchanges in the documented forms of OpenAI Chat
// Completions and Anthropic Messages (ids and texts shortened): whole
// answers, streams, and error bodies, checked for text, finish reason,
// usage and the retry classification; which stream events are content (what
// the stall timer counts), what a failed reply delivered, invalid UTF-8, an
// error object in a 2xx body, redirects and the limits' errors.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Wire.h"

#include "gtest/gtest.h"

using namespace ptxbench::client;

namespace {

Completion completion(const Outcome &o) {
  if (auto *e = std::get_if<ProviderError>(&o))
    ADD_FAILURE() << "unexpected error: " << e->message;
  auto *c = std::get_if<Completion>(&o);
  return c ? *c : Completion();
}

ProviderError error(const Outcome &o) {
  auto *e = std::get_if<ProviderError>(&o);
  EXPECT_TRUE(e) << "expected an error";
  return e ? *e : ProviderError();
}

Outcome replayStream(const WireFormat &wire, llvm::StringRef text) {
  std::shared_ptr<StreamReader> reader = wire.streamReader();
  feedStream(reader)(text);
  return reader->finish();
}

const char *openaiWhole = R"({
  "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
  "object": "chat.completion",
  "created": 1741570283,
  "model": "gpt-4o-2024-08-06",
  "choices": [{"index": 0,
    "message": {"role": "assistant", "content": "Here:\n```cuda\nk();\n```\n", "refusal": null},
    "logprobs": null, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 1117, "completion_tokens": 46, "total_tokens": 1163,
    "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 12, "audio_tokens": 0}},
  "service_tier": "default"
})";

const char *openaiStream =
    "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\","
    "\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":"
    "\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\","
    "\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
    "\"Hello\"},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\","
    "\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
    "\" world\"},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\","
    "\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{},"
    "\"finish_reason\":\"length\"}]}\n\n"
    "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\","
    "\"model\":\"gpt-4o\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,"
    "\"completion_tokens\":2,\"total_tokens\":11}}\n\n"
    "data: [DONE]\n\n";

TEST(OpenAIWireTest, WholeAnswer) {
  auto wire = createOpenAIWire(false);
  Completion c = completion(wire->parse(openaiWhole));
  EXPECT_EQ(c.text, "Here:\n```cuda\nk();\n```\n");
  EXPECT_EQ(c.finishReason, "stop");
  EXPECT_EQ(c.requestId, "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG");
  EXPECT_EQ(c.usage.input, 1117);
  EXPECT_EQ(c.usage.cached, 1024);
  EXPECT_EQ(c.usage.output, 46);
  EXPECT_EQ(c.usage.reasoning, 12);
}

TEST(OpenAIWireTest, Stream) {
  auto wire = createOpenAIWire(false);
  Completion c = completion(replayStream(*wire, openaiStream));
  EXPECT_EQ(c.text, "Hello world");
  EXPECT_EQ(c.finishReason, "length");
  EXPECT_EQ(c.usage.input, 9);
  EXPECT_EQ(c.usage.output, 2);
  EXPECT_EQ(c.requestId, "chatcmpl-123");
}

TEST(OpenAIWireTest, StreamWithoutUsage) {
  // llama-cpp-python's streams end without a usage chunk.
  auto wire = createOpenAIWire(true);
  Outcome o = replayStream(
      *wire, "data: {\"id\":\"chatcmpl-9\",\"choices\":[{\"index\":0,"
             "\"delta\":{\"content\":\"x\"},\"finish_reason\":null}]}\n\n"
             "data: {\"id\":\"chatcmpl-9\",\"choices\":[{\"index\":0,"
             "\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
             "data: [DONE]\n\n");
  Completion c = completion(o);
  EXPECT_EQ(c.text, "x");
  EXPECT_FALSE(c.usageReported);
  EXPECT_TRUE(completion(replayStream(*wire, openaiStream)).usageReported);
  EXPECT_TRUE(completion(wire->parse(openaiWhole)).usageReported);
}

TEST(OpenAIWireTest, CutStreamIsRetryable) {
  auto wire = createOpenAIWire(false);
  std::string text = openaiStream;
  text = text.substr(0, text.find("\"finish_reason\":\"length\"") - 60);
  text = text.substr(0, text.rfind("\n\n") + 2);
  ProviderError e = error(replayStream(*wire, text));
  EXPECT_TRUE(e.retryable);
  EXPECT_NE(e.message.find("ended before"), std::string::npos);
}

TEST(OpenAIWireTest, RequestBody) {
  Sampling s;
  s.temperature = 0.2;
  s.maxOutputTokens = 100;
  s.reasoningEffort = "high";
  s.seed = 7;
  s.extra["top_k"] = 20;
  std::vector<Message> messages = {{"system", "sys"}, {"user", "hi"}};
  llvm::json::Object body =
      createOpenAIWire(false)->body("gpt-x", messages, s, true);
  EXPECT_EQ(body.getInteger("max_completion_tokens"), 100);
  EXPECT_EQ(body.getString("reasoning_effort"), "high");
  EXPECT_EQ(body.getInteger("seed"), 7);
  EXPECT_EQ(body.getInteger("top_k"), 20);
  EXPECT_EQ(body.getBoolean("stream"), true);
  EXPECT_EQ(body.getArray("messages")->size(), 2u);
  llvm::json::Object compat =
      createOpenAIWire(true)->body("tiny", messages, s, false);
  EXPECT_EQ(compat.getInteger("max_tokens"), 100);
  EXPECT_FALSE(compat.get("stream"));
  HeaderList h = createOpenAIWire(false)->headers("secret");
  EXPECT_EQ(h.back().first, "Authorization");
  EXPECT_TRUE(createOpenAIWire(true)->headers("").size() == 1);
}

const char *anthropicWhole = R"({
  "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
  "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
  "content": [
    {"type": "thinking", "thinking": "Let me think.", "signature": "abc"},
    {"type": "text", "text": "Hi! "},
    {"type": "text", "text": "Bye."}],
  "stop_reason": "end_turn", "stop_sequence": null,
  "usage": {"input_tokens": 2095, "output_tokens": 503,
            "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1800}
})";

const char *anthropicStream =
    "event: message_start\n"
    "data: {\"type\": \"message_start\", \"message\": {\"id\": "
    "\"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY\", \"type\": \"message\", "
    "\"role\": \"assistant\", \"content\": [], \"model\": "
    "\"claude-sonnet-4-5\", \"stop_reason\": null, \"usage\": "
    "{\"input_tokens\": 472, \"cache_read_input_tokens\": 28, "
    "\"output_tokens\": 2}}}\n\n"
    "event: content_block_start\n"
    "data: {\"type\": \"content_block_start\", \"index\": 0, "
    "\"content_block\": {\"type\": \"thinking\", \"thinking\": \"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": "
    "{\"type\": \"thinking_delta\", \"thinking\": \"hmm\"}}\n\n"
    "event: ping\n"
    "data: {\"type\": \"ping\"}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\": \"content_block_delta\", \"index\": 1, \"delta\": "
    "{\"type\": \"text_delta\", \"text\": \"Hello\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\": \"content_block_delta\", \"index\": 1, \"delta\": "
    "{\"type\": \"text_delta\", \"text\": \"!\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\": \"content_block_stop\", \"index\": 1}\n\n"
    "event: message_delta\n"
    "data: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": "
    "\"max_tokens\", \"stop_sequence\":null}, \"usage\": {\"output_tokens\": "
    "15}}\n\n"
    "event: message_stop\n"
    "data: {\"type\": \"message_stop\"}\n\n";

TEST(AnthropicWireTest, WholeAnswer) {
  auto wire = createAnthropicWire();
  Completion c = completion(wire->parse(anthropicWhole));
  EXPECT_EQ(c.text, "Hi! Bye.");
  EXPECT_EQ(c.finishReason, "end_turn");
  EXPECT_EQ(c.usage.input, 2095 + 100 + 1800);
  EXPECT_EQ(c.usage.cached, 1800);
  EXPECT_EQ(c.usage.cacheWrite, 100);
  EXPECT_EQ(c.usage.output, 503);
}

TEST(AnthropicWireTest, Stream) {
  auto wire = createAnthropicWire();
  Completion c = completion(replayStream(*wire, anthropicStream));
  EXPECT_EQ(c.text, "Hello!");
  EXPECT_EQ(c.finishReason, "max_tokens");
  EXPECT_EQ(c.usage.input, 500);
  EXPECT_EQ(c.usage.cached, 28);
  EXPECT_EQ(c.usage.output, 15);
  EXPECT_EQ(c.requestId, "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY");
}

TEST(AnthropicWireTest, OverloadedEventIsRetryable) {
  auto wire = createAnthropicWire();
  ProviderError e = error(replayStream(
      *wire, "event: error\ndata: {\"type\": \"error\", \"error\": "
             "{\"type\": \"overloaded_error\", \"message\": "
             "\"Overloaded\"}}\n\n"));
  EXPECT_TRUE(e.retryable);
  EXPECT_NE(e.message.find("Overloaded"), std::string::npos);
}

TEST(AnthropicWireTest, RequestBody) {
  Sampling s;
  s.maxOutputTokens = 4000;
  s.thinkingBudget = 2000;
  std::vector<Message> messages = {
      {"system", "sys"}, {"user", "a"}, {"assistant", "b"}, {"user", "c"}};
  llvm::json::Object body =
      createAnthropicWire()->body("claude", messages, s, true);
  EXPECT_EQ(body.getString("system"), "sys");
  EXPECT_EQ(body.getArray("messages")->size(), 3u);
  EXPECT_EQ(body.getInteger("max_tokens"), 4000);
  EXPECT_EQ(body.getObject("thinking")->getInteger("budget_tokens"), 2000);
  HeaderList h = createAnthropicWire()->headers("secret");
  EXPECT_EQ(h.back().first, "x-api-key");
}

TEST(WireTest, Classification) {
  auto wire = createAnthropicWire();
  auto status = [&](long code, const char *body, HeaderList headers = {}) {
    HttpResult r;
    r.status = code;
    r.body = body;
    r.headers = std::move(headers);
    return error(readOutcome(*wire, r, nullptr));
  };
  ProviderError tooLong = status(
      400,
      R"({"type":"error","error":{"type":"invalid_request_error",)"
      R"("message":"prompt is too long: 210000 tokens > 200000 maximum"}})");
  EXPECT_FALSE(tooLong.retryable);
  EXPECT_EQ(tooLong.message, "HTTP 400: invalid_request_error: prompt is too "
                             "long: 210000 tokens > 200000 maximum");
  ProviderError limited = status(
      429, R"({"error":{"type":"rate_limit_error","message":"slow down"}})",
      {{"retry-after", "7"}});
  EXPECT_TRUE(limited.retryable);
  EXPECT_EQ(limited.retryAfter, 7.0);
  EXPECT_TRUE(status(529, "overloaded").retryable);
  EXPECT_TRUE(status(503, "<html>bad gateway</html>").retryable);
  EXPECT_FALSE(status(401, "{}").retryable);

  HttpResult reset;
  reset.error = "Recv failure: Connection reset by peer";
  EXPECT_TRUE(error(readOutcome(*wire, reset, nullptr)).retryable);
  HttpResult malformed;
  malformed.status = 200;
  malformed.body = "{\"content\": [";
  EXPECT_TRUE(error(readOutcome(*wire, malformed, nullptr)).retryable);
}

/// Which events of `text` the reader calls content.
std::vector<bool> contentEvents(const WireFormat &wire, llvm::StringRef text) {
  auto reader = wire.streamReader();
  SseParser parser;
  std::vector<bool> content;
  for (const SseEvent &e : parser.feed(text))
    content.push_back(reader->onEvent(e));
  return content;
}

TEST(WireTest, OnlyContentEventsAreProgress) {
  // A role-only chunk (empty content), text, text, the finish, the usage,
  // [DONE].
  std::vector<bool> openai =
      contentEvents(*createOpenAIWire(false), openaiStream);
  EXPECT_EQ(openai, (std::vector<bool>{false, true, true, true, true, true}));
  // Comments are no events at all; neither is a keep-alive line.
  EXPECT_TRUE(
      contentEvents(*createOpenAIWire(true), ": keep-alive\n\n: ping\n\n")
          .empty());
  // message_start, content_block_start, thinking, ping, text, text,
  // content_block_stop, message_delta, message_stop.
  std::vector<bool> anthropic =
      contentEvents(*createAnthropicWire(), anthropicStream);
  EXPECT_EQ(anthropic, (std::vector<bool>{false, false, true, false, true, true,
                                          false, true, true}));
}

TEST(WireTest, FailedStreamCarriesWhatItDelivered) {
  auto wire = createAnthropicWire();
  std::string text = anthropicStream;
  text = text.substr(0, text.find("event: content_block_stop"));
  ProviderError e = error(replayStream(*wire, text));
  ASSERT_TRUE(e.partial);
  EXPECT_EQ(e.partial->bytes, 3u + 6u); // "hmm" thinking, "Hello!" text
  EXPECT_TRUE(e.partial->usageReported);
  EXPECT_EQ(e.partial->usage.input, 500);

  HttpResult cut;
  cut.status = 200;
  cut.error = "transfer closed with 4000 bytes remaining to read";
  cut.body = "{\"id\": \"chatcmpl-1\", \"choi";
  ProviderError whole =
      error(readOutcome(*createOpenAIWire(false), cut, nullptr));
  EXPECT_TRUE(whole.retryable);
  ASSERT_TRUE(whole.partial);
  EXPECT_EQ(whole.partial->bytes, cut.body.size() - 2); // but its spaces
}

TEST(WireTest, InvalidUTF8IsReplacedAndNoted) {
  std::string stream = openaiStream;
  stream.replace(stream.find("Hello"), 1, "\xff");
  Completion c = completion(replayStream(*createOpenAIWire(false), stream));
  EXPECT_EQ(c.text, "\xef\xbf\xbd"
                    "ello world");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("invalid UTF-8"), std::string::npos);

  HttpResult r;
  r.status = 200;
  r.body = openaiWhole;
  r.body.replace(r.body.find("Here:"), 1, "\xc3");
  Completion w = completion(readOutcome(*createOpenAIWire(false), r, nullptr));
  EXPECT_EQ(llvm::StringRef(w.text).take_front(3), "\xef\xbf\xbd");
  EXPECT_EQ(w.notes.size(), 1u);
}

TEST(WireTest, ErrorObjectInSuccessKeepsTheMessage) {
  for (auto &wire : {createOpenAIWire(false), createAnthropicWire()}) {
    HttpResult r;
    r.status = 200;
    r.body =
        R"({"error": {"type": "server_error", "message": "upstream busy"}})";
    ProviderError e = error(readOutcome(*wire, r, nullptr));
    EXPECT_EQ(e.message,
              "the server answered with an error: server_error: upstream busy");
    EXPECT_TRUE(e.retryable);
    EXPECT_FALSE(e.partial); // nothing to bill
  }
}

TEST(WireTest, RedirectNamesTheLocation) {
  HttpResult r;
  r.status = 301;
  r.headers = {{"location", "https://api.example.com/v2/chat/completions"}};
  ProviderError e = error(readOutcome(*createOpenAIWire(false), r, nullptr));
  EXPECT_FALSE(e.retryable);
  EXPECT_NE(e.message.find("redirects to "
                           "https://api.example.com/v2/chat/completions"),
            std::string::npos);
  EXPECT_NE(e.message.find("base_url"), std::string::npos);
}

TEST(WireTest, LimitsAreFinal) {
  auto wire = createOpenAIWire(false);
  HttpResult r;
  r.status = 200;
  r.limit = HttpLimit::Size;
  r.error = "more than 1000 bytes received (the size limit)";
  r.receivedBytes = 1001;
  r.wireBytes = 20;
  r.body = std::string(1001, 'A');
  ProviderError size = error(readOutcome(*wire, r, nullptr));
  EXPECT_FALSE(size.retryable);
  EXPECT_NE(size.message.find("max_reply_bytes"), std::string::npos);
  EXPECT_NE(size.message.find("compressed, 20 bytes"), std::string::npos);
  ASSERT_TRUE(size.partial);
  EXPECT_EQ(size.partial->bytes, 1001u);
  r.limit = HttpLimit::Stall;
  r.error = "stalled: no content for 2.0 s";
  auto reader = wire->streamReader();
  ProviderError stall = error(readOutcome(*wire, r, reader.get()));
  EXPECT_FALSE(stall.retryable);
  EXPECT_NE(stall.message.find("keep-alive"), std::string::npos);
  r.limit = HttpLimit::Deadline;
  r.error = "stopped at the total deadline of 6.0 s";
  EXPECT_NE(error(readOutcome(*wire, r, nullptr)).message.find("total_s"),
            std::string::npos);
}

TEST(WireTest, RetryAfter) {
  EXPECT_EQ(parseRetryAfter("30"), 30.0);
  EXPECT_EQ(parseRetryAfter(" 1.5 "), 1.5);
  EXPECT_EQ(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"), 0.0);
  EXPECT_FALSE(parseRetryAfter("soon"));
}

} // namespace
