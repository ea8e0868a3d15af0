// Reasoning split end to end: a FakeEngine scripted to think before it answers, over both
// APIs, with and without streaming (one byte per token, so the tags arrive split), and with
// --reasoning-format none.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::FakeEngine;
using testing::FakeModelText;
using testing::SseStream;
using testing::TestServer;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::parse_reasoning_stream;
using testing::parse_sse;
using testing::ReasoningStream;
using testing::test_config;

constexpr const char* kReasoningReply = "<think>\nThe user greets me.\n</think>\n\nHello!";
constexpr int kReasoningTokens = 36;  // "<think>\nThe user greets me.\n</think>", one byte each

FakeEngine::Options thinking_engine() {
  FakeEngine::Options options;
  options.reply = kReasoningReply;
  return options;
}

json reasoning_chat_body(bool stream) {
  json body = json::parse(R"({"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "Hi"}]})");
  if (stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  return body;
}

TEST(ReasoningHttp, OpenAiMessageCarriesReasoningContentApart) {
  TestServer server(test_config(), thinking_engine());
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", reasoning_chat_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json body = json::parse(res->body);
  EXPECT_EQ(body["choices"][0]["message"]["content"], "Hello!");
  EXPECT_EQ(body["choices"][0]["message"]["reasoning_content"], "\nThe user greets me.\n");
  EXPECT_EQ(body["usage"]["completion_tokens_details"]["reasoning_tokens"], kReasoningTokens);
}

TEST(ReasoningHttp, OpenAiStreamSendsReasoningDeltasThenContent) {
  TestServer server(test_config(), thinking_engine());
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", reasoning_chat_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const ReasoningStream stream = parse_reasoning_stream(res->body);
  EXPECT_FALSE(stream.reasoning_after_content) << "reasoning after content";
  EXPECT_EQ(stream.reasoning, "\nThe user greets me.\n");
  EXPECT_EQ(stream.content, "Hello!");
  EXPECT_EQ(stream.reasoning_tokens, kReasoningTokens);
}

TEST(ReasoningHttp, AnthropicAnswersWithAThinkingBlockFirst) {
  TestServer server(test_config(), thinking_engine());
  json body = json::parse(R"({"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "Hi"}]})");
  auto res = server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json content = json::parse(res->body)["content"];
  ASSERT_EQ(content.size(), 2u) << content;
  EXPECT_EQ(content[0]["type"], "thinking");
  EXPECT_EQ(content[0]["thinking"], "\nThe user greets me.\n");
  EXPECT_EQ(content[1], (json{{"type", "text"}, {"text", "Hello!"}}));

  body["stream"] = true;
  res = server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  std::vector<std::string> block_types;
  std::string thinking, text;
  for (const std::string& data : parse_sse(res->body).data) {
    json event = json::parse(data);
    if (event["type"] == "content_block_start") block_types.push_back(event["content_block"]["type"]);
    if (event["type"] != "content_block_delta") continue;
    if (event["delta"]["type"] == "thinking_delta") thinking += event["delta"]["thinking"].get<std::string>();
    if (event["delta"]["type"] == "text_delta") text += event["delta"]["text"].get<std::string>();
  }
  EXPECT_EQ(block_types, (std::vector<std::string>{"thinking", "text"}));
  EXPECT_EQ(thinking, "\nThe user greets me.\n");
  EXPECT_EQ(text, "Hello!");
}

TEST(ReasoningHttp, ReasoningFormatNoneKeepsTheRawOutput) {
  ServerConfig config = test_config();
  config.reasoning_format = "none";
  TestServer server(config, thinking_engine());
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", reasoning_chat_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json message = json::parse(res->body)["choices"][0]["message"];
  EXPECT_EQ(message["content"], kReasoningReply);
  EXPECT_FALSE(message.contains("reasoning_content"));
}

TEST(ReasoningHttp, TemplateKwargsReachThePrompt) {
  TestServer server(test_config(), thinking_engine());
  json body = reasoning_chat_body(false);
  body["chat_template_kwargs"] = {{"enable_thinking", false}};
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const std::string prompt = FakeModelText().detokenize(server.engine().submitted().at(0).prompt_tokens);
  EXPECT_TRUE(prompt.ends_with("assistant: <think></think>")) << prompt;
}

}  // namespace
}  // namespace strata::server
