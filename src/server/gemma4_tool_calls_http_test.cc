// Gemma 4's replies end to end: a FakeEngine scripted to answer as Gemma 4 does after its
// "<|turn>model\n" (a thought channel, text, then two <|tool_call> calls in its argument
// notation), a model text that says it writes that syntax and those tags, over both APIs, streamed
// (one byte per token, so the tags arrive split) and not.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/testing/scripted_calls.h"
#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::test_config;
using testing::TestServer;

constexpr const char* kGemma4Reply =
    "<|channel>thought\nThe user wants the weather.<channel|>Let me check."
    "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>"
    "<|tool_call>call:plan{at:null,steps:[{go:true}]}<tool_call|>";

// A server whose model text writes Gemma 4's calls and thought channel.
struct Gemma4Server {
  Gemma4Server() : server(test_config(), testing::engine_with_reply(kGemma4Reply), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kGemma4;
    server.text().tags = kGemma4ThoughtTags;
    server.publish();
  }
  TestServer server;
};

json gemma4_openai_body(bool stream) {
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
      {"type": "function", "function": {"name": "plan", "parameters": {"type": "object"}}}]})");
  if (stream) body["stream"] = true;
  return body;
}

TEST(Gemma4ToolCallsHttp, OpenAiAnswerSplitsThoughtTextAndBothCalls) {
  Gemma4Server gemma4;
  auto res = gemma4.server.client(kTestApiKey).Post("/v1/chat/completions", gemma4_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"], "The user wants the weather.");
  EXPECT_EQ(choice["message"]["content"], "Let me check.");
  const json& calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  testing::expect_weather_then_plan(calls, R"({"at":null,"steps":[{"go":true}]})");
}

TEST(Gemma4ToolCallsHttp, AnthropicStreamGivesThinkingTextAndToolUseBlocks) {
  Gemma4Server gemma4;
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "stream": true, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object"}},
      {"name": "plan", "input_schema": {"type": "object"}}]})");
  auto res = gemma4.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const testing::AnthropicStream stream = testing::parse_anthropic_stream(res->body);
  EXPECT_EQ(stream.block_types, (std::vector<std::string>{"thinking", "text", "tool_use", "tool_use"}));
  EXPECT_EQ(stream.thinking, "The user wants the weather.");
  EXPECT_EQ(stream.text, "Let me check.");
  EXPECT_EQ(stream.inputs, R"({"city":"Paris","days":3}|{"at":null,"steps":[{"go":true}]}|)");
}

}  // namespace
}  // namespace strata::server
