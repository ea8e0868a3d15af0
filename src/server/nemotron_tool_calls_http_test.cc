// Nemotron Nano 2's replies end to end: a FakeEngine scripted to answer as the model does after its
// prompt opened <think> (thinking, then two calls in one <TOOLCALL> block; or thinking, then an
// answer), a model text that says it writes Nemotron's calls, over both APIs, streamed (one byte
// per token, so the markers arrive split) and not. No marker reaches the client.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::test_config;
using testing::TestServer;

constexpr const char* kNanoCallReply =
    "The user wants the weather.\n</think>\n\n<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": "
    "{\"city\": \"Paris\", \"days\": 3}}, {\"name\": \"plan\", \"arguments\": {\"steps\": [{\"go\": true}]}}]</TOOLCALL>";
constexpr const char* kNanoAnswerReply = "Just greet.\n</think>\n\nHello <b>there</b>!";

// A server whose model text writes Nemotron's calls, its prompt ending in <think> as Nano 2's
// generation prompt does.
struct NanoServer {
  explicit NanoServer(const char* reply)
      : server(test_config(), testing::engine_with_reply(reply), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kNemotron;
    server.text().prompt_suffix = "<think>\n";
    server.publish();
  }
  TestServer server;
};

json nano_openai_body(bool stream) {
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
      {"type": "function", "function": {"name": "plan", "parameters": {"type": "object"}}}]})");
  if (stream) body["stream"] = true;
  return body;
}

TEST(NemotronToolCallsHttp, OpenAiAnswerSplitsThinkingAndBothCallsWithIdsOfTheirOwn) {
  NanoServer nano(kNanoCallReply);
  auto res = nano.server.client(kTestApiKey).Post("/v1/chat/completions", nano_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  // The newline before </think> stays in the reasoning, as for MiniMax-M2.
  EXPECT_EQ(choice["message"]["reasoning_content"], "The user wants the weather.\n");
  EXPECT_TRUE(choice["message"]["content"].is_null() || choice["message"]["content"] == "") << choice.dump();
  const json& calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(calls[0]["function"]["arguments"], R"({"city":"Paris","days":3})");
  EXPECT_EQ(calls[1]["function"]["name"], "plan");
  EXPECT_EQ(calls[1]["function"]["arguments"], R"({"steps":[{"go":true}]})");
  const std::set<std::string> ids = {calls[0]["id"].get<std::string>(), calls[1]["id"].get<std::string>()};
  EXPECT_EQ(ids.size(), 2u);
}

TEST(NemotronToolCallsHttp, OpenAiStreamGivesTheSameCalls) {
  NanoServer nano(kNanoCallReply);
  auto res = nano.server.client(kTestApiKey).Post("/v1/chat/completions", nano_openai_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->body.find("TOOLCALL"), std::string::npos) << res->body;
  const testing::ReasoningStream stream = testing::parse_reasoning_stream(res->body);
  EXPECT_EQ(stream.reasoning, "The user wants the weather.\n");
  EXPECT_NE(res->body.find(R"(\"city\":\"Paris\")"), std::string::npos) << res->body;
  EXPECT_NE(res->body.find(R"("finish_reason":"tool_calls")"), std::string::npos) << res->body;
}

TEST(NemotronToolCallsHttp, AnthropicStreamGivesThinkingAndToolUseBlocks) {
  NanoServer nano(kNanoCallReply);
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "stream": true, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object"}},
      {"name": "plan", "input_schema": {"type": "object"}}]})");
  auto res = nano.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const testing::AnthropicStream stream = testing::parse_anthropic_stream(res->body);
  EXPECT_EQ(stream.block_types, (std::vector<std::string>{"thinking", "tool_use", "tool_use"}));
  EXPECT_EQ(stream.thinking, "The user wants the weather.\n");
  EXPECT_EQ(stream.text, "");
  EXPECT_EQ(stream.inputs, R"({"city":"Paris","days":3}|{"steps":[{"go":true}]}|)");
}

TEST(NemotronToolCallsHttp, AnthropicAnswerGivesThinkingThenText) {
  NanoServer nano(kNanoAnswerReply);
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [{"role": "user", "content": "Hi"}]})");
  auto res = nano.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json content = json::parse(res->body)["content"];
  ASSERT_EQ(content.size(), 2u) << res->body;
  EXPECT_EQ(content[0]["type"], "thinking");
  EXPECT_EQ(content[0]["thinking"], "Just greet.\n");
  EXPECT_EQ(content[1]["type"], "text");
  EXPECT_EQ(content[1]["text"], "Hello <b>there</b>!");
}

}  // namespace
}  // namespace strata::server
