// DeepSeek's replies end to end: a FakeEngine scripted to answer as DeepSeek-R1-0528 does after
// its "<｜Assistant｜>" (a "<think>" block it opens itself, text, then a <｜tool▁calls▁begin｜>
// section; R1's markup) or as V3.1 does with thinking off (text, then V3.1's markup), a model
// text that says it writes that syntax, over both APIs, streamed (one byte per token, so the
// tags arrive split) and not.
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

constexpr const char* kR1Reply =
    "<think>\nThe user wants the weather.\n</think>\n\nLet me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"
    "function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\", \"days\": 3}\n```<｜tool▁call▁end｜>\n"
    "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{\"zone\": \"CET\"}\n```<｜tool▁call▁end｜>"
    "<｜tool▁calls▁end｜>";

constexpr const char* kV31Reply =
    "Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\", "
    "\"days\": 3}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{\"zone\": \"CET\"}<｜tool▁call▁end｜>"
    "<｜tool▁calls▁end｜>";

const json kWeatherArguments = {{"city", "Paris"}, {"days", 3}};

// A server whose model text writes DeepSeek's tool calls (set before the model is published).
struct DeepseekServer {
  DeepseekServer(ToolCallSyntax syntax, std::string reply)
      : server(test_config(), testing::engine_with_reply(std::move(reply)), {}, /*publish=*/false) {
    server.text().tool_syntax = syntax;
    server.publish();
  }
  TestServer server;
};

json deepseek_openai_body(bool stream, bool tools = true) {
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

json deepseek_anthropic_body(bool stream) {
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
      {"role": "user", "content": "Weather and time in Paris?"}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object"}},
      {"name": "get_time", "input_schema": {"type": "object"}}]})");
  if (stream) body["stream"] = true;
  return body;
}

TEST(DeepseekToolCallsHttp, R1OpenAiAnswerSplitsReasoningTextAndBothCalls) {
  DeepseekServer r1(ToolCallSyntax::kDeepSeekR1, kR1Reply);
  auto res = r1.server.client(kTestApiKey).Post("/v1/chat/completions", deepseek_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"], "\nThe user wants the weather.\n");
  EXPECT_EQ(choice["message"]["content"], "Let me check.");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 2u);
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["arguments"], R"({"city":"Paris","days":3})");
  EXPECT_EQ(choice["message"]["tool_calls"][1]["function"]["name"], "get_time");
  EXPECT_EQ(choice["message"]["tool_calls"][1]["function"]["arguments"], R"({"zone":"CET"})");
  EXPECT_NE(choice["message"]["tool_calls"][0]["id"], choice["message"]["tool_calls"][1]["id"]);
}

