// Mistral's replies end to end: a FakeEngine scripted to answer as Magistral / Ministral 3
// Reasoning do ([THINK]...[/THINK], text, then [TOOL_CALLS]NAME[ARGS]JSON calls) and as Mistral
// Small 3.2 does (calls with [CALL_ID]), a model text that says it writes kMistral with Mistral's
// think tags, over both APIs, streamed (one byte per token, so the tags arrive split) and not.
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

constexpr const char* kMagistralReply =
    "[THINK]The user wants the weather.[/THINK]Let me check."
    R"([TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}[TOOL_CALLS]get_time[ARGS]{"zone": "CET"})";

constexpr const char* kSmall32Reply =
    R"([TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris", "days": 3})"
    R"([TOOL_CALLS]get_time[CALL_ID]Z9y8X7w6V[ARGS]{"zone": "CET"})";

const json kMistralWeatherArguments = {{"city", "Paris"}, {"days", 3}};

// A server whose model text writes Mistral's calls and [THINK] (set before the model is published).
struct MistralServer {
  explicit MistralServer(std::string reply)
      : server(test_config(), testing::engine_with_reply(std::move(reply)), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kMistral;
    server.text().tags = kMistralThinkTags;
    server.publish();
  }
  TestServer server;
};

json mistral_openai_body(bool stream, bool tools = true) {
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
      {"role": "user", "content": "Weather and time in Paris?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
      {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object",
        "properties": {"zone": {"type": "string"}}}}}]})");
  if (stream) body["stream"] = true;
  if (!tools) body.erase("tools");
  return body;
}

json mistral_anthropic_body(bool stream) {
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
      {"role": "user", "content": "Weather and time in Paris?"}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object"}},
      {"name": "get_time", "input_schema": {"type": "object"}}]})");
  if (stream) body["stream"] = true;
  return body;
}

TEST(MistralToolCallsHttp, OpenAiAnswerSplitsThinkTextAndBothCalls) {
  MistralServer magistral(kMagistralReply);
  auto res = magistral.server.client(kTestApiKey).Post("/v1/chat/completions", mistral_openai_body(false).dump(),
                                                       kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"], "The user wants the weather.");
  EXPECT_EQ(choice["message"]["content"], "Let me check.");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 2u);
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["arguments"], R"({"city":"Paris","days":3})");
  EXPECT_EQ(choice["message"]["tool_calls"][1]["function"]["arguments"], R"({"zone":"CET"})");
  EXPECT_NE(choice["message"]["tool_calls"][0]["id"], choice["message"]["tool_calls"][1]["id"]);
}

