//===- AnthropicWire.cpp - Anthropic Messages on the wire -----------------===//
//
// Request: {model, system, messages, max_tokens, temperature, top_p,
// thinking {type: enabled, budget_tokens}, stream}; the key goes in
// `x-api-key`. Answer: content blocks (the `text` ones are the answer,
// `thinking` ones are not), stop_reason, usage {input_tokens,
// output_tokens, cache_read_input_tokens, cache_creation_input_tokens}.
// Streamed: message_start (id, input usage), content_block_delta
// (text_delta), message_delta (stop_reason, output usage), message_stop;
// `error` events carry the error.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Wire.h"

#include "ptxbench/Support/JSON.h"

using namespace ptxbench::client;
using llvm::StringRef;
using llvm::json::Object;

namespace {

/// Fills `usage` from an Anthropic usage object: its fields are cumulative
/// where present, so only the ones given are replaced.
void readUsage(const Object *u, Usage &usage) {
  if (!u)
    return;
  int64_t plain = u->getInteger("input_tokens").value_or(-1);
  int64_t read = u->getInteger("cache_read_input_tokens").value_or(-1);
  int64_t write = u->getInteger("cache_creation_input_tokens").value_or(-1);
  if (read >= 0)
    usage.cached = read;
  if (write >= 0)
    usage.cacheWrite = write;
  if (plain >= 0)
    usage.input = plain + usage.cached + usage.cacheWrite;
  if (auto out = u->getInteger("output_tokens"))
    usage.output = *out;
}

class AnthropicStream : public StreamReader {
public:
  Outcome finish() override {
    return result("the stream ended before message_stop");
  }

protected:
  bool read(const SseEvent &event) override {
    auto value = ptxbench::parseJSON(event.data);
    if (!value) {
      failed = malformedAnswer("a stream event is not JSON: " +
                               llvm::toString(value.takeError()));
      return false;
    }
    const Object *o = value->getAsObject();
    if (!o) {
      failed = malformedAnswer("a stream event is not a JSON object");
      return false;
    }
    StringRef type = o->getString("type").value_or(event.event);
    if (type == "error") {
      ProviderError e;
      const Object *err = o->getObject("error");
      StringRef kind = err ? err->getString("type").value_or("") : "";
      e.message = "stream error: " + kind.str() + ": " +
                  (err ? err->getString("message").value_or("") : "").str();
      e.retryable = kind != "invalid_request_error";
      failed = e;
      return true;
    }
    if (type == "message_start") {
      if (const Object *m = o->getObject("message")) {
        completion.requestId = m->getString("id").value_or("").str();
        completion.model = m->getString("model").value_or("").str();
        readUsage(m->getObject("usage"), completion.usage);
        completion.usageReported |= m->getObject("usage") != nullptr;
      }
      return false;
    }
    if (type == "content_block_delta") {
      const Object *d = o->getObject("delta");
      if (!d)
        return false;
      StringRef kind = d->getString("type").value_or("");
      // Thinking is billed output and progress, not the answer.
      StringRef text = kind == "text_delta" ? d->getString("text").value_or("")
                       : kind == "thinking_delta"
                           ? d->getString("thinking").value_or("")
                           : StringRef();
      if (kind == "text_delta")
        completion.text += text.str();
      contentBytes += text.size();
      return !text.empty();
    }
    if (type == "message_delta") {
      if (const Object *d = o->getObject("delta"))
        if (auto reason = d->getString("stop_reason"))
          completion.finishReason = reason->str();
      readUsage(o->getObject("usage"), completion.usage);
      return true;
    }
    if (type == "message_stop") {
      done = true;
      return true;
    }
    return false; // ping, content_block_start and _stop
  }
};

class AnthropicWire : public WireFormat {
public:
  StringRef path() const override { return "/messages"; }

  HeaderList headers(StringRef key) const override {
    HeaderList h = {{"Content-Type", "application/json"},
                    {"anthropic-version", "2023-06-01"}};
    if (!key.empty())
      h.emplace_back("x-api-key", key.str());
    return h;
  }

  Object body(StringRef modelId, const std::vector<Message> &messages,
              const Sampling &s, bool stream) const override {
    llvm::json::Array msgs;
    std::string system;
    for (const Message &m : messages) {
      if (m.role == "system") {
        system += (system.empty() ? "" : "\n\n") + m.content;
        continue;
      }
      msgs.push_back(Object{{"role", m.role}, {"content", m.content}});
    }
    Object o{{"model", modelId},
             {"messages", std::move(msgs)},
             {"max_tokens", s.maxOutputTokens}};
    if (!system.empty())
      o["system"] = system;
    if (s.temperature)
      o["temperature"] = *s.temperature;
    if (s.topP)
      o["top_p"] = *s.topP;
    if (s.thinkingBudget > 0)
      o["thinking"] =
          Object{{"type", "enabled"}, {"budget_tokens", s.thinkingBudget}};
    if (stream)
      o["stream"] = true;
    for (const auto &kv : s.extra)
      o[kv.first] = kv.second;
    return o;
  }

  Outcome parse(StringRef body) const override {
    auto value = ptxbench::parseJSON(body);
    if (!value)
      return malformedAnswer("not JSON: " + llvm::toString(value.takeError()));
    const Object *o = value->getAsObject();
    const llvm::json::Array *content = o ? o->getArray("content") : nullptr;
    if (!content)
      return malformedAnswer("no content");
    Completion c;
    for (const llvm::json::Value &block : *content)
      if (const Object *b = block.getAsObject())
        if (b->getString("type").value_or("") == "text")
          c.text += b->getString("text").value_or("").str();
    c.finishReason = o->getString("stop_reason").value_or("").str();
    c.requestId = o->getString("id").value_or("").str();
    c.model = o->getString("model").value_or("").str();
    readUsage(o->getObject("usage"), c.usage);
    c.usageReported = o->getObject("usage") != nullptr;
    return c;
  }

  std::unique_ptr<StreamReader> streamReader() const override {
    return std::make_unique<AnthropicStream>();
  }
};

} // namespace

std::unique_ptr<WireFormat> ptxbench::client::createAnthropicWire() {
  return std::make_unique<AnthropicWire>();
}
