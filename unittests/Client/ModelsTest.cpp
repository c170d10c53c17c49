//===- ModelsTest.cpp - The models file -----------------------------------===//

#include "ptxbench/Client/Models.h"

#include "gtest/gtest.h"

using namespace ptxbench::client;

namespace {

std::string errorOf(llvm::StringRef text) {
  auto models = parseModels(text, "m.json");
  if (models)
    return "";
  return llvm::toString(models.takeError());
}

TEST(ModelsTest, Full) {
  auto models = parseModels(R"({"models": {"a": {
      "provider": "anthropic", "model": "claude", "api_key_env": "K",
      "sampling": {"temperature": 0.5, "max_output_tokens": 100,
                   "thinking_budget": 50, "extra": {"metadata": {}}},
      "prices": {"input": 3, "output": 15, "cached_input": 0.3},
      "limits": {"requests_per_minute": 50, "concurrency": 4},
      "timeouts": {"stall_s": 10},
      "retry": {"max_attempts": 2}},
    "local": {"provider": "openai-compatible",
              "base_url": "http://127.0.0.1:8000/v1/", "model": "q"}}})",
                            "m.json");
  ASSERT_TRUE(bool(models)) << llvm::toString(models.takeError());
  const ModelConfig &a = models->at("a");
  EXPECT_EQ(a.baseUrl, "https://api.anthropic.com/v1");
  EXPECT_EQ(a.sampling.temperature, 0.5);
  EXPECT_EQ(a.sampling.thinkingBudget, 50);
  EXPECT_EQ(a.limits.concurrency, 4u);
  EXPECT_EQ(a.retry.maxAttempts, 2u);
  EXPECT_EQ(a.stallSeconds, 10);
  Usage u;
  u.input = 1000000;
  u.cached = 500000;
  u.output = 1000000;
  EXPECT_DOUBLE_EQ(a.cost(u), 0.5 * 3 + 0.5 * 0.3 + 15);
  EXPECT_EQ(models->at("local").baseUrl, "http://127.0.0.1:8000/v1");
  EXPECT_TRUE(models->at("local").apiKeyEnv.empty());
  // Reply size and deadline, derived from max_output_tokens.
  EXPECT_EQ(a.replyByteLimit(), (1u << 20) + 100u * 1024);
  EXPECT_DOUBLE_EQ(a.deadlineSeconds(), 600 + 10);
  const ModelConfig &local = models->at("local");
  EXPECT_EQ(local.replyByteLimit(), (1u << 20) + 8192u * 1024);
}

TEST(ModelsTest, ReplyLimits) {
  auto models = parseModels(R"({"models": {"a": {"provider": "corpus",
      "limits": {"max_reply_bytes": 4096}, "timeouts": {"total_s": 0}}}})",
                            "m.json");
  ASSERT_TRUE(bool(models)) << llvm::toString(models.takeError());
  EXPECT_EQ(models->at("a").replyByteLimit(), 4096u);
  EXPECT_EQ(models->at("a").deadlineSeconds(), 0); // none, said so
  EXPECT_EQ(errorOf(R"({"models": {"a": {"provider": "corpus",
                        "limits": {"max_reply_bytes": 0}}}})"),
            "m.json: models.a.limits.max_reply_bytes: expected an integer "
            ">= 1024");
}

TEST(ModelsTest, ErrorsNameFileAndField) {
  EXPECT_EQ(errorOf(R"({"models": {"a": {"provider": "x"}}})"),
            "m.json: models.a.provider: unknown provider 'x' (expected "
            "openai, anthropic, openai-compatible, corpus or replay)");
  EXPECT_EQ(errorOf(R"({"models": {"a": {"provider": "openai"}}})"),
            "m.json: models.a.model: missing (the provider's model id)");
  EXPECT_EQ(
      errorOf(R"({"models": {"a": {"provider": "openai", "model": "g"}}})"),
      "m.json: models.a.api_key_env: missing (the NAME of the environment "
      "variable holding the key, e.g. OPENAI_API_KEY)");
  EXPECT_EQ(errorOf(R"({"models": {"a": {"provider": "corpus",
                        "prices": {"input": "cheap"}}}})"),
            "m.json: models.a.prices.input: expected a number");
  EXPECT_EQ(errorOf(R"({"models": {"a": {"provider": "replay"}}})"),
            "m.json: models.a.dir: missing (the folder of recorded "
            "responses)");
  EXPECT_EQ(errorOf(R"({"model": {}})"),
            "m.json: models: missing (expected {\"models\": {\"NAME\": "
            "{...}}})");
  EXPECT_EQ(errorOf(R"({"models": {"a/b": {"provider": "corpus"}}})"),
            "m.json: models.a/b: a model name must be a folder name");
  std::string pasted = errorOf(R"({"models": {"a": {"provider": "openai",
      "model": "g", "api_key_env": "sk-proj-abc123"}}})");
  EXPECT_NE(pasted.find("models.a.api_key_env"), std::string::npos);
  EXPECT_EQ(pasted.find("sk-proj"), std::string::npos);
}

} // namespace
