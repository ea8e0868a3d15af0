// The replies of models that write their calls as a JSON array between tags of their own, end to
// end: Nemotron Nano 2 (`<TOOLCALL>[...]</TOOLCALL>`, after a prompt that opened <think>) and
// Hunyuan-A13B (`<tool_calls>[...]</tool_calls>` inside its `<answer>` wrapper, after thinking it
// opens itself). A FakeEngine scripted to answer as the model does (thinking, then two calls in one
// block; or thinking, then an answer), a model text that says it writes that family's calls and
// tags, over both APIs, streamed (one byte per token, so the markers arrive split) and not. No
// marker reaches the client.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "server/testing/scripted_calls.h"
#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::test_config;
using testing::TestServer;

struct ArrayFamily {
  const char* name;
  ToolCallSyntax syntax;
  ReasoningTags tags;
  const char* prompt_suffix;   // the generation prompt's end: "<think>\n" opens the reasoning
  const char* call_reply;      // thinking, then get_weather and plan in one block
  const char* answer_reply;    // thinking, then "Hello <b>there</b>!"
  const char* call_thinking;   // the reasoning the client gets with each
  const char* answer_thinking;
  std::vector<const char*> markers;  // none of them reaches the client
};

// GoogleTest names a failing case's family by this.
void PrintTo(const ArrayFamily& family, std::ostream* os) { *os << family.name; }

const ArrayFamily kNemotron{
    "Nemotron", ToolCallSyntax::kNemotron, kThinkTags, "<think>\n",
    "The user wants the weather.\n</think>\n\n<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": "
    "{\"city\": \"Paris\", \"days\": 3}}, {\"name\": \"plan\", \"arguments\": {\"steps\": [{\"go\": true}]}}]</TOOLCALL>",
    "Just greet.\n</think>\n\nHello <b>there</b>!",
    // The newline before </think> stays in the reasoning, as for MiniMax-M2.
    "The user wants the weather.\n", "Just greet.\n", {"TOOLCALL", "think>"}};

const ArrayFamily kHunyuan{
    "Hunyuan", ToolCallSyntax::kHunyuan, kHunyuanTags, "",
    "<think>\nThe user wants the weather.\n</think>\n<answer>\n<tool_calls>[{\"name\": \"get_weather\", \"arguments\": "
    "{\"city\": \"Paris\", \"days\": 3}}, {\"name\": \"plan\", \"arguments\": {\"steps\": [{\"go\": true}]}}]</tool_calls>"
    "\n</answer>",
    "<think>\nJust greet.\n</think>\n<answer>\nHello <b>there</b>!\n</answer>",
    "\nThe user wants the weather.\n", "\nJust greet.\n", {"tool_calls>", "answer>", "think>"}};

// A server whose model text writes the family's calls and tags.
struct FamilyServer {
  FamilyServer(const ArrayFamily& family, const char* reply)
      : server(test_config(), testing::engine_with_reply(reply), {}, /*publish=*/false) {
    server.text().tool_syntax = family.syntax;
    server.text().tags = family.tags;
    server.text().prompt_suffix = family.prompt_suffix;
    server.publish();
  }
  TestServer server;
};

class JsonArrayToolCallsHttp : public ::testing::TestWithParam<ArrayFamily> {
 protected:
  static json openai_body(bool stream) {
    json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
        {"role": "user", "content": "Weather in Paris, and a plan?"}],
      "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "plan", "parameters": {"type": "object"}}}]})");
    if (stream) body["stream"] = true;
    return body;
  }
  void expect_no_marker(const std::string& body) const {
    for (const char* marker : GetParam().markers) EXPECT_EQ(body.find(marker), std::string::npos) << marker << body;
  }
};

TEST_P(JsonArrayToolCallsHttp, OpenAiAnswerSplitsThinkingAndBothCallsWithIdsOfTheirOwn) {
  FamilyServer family(GetParam(), GetParam().call_reply);
  auto res = family.server.client(kTestApiKey).Post("/v1/chat/completions", openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  expect_no_marker(res->body);
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"], GetParam().call_thinking);
  EXPECT_TRUE(choice["message"]["content"].is_null() || choice["message"]["content"] == "") << choice.dump();
  const json& calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  testing::expect_weather_then_plan(calls, R"({"steps":[{"go":true}]})");
  const std::set<std::string> ids = {calls[0]["id"].get<std::string>(), calls[1]["id"].get<std::string>()};
  EXPECT_EQ(ids.size(), 2u);
}

TEST_P(JsonArrayToolCallsHttp, OpenAiStreamGivesTheSameCalls) {
  FamilyServer family(GetParam(), GetParam().call_reply);
  auto res = family.server.client(kTestApiKey).Post("/v1/chat/completions", openai_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  expect_no_marker(res->body);
  const testing::ReasoningStream stream = testing::parse_reasoning_stream(res->body);
  EXPECT_EQ(stream.reasoning, GetParam().call_thinking);
  EXPECT_NE(res->body.find(R"(\"city\":\"Paris\")"), std::string::npos) << res->body;
  EXPECT_NE(res->body.find(R"("finish_reason":"tool_calls")"), std::string::npos) << res->body;
}

TEST_P(JsonArrayToolCallsHttp, AnthropicStreamGivesThinkingAndToolUseBlocks) {
  FamilyServer family(GetParam(), GetParam().call_reply);
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "stream": true, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object"}},
      {"name": "plan", "input_schema": {"type": "object"}}]})");
  auto res = family.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  expect_no_marker(res->body);
  const testing::AnthropicStream stream = testing::parse_anthropic_stream(res->body);
  EXPECT_EQ(stream.block_types, (std::vector<std::string>{"thinking", "tool_use", "tool_use"}));
  EXPECT_EQ(stream.thinking, GetParam().call_thinking);
  EXPECT_EQ(stream.text, "");
  EXPECT_EQ(stream.inputs, R"({"city":"Paris","days":3}|{"steps":[{"go":true}]}|)");
}

TEST_P(JsonArrayToolCallsHttp, AnthropicAnswerGivesThinkingThenText) {
  FamilyServer family(GetParam(), GetParam().answer_reply);
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [{"role": "user", "content": "Hi"}]})");
  auto res = family.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json content = json::parse(res->body)["content"];
  ASSERT_EQ(content.size(), 2u) << res->body;
  EXPECT_EQ(content[0]["type"], "thinking");
  EXPECT_EQ(content[0]["thinking"], GetParam().answer_thinking);
  EXPECT_EQ(content[1]["type"], "text");
  EXPECT_EQ(content[1]["text"], "Hello <b>there</b>!");
}

INSTANTIATE_TEST_SUITE_P(Families, JsonArrayToolCallsHttp, ::testing::Values(kNemotron, kHunyuan),
                         [](const ::testing::TestParamInfo<ArrayFamily>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace strata::server
