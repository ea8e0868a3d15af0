// GLM-4.5's replies end to end: a FakeEngine scripted to answer as GLM-4.5 does after its
// "<|assistant|>" (a "<think>" block it opens itself, text, then a <tool_call> with
// <arg_key>/<arg_value> pairs), a model text that says it writes GLM's tool calls, over both
// APIs, streamed (one byte per token, so the tags arrive split) and not.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::parse_reasoning_stream;
using testing::parse_sse;
using testing::ReasoningStream;
using testing::SseStream;
using testing::test_config;
using testing::TestServer;

constexpr const char* kGlmReply =
    "\n<think>The user wants the weather.</think>\nLet me check.\n"
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
    "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>";

// A server whose model text writes GLM's tool calls (set before the model is published).
struct GlmServer {
  explicit GlmServer(std::string reply = kGlmReply)
      : server(test_config(), testing::engine_with_reply(std::move(reply)), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kArgTags;
    server.publish();
  }
  TestServer server;
};

json glm_openai_body(bool stream, bool tools = true) {
  json body = json::parse(R"({"model": "m", "max_tokens": 300, "messages": [
      {"role": "user", "content": "Weather in Beijing?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]})");
  if (stream) body["stream"] = true;
  if (!tools) body.erase("tools");
  return body;
}

json glm_anthropic_body(bool stream) {
  json body = json::parse(R"({"model": "m", "max_tokens": 300, "messages": [
      {"role": "user", "content": "Weather in Beijing?"}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}]})");
  if (stream) body["stream"] = true;
  return body;
}

const json kGlmArguments = {{"city", "Beijing"}, {"days", 3}};

TEST(GlmToolCallsHttp, OpenAiAnswerSplitsReasoningTextAndTheCall) {
  GlmServer glm;
  auto res = glm.server.client(kTestApiKey).Post("/v1/chat/completions", glm_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"], "The user wants the weather.");
  EXPECT_EQ(choice["message"]["content"], "Let me check.");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u);
  const json& call = choice["message"]["tool_calls"][0];
  EXPECT_EQ(call["function"]["name"], "get_weather");
  EXPECT_EQ(call["function"]["arguments"], R"({"city":"Beijing","days":3})");
}

TEST(GlmToolCallsHttp, OpenAiStreamSendsReasoningTextThenOneToolCallDelta) {
  GlmServer glm;
  auto res = glm.server.client(kTestApiKey).Post("/v1/chat/completions", glm_openai_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const ReasoningStream stream = parse_reasoning_stream(res->body);
  EXPECT_EQ(stream.reasoning, "The user wants the weather.");
  EXPECT_EQ(stream.content, "Let me check.");  // no byte of the tags leaked
  ASSERT_EQ(stream.tool_calls.size(), 1u);
  EXPECT_EQ(stream.tool_calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(stream.tool_calls[0]["function"]["arguments"].get<std::string>()), kGlmArguments);
  EXPECT_EQ(stream.finish_reason, "tool_calls");
}

TEST(GlmToolCallsHttp, OpenAiWithoutToolsLeavesTheCallAsText) {
  GlmServer glm;
  auto res = glm.server.client(kTestApiKey).Post("/v1/chat/completions", glm_openai_body(false, false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  EXPECT_NE(choice["message"]["content"].get<std::string>().find("<tool_call>get_weather\n<arg_key>city"),
            std::string::npos);
}

// With thinking off the prompt ends "<think></think>" (the fake appends it as Qwen3's and GLM's
// templates do) and GLM writes "\n" before its answer, which is not part of the answer.
TEST(GlmToolCallsHttp, WithThinkingOffTheAnswerLosesTheNewlineBeforeIt) {
  GlmServer glm("\nHello there.");
  json body = glm_openai_body(false, false);
  body["chat_template_kwargs"] = {{"enable_thinking", false}};
  auto res = glm.server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json message = json::parse(res->body)["choices"][0]["message"];
  EXPECT_EQ(message["content"], "Hello there.");
  EXPECT_FALSE(message.contains("reasoning_content"));
}

TEST(GlmToolCallsHttp, AnthropicAnswerCarriesThinkingTextAndToolUse) {
  GlmServer glm;
  auto res = glm.server.client(kTestApiKey).Post("/v1/messages", glm_anthropic_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json body = json::parse(res->body);
  EXPECT_EQ(body["stop_reason"], "tool_use");
  ASSERT_EQ(body["content"].size(), 3u) << body;
  EXPECT_EQ(body["content"][0]["type"], "thinking");
  EXPECT_EQ(body["content"][1], json({{"type", "text"}, {"text", "Let me check."}}));
  EXPECT_EQ(body["content"][2]["type"], "tool_use");
  EXPECT_EQ(body["content"][2]["name"], "get_weather");
  EXPECT_EQ(body["content"][2]["input"], kGlmArguments);
}

TEST(GlmToolCallsHttp, AnthropicStreamSendsAToolUseBlockWithTheArguments) {
  GlmServer glm;
  auto res = glm.server.client(kTestApiKey).Post("/v1/messages", glm_anthropic_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const SseStream sse = parse_sse(res->body);
  std::string text, input_json, stop_reason;
  std::vector<std::string> block_types;
  for (size_t i = 0; i < sse.events.size(); ++i) {
    const json data = json::parse(sse.data[i]);
    if (sse.events[i] == "content_block_start") block_types.push_back(data["content_block"]["type"]);
    if (sse.events[i] == "message_delta") stop_reason = data["delta"]["stop_reason"];
    if (sse.events[i] != "content_block_delta") continue;
    if (data["delta"]["type"] == "text_delta") text += data["delta"]["text"].get<std::string>();
    if (data["delta"]["type"] == "input_json_delta") input_json += data["delta"]["partial_json"].get<std::string>();
  }
  EXPECT_EQ(block_types, (std::vector<std::string>{"thinking", "text", "tool_use"}));
  EXPECT_EQ(text, "Let me check.");
  EXPECT_EQ(json::parse(input_json), kGlmArguments);
  EXPECT_EQ(stop_reason, "tool_use");
}

}  // namespace
}  // namespace strata::server