TEST(DeepseekToolCallsHttp, R1OpenAiStreamSendsReasoningTextThenTwoToolCallDeltas) {
  DeepseekServer r1(ToolCallSyntax::kDeepSeekR1, kR1Reply);
  auto res = r1.server.client(kTestApiKey).Post("/v1/chat/completions", deepseek_openai_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const ReasoningStream stream = parse_reasoning_stream(res->body);
  EXPECT_EQ(stream.reasoning, "\nThe user wants the weather.\n");
  EXPECT_EQ(stream.content, "Let me check.");  // no byte of the markup leaked
  ASSERT_EQ(stream.tool_calls.size(), 2u);
  EXPECT_EQ(stream.tool_calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(stream.tool_calls[0]["function"]["arguments"].get<std::string>()), kWeatherArguments);
  EXPECT_EQ(stream.tool_calls[1]["function"]["name"], "get_time");
  EXPECT_EQ(stream.finish_reason, "tool_calls");
}

TEST(DeepseekToolCallsHttp, V31OpenAiAnswerAndStreamAgree) {
  DeepseekServer v31(ToolCallSyntax::kDeepSeekV31, kV31Reply);
  httplib::Client client = v31.server.client(kTestApiKey);
  auto whole = client.Post("/v1/chat/completions", deepseek_openai_body(false).dump(), kJsonType);
  auto streamed = client.Post("/v1/chat/completions", deepseek_openai_body(true).dump(), kJsonType);
  ASSERT_EQ(whole->status, 200) << whole->body;
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  const json message = json::parse(whole->body)["choices"][0]["message"];
  const ReasoningStream stream = parse_reasoning_stream(streamed->body);
  EXPECT_EQ(message["content"], "Let me check.");
  EXPECT_EQ(stream.content, "Let me check.");
  ASSERT_EQ(message["tool_calls"].size(), 2u);
  ASSERT_EQ(stream.tool_calls.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(stream.tool_calls[i]["function"], message["tool_calls"][i]["function"]) << i;
  }
  EXPECT_EQ(message["tool_calls"][0]["function"]["arguments"], R"({"city":"Paris","days":3})");
  EXPECT_EQ(stream.finish_reason, "tool_calls");
}

TEST(DeepseekToolCallsHttp, WithoutToolsTheMarkupIsText) {
  DeepseekServer v31(ToolCallSyntax::kDeepSeekV31, kV31Reply);
  auto res = v31.server.client(kTestApiKey).Post("/v1/chat/completions", deepseek_openai_body(false, false).dump(),
                                                 kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  EXPECT_EQ(choice["message"]["content"], kV31Reply);
}

// Cut off before <｜tool▁calls▁end｜> (max_tokens, say): the section comes back as text.
TEST(DeepseekToolCallsHttp, AnUnterminatedSectionIsText) {
  const std::string cut = std::string(kV31Reply).substr(0, std::string(kV31Reply).size() - 10);
  DeepseekServer v31(ToolCallSyntax::kDeepSeekV31, cut);
  for (bool stream : {false, true}) {
    auto res = v31.server.client(kTestApiKey).Post("/v1/chat/completions", deepseek_openai_body(stream).dump(),
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
      EXPECT_EQ(choice["finish_reason"], "stop");
    }
  }
}

TEST(DeepseekToolCallsHttp, R1AnthropicAnswerCarriesThinkingTextAndTwoToolUses) {
  DeepseekServer r1(ToolCallSyntax::kDeepSeekR1, kR1Reply);
  auto res = r1.server.client(kTestApiKey).Post("/v1/messages", deepseek_anthropic_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json body = json::parse(res->body);
  EXPECT_EQ(body["stop_reason"], "tool_use");
  ASSERT_EQ(body["content"].size(), 4u) << body;
  EXPECT_EQ(body["content"][0]["type"], "thinking");
  EXPECT_EQ(body["content"][1], json({{"type", "text"}, {"text", "Let me check."}}));
  EXPECT_EQ(body["content"][2]["type"], "tool_use");
  EXPECT_EQ(body["content"][2]["name"], "get_weather");
  EXPECT_EQ(body["content"][2]["input"], kWeatherArguments);
  EXPECT_EQ(body["content"][3]["name"], "get_time");
  EXPECT_EQ(body["content"][3]["input"], json({{"zone", "CET"}}));
}

TEST(DeepseekToolCallsHttp, V31AnthropicStreamSendsTwoToolUseBlocks) {
  DeepseekServer v31(ToolCallSyntax::kDeepSeekV31, kV31Reply);
  auto res = v31.server.client(kTestApiKey).Post("/v1/messages", deepseek_anthropic_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const SseStream sse = parse_sse(res->body);
  std::string text, stop_reason;
  std::vector<std::string> block_types, inputs;
  for (size_t i = 0; i < sse.events.size(); ++i) {
    const json data = json::parse(sse.data[i]);
    if (sse.events[i] == "content_block_start") block_types.push_back(data["content_block"]["type"]);
    if (sse.events[i] == "message_delta") stop_reason = data["delta"]["stop_reason"];
    if (sse.events[i] != "content_block_delta") continue;
    if (data["delta"]["type"] == "text_delta") text += data["delta"]["text"].get<std::string>();
    if (data["delta"]["type"] == "input_json_delta") inputs.push_back(data["delta"]["partial_json"]);
  }
  EXPECT_EQ(block_types, (std::vector<std::string>{"text", "tool_use", "tool_use"}));
  EXPECT_EQ(text, "Let me check.");
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(json::parse(inputs[0]), kWeatherArguments);
  EXPECT_EQ(json::parse(inputs[1]), json({{"zone", "CET"}}));
  EXPECT_EQ(stop_reason, "tool_use");
}

}  // namespace
}  // namespace strata::server