TEST(MistralToolCallsHttp, OpenAiStreamSendsThinkTextThenTwoToolCallDeltas) {
  MistralServer magistral(kMagistralReply);
  auto res = magistral.server.client(kTestApiKey).Post("/v1/chat/completions", mistral_openai_body(true).dump(),
                                                       kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const ReasoningStream stream = parse_reasoning_stream(res->body);
  EXPECT_EQ(stream.reasoning, "The user wants the weather.");
  EXPECT_EQ(stream.content, "Let me check.");  // no byte of the markup leaked
  ASSERT_EQ(stream.tool_calls.size(), 2u);
  EXPECT_EQ(stream.tool_calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(stream.tool_calls[0]["function"]["arguments"].get<std::string>()), kMistralWeatherArguments);
  EXPECT_EQ(stream.tool_calls[1]["function"]["name"], "get_time");
  EXPECT_EQ(stream.finish_reason, "tool_calls");
}

// Small 3.2 writes each call's id; the answer carries it, streamed or not, on both APIs.
TEST(MistralToolCallsHttp, IdsTheModelWritesAreTheCallsIds) {
  MistralServer small32(kSmall32Reply);
  httplib::Client client = small32.server.client(kTestApiKey);
  auto whole = client.Post("/v1/chat/completions", mistral_openai_body(false).dump(), kJsonType);
  auto streamed = client.Post("/v1/chat/completions", mistral_openai_body(true).dump(), kJsonType);
  auto anthropic = client.Post("/v1/messages", mistral_anthropic_body(false).dump(), kJsonType);
  ASSERT_EQ(whole->status, 200) << whole->body;
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  ASSERT_EQ(anthropic->status, 200) << anthropic->body;
  const json calls = json::parse(whole->body)["choices"][0]["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["id"], "a1B2c3D4e");
  EXPECT_EQ(calls[1]["id"], "Z9y8X7w6V");
  const ReasoningStream stream = parse_reasoning_stream(streamed->body);
  ASSERT_EQ(stream.tool_calls.size(), 2u);
  EXPECT_EQ(stream.tool_calls[0]["id"], "a1B2c3D4e");
  const json content = json::parse(anthropic->body)["content"];
  ASSERT_EQ(content.size(), 2u) << content;
  EXPECT_EQ(content[0]["id"], "a1B2c3D4e");
  EXPECT_EQ(content[1]["input"], json({{"zone", "CET"}}));
}

TEST(MistralToolCallsHttp, WithoutToolsTheMarkupIsText) {
  MistralServer small32(kSmall32Reply);
  auto res = small32.server.client(kTestApiKey).Post("/v1/chat/completions",
                                                     mistral_openai_body(false, false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  EXPECT_EQ(choice["message"]["content"], kSmall32Reply);
}

// Cut off inside the first call's arguments (max_tokens, say): the markup comes back as text.
TEST(MistralToolCallsHttp, ACallCutOffIsText) {
  const std::string cut = std::string(kSmall32Reply).substr(0, 60);
  MistralServer small32(cut);
  for (bool stream : {false, true}) {
    auto res = small32.server.client(kTestApiKey).Post("/v1/chat/completions", mistral_openai_body(stream).dump(),
                                                       kJsonType);
    ASSERT_EQ(res->status, 200) << res->body;
    if (stream) {
      const ReasoningStream s = parse_reasoning_stream(res->body);
      EXPECT_TRUE(s.tool_calls.empty());
      EXPECT_EQ(s.content, cut);
      EXPECT_EQ(s.finish_reason, "stop");
    } else {
      const json choice = json::parse(res->body)["choices"][0];
      EXPECT_FALSE(choice["message"].contains("tool_calls"));
      EXPECT_EQ(choice["message"]["content"], cut);
    }
  }
}

TEST(MistralToolCallsHttp, AnthropicStreamSendsThinkingTextAndTwoToolUseBlocks) {
  MistralServer magistral(kMagistralReply);
  auto res = magistral.server.client(kTestApiKey).Post("/v1/messages", mistral_anthropic_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const SseStream sse = parse_sse(res->body);
  std::string thinking, text, stop_reason;
  std::vector<std::string> block_types, inputs;
  for (size_t i = 0; i < sse.events.size(); ++i) {
    const json data = json::parse(sse.data[i]);
    if (sse.events[i] == "content_block_start") block_types.push_back(data["content_block"]["type"]);
    if (sse.events[i] == "message_delta") stop_reason = data["delta"]["stop_reason"];
    if (sse.events[i] != "content_block_delta") continue;
    if (data["delta"]["type"] == "thinking_delta") thinking += data["delta"]["thinking"].get<std::string>();
    if (data["delta"]["type"] == "text_delta") text += data["delta"]["text"].get<std::string>();
    if (data["delta"]["type"] == "input_json_delta") inputs.push_back(data["delta"]["partial_json"]);
  }
  EXPECT_EQ(block_types, (std::vector<std::string>{"thinking", "text", "tool_use", "tool_use"}));
  EXPECT_EQ(thinking, "The user wants the weather.");
  EXPECT_EQ(text, "Let me check.");
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(json::parse(inputs[0]), kMistralWeatherArguments);
  EXPECT_EQ(stop_reason, "tool_use");
}

// A forced call is constrained to a JSON <tool_call> block, which the Mistral syntax reads too.
TEST(MistralToolCallsHttp, AForcedCallIsRead) {
  MistralServer small32("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"CET\"}}\n</tool_call>");
  json body = mistral_openai_body(false);
  body["tool_choice"] = "required";
  auto res = small32.server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u) << choice;
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["name"], "get_time");
}

}  // namespace
}  // namespace strata::server
