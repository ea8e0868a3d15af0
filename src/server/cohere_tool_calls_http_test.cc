// Cohere's replies end to end: a FakeEngine scripted to answer as North does after its prompt opened
// <|START_THINKING|> (thinking, then two calls in one <|START_ACTION|>, then the stray text closer
// North may write; or thinking, then an answer in <|START_TEXT|>), a model text that says it writes
// Cohere's calls and markers, over both APIs, streamed (one byte per token, so the markers arrive
// split) and not. No marker reaches the client.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "server/testing/scripted_calls.h"
#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::test_config;
using testing::TestServer;

constexpr const char* kNorthCallReply =
    "The user wants the weather.<|END_THINKING|><|START_ACTION|>[\n"
    "    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", \"days\": 3}},\n"
    "    {\"tool_call_id\": \"1\", \"tool_name\": \"plan\", \"parameters\": {\"steps\": [{\"go\": true}]}}\n"
    "]<|END_ACTION|><|END_TEXT|>";
constexpr const char* kNorthAnswerReply = "Just greet.<|END_THINKING|><|START_TEXT|>Hello <b>there</b>!<|END_TEXT|>";

// A server whose model text writes North's calls, thinking and answer markers, its prompt ending in
// <|START_THINKING|> as North's generation prompt does.
struct NorthServer {
  explicit NorthServer(const char* reply)
      : server(test_config(), testing::engine_with_reply(reply), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kCohere;
    server.text().tags = kCohereTextTags;
    server.text().prompt_suffix = "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>";
    server.publish();
  }
  TestServer server;
};

json north_openai_body(bool stream, bool tools) {
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}]})");
  if (tools) {
    body["tools"] = json::parse(R"([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
      {"type": "function", "function": {"name": "plan", "parameters": {"type": "object"}}}])");
  }
  if (stream) body["stream"] = true;
  return body;
}

TEST(CohereToolCallsHttp, OpenAiAnswerSplitsThinkingAndBothCallsWithIdsOfTheirOwn) {
  NorthServer north(kNorthCallReply);
  auto res = north.server.client(kTestApiKey).Post("/v1/chat/completions", north_openai_body(false, true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"], "The user wants the weather.");
  EXPECT_TRUE(choice["message"]["content"].is_null() || choice["message"]["content"] == "") << choice.dump();
  const json& calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  testing::expect_weather_then_plan(calls, R"({"steps":[{"go":true}]})");
  const std::set<std::string> ids = {calls[0]["id"].get<std::string>(), calls[1]["id"].get<std::string>()};
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids.count("0") + ids.count("1"), 0u);  // not the model's conversation indexes
}

TEST(CohereToolCallsHttp, AnthropicStreamGivesThinkingAndToolUseBlocks) {
  NorthServer north(kNorthCallReply);
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "stream": true, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object"}},
      {"name": "plan", "input_schema": {"type": "object"}}]})");
  auto res = north.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const testing::AnthropicStream stream = testing::parse_anthropic_stream(res->body);
  EXPECT_EQ(stream.block_types, (std::vector<std::string>{"thinking", "tool_use", "tool_use"}));
  EXPECT_EQ(stream.thinking, "The user wants the weather.");
  EXPECT_EQ(stream.text, "");
  EXPECT_EQ(stream.inputs, R"({"city":"Paris","days":3}|{"steps":[{"go":true}]}|)");
}

TEST(CohereToolCallsHttp, OpenAiStreamGivesTheAnswerWithoutItsMarkers) {
  NorthServer north(kNorthAnswerReply);
  auto res = north.server.client(kTestApiKey).Post("/v1/chat/completions", north_openai_body(true, false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const testing::ReasoningStream stream = testing::parse_reasoning_stream(res->body);
  EXPECT_EQ(stream.reasoning, "Just greet.");
  EXPECT_EQ(stream.content, "Hello <b>there</b>!");
}

TEST(CohereToolCallsHttp, AnthropicAnswerGivesThinkingThenText) {
  NorthServer north(kNorthAnswerReply);
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [{"role": "user", "content": "Hi"}]})");
  auto res = north.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json content = json::parse(res->body)["content"];
  ASSERT_EQ(content.size(), 2u) << res->body;
  EXPECT_EQ(content[0]["type"], "thinking");
  EXPECT_EQ(content[0]["thinking"], "Just greet.");
  EXPECT_EQ(content[1]["type"], "text");
  EXPECT_EQ(content[1]["text"], "Hello <b>there</b>!");
}

}  // namespace
}  // namespace strata::server
