//===- OpenAIWire.cpp - OpenAI Chat Completions on the wire ---------------===//
//
// Request: {model, messages, max_completion_tokens (max_tokens for
// compatible servers), temperature, top_p, reasoning_effort, seed, stream,
// stream_options.include_usage}. Answer: choices[0].message.content and
// finish_reason, usage {prompt_tokens, completion_tokens,
// prompt_tokens_details.cached_tokens,
// completion_tokens_details.reasoning_tokens}. Streamed: `data:` chunks
// with choices[0].delta.content, the usage in a last chunk with no choices,
// then `data: [DONE]`.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Wire.h"

#include "ptxbench/Support/JSON.h"

using namespace ptxbench::client;
using llvm::StringRef;
using llvm::json::Object;

namespace {

Usage readUsage(const Object *u) {
  Usage usage;
  if (!u)
    return usage;
  usage.input = u->getInteger("prompt_tokens").value_or(0);
  usage.output = u->getInteger("completion_tokens").value_or(0);
  if (const Object *d = u->getObject("prompt_tokens_details"))
    usage.cached = d->getInteger("cached_tokens").value_or(0);
  if (const Object *d = u->getObject("completion_tokens_details"))
    usage.reasoning = d->getInteger("reasoning_tokens").value_or(0);
  return usage;
}

class OpenAIStream : public StreamReader {
public:
  Outcome finish() override {
    // A finish reason ends the answer, `[DONE]` or not.
    done |= !completion.finishReason.empty();
    return result("the stream ended before its last chunk");
  }

protected:
  bool read(const SseEvent &event) override {
    StringRef data = StringRef(event.data).trim();
    if (data == "[DONE]") {
      done = true;
      return true;
    }
    auto value = ptxbench::parseJSON(data);
    if (!value) {
      failed = malformedAnswer("a stream chunk is not JSON: " +
                               llvm::toString(value.takeError()));
      return false;
    }
    const Object *o = value->getAsObject();
    if (!o) {
      failed = malformedAnswer("a stream chunk is not a JSON object");
      return false;
    }
    if (const Object *e = o->getObject("error")) {
      ProviderError err;
      err.message = "stream error: " +
                    e->getString("message").value_or("(no message)").str();
      err.retryable = true;
      failed = err;
      return true;
    }
    if (auto id = o->getString("id"); id && completion.requestId.empty())
      completion.requestId = id->str();
    if (auto model = o->getString("model"))
      completion.model = model->str();
    bool content = false;
    if (const Object *u = o->getObject("usage")) {
      completion.usage = readUsage(u);
      completion.usageReported = content = true;
    }
    if (const llvm::json::Array *choices = o->getArray("choices"))
      for (const llvm::json::Value &c : *choices) {
        const Object *co = c.getAsObject();
        if (!co || co->getInteger("index").value_or(0) != 0)
          continue;
        if (const Object *delta = co->getObject("delta")) {
          if (auto text = delta->getString("content"); text && !text->empty()) {
            completion.text += text->str();
            contentBytes += text->size();
            content = true;
          }
          // Reasoning that compatible servers stream (vLLM, DeepSeek):
          // billed output and progress, not the answer.
          for (StringRef key : {"reasoning_content", "reasoning"})
            if (auto text = delta->getString(key); text && !text->empty()) {
              contentBytes += text->size();
              content = true;
            }
        }
        if (auto reason = co->getString("finish_reason")) {
          completion.finishReason = reason->str();
          content = true;
        }
      }
    return content;
  }
};

class OpenAIWire : public WireFormat {
public:
  explicit OpenAIWire(bool compatible) : compatible(compatible) {}

  StringRef path() const override { return "/chat/completions"; }

  HeaderList headers(StringRef key) const override {
    HeaderList h = {{"Content-Type", "application/json"}};
    if (!key.empty())
      h.emplace_back("Authorization", ("Bearer " + key).str());
    return h;
  }

  Object body(StringRef modelId, const std::vector<Message> &messages,
              const Sampling &s, bool stream) const override {
    llvm::json::Array msgs;
    for (const Message &m : messages)
      msgs.push_back(Object{{"role", m.role}, {"content", m.content}});
    Object o{{"model", modelId}, {"messages", std::move(msgs)}};
    o[compatible ? "max_tokens" : "max_completion_tokens"] = s.maxOutputTokens;
    if (s.temperature)
      o["temperature"] = *s.temperature;
    if (s.topP)
      o["top_p"] = *s.topP;
    if (!s.reasoningEffort.empty())
      o["reasoning_effort"] = s.reasoningEffort;
    if (s.seed)
      o["seed"] = *s.seed;
    if (stream) {
      o["stream"] = true;
      o["stream_options"] = Object{{"include_usage", true}};
    }
    for (const auto &kv : s.extra)
      o[kv.first] = kv.second;
    return o;
  }

  Outcome parse(StringRef body) const override {
    auto value = ptxbench::parseJSON(body);
    if (!value)
      return malformedAnswer("not JSON: " + llvm::toString(value.takeError()));
    const Object *o = value->getAsObject();
    const llvm::json::Array *choices = o ? o->getArray("choices") : nullptr;
    if (!choices || choices->empty() || !(*choices)[0].getAsObject())
      return malformedAnswer("no choices");
    const Object *choice = (*choices)[0].getAsObject();
    Completion c;
    if (const Object *m = choice->getObject("message"))
      c.text = m->getString("content").value_or("").str();
    c.finishReason = choice->getString("finish_reason").value_or("").str();
    c.requestId = o->getString("id").value_or("").str();
    c.model = o->getString("model").value_or("").str();
    c.usage = readUsage(o->getObject("usage"));
    c.usageReported = o->getObject("usage") != nullptr;
    return c;
  }

  std::unique_ptr<StreamReader> streamReader() const override {
    return std::make_unique<OpenAIStream>();
  }

private:
  bool compatible;
};

} // namespace

std::unique_ptr<WireFormat>
ptxbench::client::createOpenAIWire(bool compatible) {
  return std::make_unique<OpenAIWire>(compatible);
}
