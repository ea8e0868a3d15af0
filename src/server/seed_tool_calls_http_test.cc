// Seed-OSS's replies end to end: a FakeEngine scripted to answer as Seed-OSS does (its thinking in
// <seed:think>, with a budget reflection inside, then a <seed:tool_call> block of two functions),
// a model text that says it writes Qwen3-Coder's functions and Seed's thinking tags, over both
// APIs, streamed (one byte per token, so the tags arrive split) and not.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::test_config;
using testing::TestServer;

constexpr const char* kSeedReply =
    "<seed:think>The user wants the weather.<seed:cot_budget_reflect>Used 8 tokens.</seed:cot_budget_reflect>"
    "</seed:think>Checking.\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n"
    "<parameter=days>3</parameter>\n</function>\n<function=plan>\n<parameter=steps>[1, 2]</parameter>\n</function>\n"
    "</seed:tool_call>";

struct SeedServer {
  SeedServer() : server(test_config(), testing::engine_with_reply(kSeedReply), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kXmlParams;
    server.text().tags = kSeedThinkTags;
    server.publish();
  }
  TestServer server;
};

const char* kTools = R"([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
      "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "plan", "parameters": {"type": "object",
      "properties": {"steps": {"type": "array"}}}}}])";

TEST(SeedToolCallsHttp, OpenAiAnswerSplitsThinkingTextAndTypedCalls) {
  SeedServer seed;
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [{"role": "user", "content": "Paris?"}]})");
  body["tools"] = json::parse(kTools);
  auto res = seed.server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"],
            "The user wants the weather.<seed:cot_budget_reflect>Used 8 tokens.</seed:cot_budget_reflect>");
  EXPECT_EQ(choice["message"]["content"], "Checking.");
  const json& calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["function"]["arguments"], R"({"city":"Paris","days":3})");
  EXPECT_EQ(calls[1]["function"]["name"], "plan");
  EXPECT_EQ(calls[1]["function"]["arguments"], R"({"steps":[1,2]})");
}

TEST(SeedToolCallsHttp, AnthropicStreamGivesThinkingTextAndToolUseBlocks) {
  SeedServer seed;
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "stream": true, "messages": [
      {"role": "user", "content": "Paris?"}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object", "properties": {"days": {"type": "integer"}}}},
      {"name": "plan", "input_schema": {"type": "object"}}]})");
  auto res = seed.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const testing::AnthropicStream stream = testing::parse_anthropic_stream(res->body);
  EXPECT_EQ(stream.block_types, (std::vector<std::string>{"thinking", "text", "tool_use", "tool_use"}));
  EXPECT_EQ(stream.thinking, "The user wants the weather.<seed:cot_budget_reflect>Used 8 tokens.</seed:cot_budget_reflect>");
  EXPECT_EQ(stream.text, "Checking.");
  EXPECT_EQ(stream.inputs, R"({"city":"Paris","days":3}|{"steps":"[1, 2]"}|)");
}

}  // namespace
}  // namespace strata::server
