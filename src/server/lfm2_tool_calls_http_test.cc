// LFM2.5's replies end to end: a FakeEngine scripted to answer as the model does (it opens its own
// <think>: thinking, then two Python-style calls in one <|tool_call_start|> block; or thinking, then
// an answer; or a block that holds no call), a model text that says it writes LFM2's calls, over
// both APIs, streamed (one byte per token, so the markers arrive split) and not. No marker of a
// call reaches the client; a malformed block reaches it as text, whole. Whether the block is read
// however it streams is tool_call_lfm2_test.cc's.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
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

// Short: the fake engine takes a millisecond a byte.
constexpr const char* kLfmCallReply =
    "<think>Go.</think><|tool_call_start|>[weather(city='Paris'), plan(s=[{\"go\": True}], n=None)]<|tool_call_end|>";
constexpr const char* kLfmAnswerReply = "<think>Hi.</think>Hello <b>!";
constexpr const char* kLfmBrokenReply = "<|tool_call_start|>[f('x')]<|tool_call_end|>";
constexpr const char* kLfmWeatherArgs = R"({"city":"Paris"})";
constexpr const char* kLfmPlanArgs = R"({"s":[{"go":true}],"n":null})";

// A server whose model text writes LFM2's calls.
struct LfmServer {
  explicit LfmServer(const char* reply)
      : server(test_config(), testing::engine_with_reply(reply), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kLfm2;
    server.publish();
  }
  TestServer server;
};

json lfm_openai_body(bool stream) {
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}},
      {"type": "function", "function": {"name": "plan", "parameters": {"type": "object"}}}]})");
  if (stream) body["stream"] = true;
  return body;
}

json lfm_anthropic_stream_body() {
  return json::parse(R"({"model": "m", "max_tokens": 400, "stream": true, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"name": "weather", "input_schema": {"type": "object"}},
      {"name": "plan", "input_schema": {"type": "object"}}]})");
}

TEST(Lfm2ToolCallsHttp, OpenAiAnswerSplitsThinkingAndBothCallsWithIdsOfTheirOwn) {
  LfmServer lfm(kLfmCallReply);
  auto res = lfm.server.client(kTestApiKey).Post("/v1/chat/completions", lfm_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"], "Go.");
  EXPECT_TRUE(choice["message"]["content"].is_null() || choice["message"]["content"] == "") << choice.dump();
  const json& calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["function"]["name"], "weather");
  EXPECT_EQ(calls[0]["function"]["arguments"], kLfmWeatherArgs);
  EXPECT_EQ(calls[1]["function"]["name"], "plan");
  EXPECT_EQ(calls[1]["function"]["arguments"], kLfmPlanArgs);
  const std::set<std::string> ids = {calls[0]["id"].get<std::string>(), calls[1]["id"].get<std::string>()};
  EXPECT_EQ(ids.size(), 2u);
}

TEST(Lfm2ToolCallsHttp, OpenAiStreamGivesTheSameCalls) {
  LfmServer lfm(kLfmCallReply);
  auto res = lfm.server.client(kTestApiKey).Post("/v1/chat/completions", lfm_openai_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->body.find("tool_call_"), std::string::npos) << res->body;
  const testing::ReasoningStream stream = testing::parse_reasoning_stream(res->body);
  EXPECT_EQ(stream.reasoning, "Go.");
  EXPECT_EQ(stream.content, "");
  EXPECT_EQ(stream.finish_reason, "tool_calls");
  std::map<int, std::string> names, arguments;
  for (const json& delta : stream.tool_calls) {
    const int index = delta["index"];
    if (delta["function"].contains("name")) names[index] += delta["function"]["name"].get<std::string>();
    if (delta["function"].contains("arguments")) arguments[index] += delta["function"]["arguments"].get<std::string>();
  }
  EXPECT_EQ(names, (std::map<int, std::string>{{0, "weather"}, {1, "plan"}}));
  EXPECT_EQ(arguments, (std::map<int, std::string>{{0, kLfmWeatherArgs}, {1, kLfmPlanArgs}}));
}

TEST(Lfm2ToolCallsHttp, AnthropicStreamGivesThinkingAndToolUseBlocks) {
  LfmServer lfm(kLfmCallReply);
  auto res = lfm.server.client(kTestApiKey).Post("/v1/messages", lfm_anthropic_stream_body().dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const testing::AnthropicStream stream = testing::parse_anthropic_stream(res->body);
  EXPECT_EQ(stream.block_types, (std::vector<std::string>{"thinking", "tool_use", "tool_use"}));
  EXPECT_EQ(stream.thinking, "Go.");
  EXPECT_EQ(stream.text, "");
  EXPECT_EQ(stream.inputs, std::string(kLfmWeatherArgs) + "|" + kLfmPlanArgs + "|");
}

TEST(Lfm2ToolCallsHttp, AnthropicAnswerGivesThinkingThenText) {
  LfmServer lfm(kLfmAnswerReply);
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [{"role": "user", "content": "Hi"}]})");
  auto res = lfm.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json content = json::parse(res->body)["content"];
  ASSERT_EQ(content.size(), 2u) << res->body;
  EXPECT_EQ(content[0]["thinking"], "Hi.");
  EXPECT_EQ(content[1]["type"], "text");
  EXPECT_EQ(content[1]["text"], "Hello <b>!");
}

// A block the parser cannot read (a positional argument) is the answer's text, markers and all.
TEST(Lfm2ToolCallsHttp, AMalformedBlockIsTheAnswersTextWhole) {
  LfmServer lfm(kLfmBrokenReply);
  auto res = lfm.server.client(kTestApiKey).Post("/v1/chat/completions", lfm_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_EQ(choice["message"]["content"], kLfmBrokenReply);
  EXPECT_FALSE(choice["message"].contains("tool_calls")) << choice.dump();
}

}  // namespace
}  // namespace strata::server
