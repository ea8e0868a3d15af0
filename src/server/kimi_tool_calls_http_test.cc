// Kimi K2's replies end to end: a FakeEngine scripted to answer as Kimi-K2-Thinking does after its
// "<|im_assistant|>assistant<|im_middle|>" (a "<think>" block, text, then a
// <|tool_calls_section_begin|> section of two calls), a model text that says it writes that
// syntax, over both APIs, streamed (one byte per token, so the tags arrive split) and not. Clients
// get Strata's call ids ("call_...", "toolu_..."), not the model's `functions.NAME:INDEX`
// (tool_call_kimi.h).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/testing/scripted_calls.h"
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

constexpr const char* kKimiReply =
    "<think>The user wants the weather.</think>Let me check.<|tool_calls_section_begin|><|tool_call_begin|>"
    "functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\", \"days\": 3}<|tool_call_end|>"
    "<|tool_call_begin|>functions.plan:1<|tool_call_argument_begin|>{\"steps\": [{\"go\": true}], \"at\": null}"
    "<|tool_call_end|><|tool_calls_section_end|>";

const json kKimiWeatherArguments = {{"city", "Paris"}, {"days", 3}};
const json kKimiPlanArguments = json::parse(R"({"steps": [{"go": true}], "at": null})");

// A server whose model text writes Kimi K2's tool calls (set before the model is published).
struct KimiServer {
  explicit KimiServer(std::string reply)
      : server(test_config(), testing::engine_with_reply(std::move(reply)), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kKimiK2;
    server.publish();
  }
  TestServer server;
};

json kimi_openai_body(bool stream, bool tools = true) {
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
      {"type": "function", "function": {"name": "plan", "parameters": {"type": "object"}}}]})");
  if (stream) body["stream"] = true;
  if (!tools) body.erase("tools");
  return body;
}

json kimi_anthropic_body(bool stream) {
  json body = json::parse(R"({"model": "m", "max_tokens": 400, "messages": [
      {"role": "user", "content": "Weather in Paris, and a plan?"}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object"}},
      {"name": "plan", "input_schema": {"type": "object"}}]})");
  if (stream) body["stream"] = true;
  return body;
}

TEST(KimiToolCallsHttp, OpenAiAnswerSplitsReasoningTextAndBothCallsWithStrataIds) {
  KimiServer kimi(kKimiReply);
  auto res = kimi.server.client(kTestApiKey).Post("/v1/chat/completions", kimi_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"], "The user wants the weather.");
  EXPECT_EQ(choice["message"]["content"], "Let me check.");
  const json& calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  testing::expect_weather_then_plan(calls, R"({"steps":[{"go":true}],"at":null})");
  for (const json& call : calls) EXPECT_TRUE(call["id"].get<std::string>().starts_with("call_")) << call;
  EXPECT_NE(calls[0]["id"], calls[1]["id"]);
}

TEST(KimiToolCallsHttp, OpenAiStreamSendsReasoningTextThenTwoToolCallDeltasAgreeingWithTheAnswer) {
  KimiServer kimi(kKimiReply);
  httplib::Client client = kimi.server.client(kTestApiKey);
  auto streamed = client.Post("/v1/chat/completions", kimi_openai_body(true).dump(), kJsonType);
  auto whole = client.Post("/v1/chat/completions", kimi_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  ASSERT_EQ(whole->status, 200) << whole->body;
  const ReasoningStream stream = parse_reasoning_stream(streamed->body);
  EXPECT_EQ(stream.reasoning, "The user wants the weather.");
  EXPECT_EQ(stream.content, "Let me check.");  // no byte of the markup leaked
  ASSERT_EQ(stream.tool_calls.size(), 2u);
  const json message = json::parse(whole->body)["choices"][0]["message"];
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(stream.tool_calls[i]["function"], message["tool_calls"][i]["function"]) << i;
    EXPECT_TRUE(stream.tool_calls[i]["id"].get<std::string>().starts_with("call_")) << i;
  }
  EXPECT_EQ(json::parse(stream.tool_calls[1]["function"]["arguments"].get<std::string>()), kKimiPlanArguments);
  EXPECT_EQ(stream.finish_reason, "tool_calls");
}

TEST(KimiToolCallsHttp, WithoutToolsTheMarkupIsText) {
  KimiServer kimi(kKimiReply);
  auto res = kimi.server.client(kTestApiKey).Post("/v1/chat/completions", kimi_openai_body(false, false).dump(),
                                                  kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  const std::string reply = kKimiReply;
  EXPECT_EQ(choice["message"]["content"], reply.substr(reply.find("Let me check.")));
}

// Cut off before <|tool_calls_section_end|> (max_tokens, say): the section comes back as text.
TEST(KimiToolCallsHttp, AnUnterminatedSectionIsText) {
  const std::string reply = kKimiReply;
  const std::string cut = reply.substr(0, reply.size() - 12);
  const std::string text = cut.substr(cut.find("Let me check."));
  KimiServer kimi(cut);
  for (bool stream : {false, true}) {
    auto res = kimi.server.client(kTestApiKey).Post("/v1/chat/completions", kimi_openai_body(stream).dump(),
                                                    kJsonType);
    ASSERT_EQ(res->status, 200) << res->body;
    if (stream) {
      const ReasoningStream s = parse_reasoning_stream(res->body);
      EXPECT_TRUE(s.tool_calls.empty());
      EXPECT_EQ(s.content, text);
      EXPECT_EQ(s.finish_reason, "stop");
    } else {
      const json choice = json::parse(res->body)["choices"][0];
      EXPECT_FALSE(choice["message"].contains("tool_calls"));
      EXPECT_EQ(choice["message"]["content"], text);
      EXPECT_EQ(choice["finish_reason"], "stop");
    }
  }
}

// A forced call is constrained to a JSON <tool_call> block (output_constraint.h); a Kimi model's
// reply of that form is a call too.
TEST(KimiToolCallsHttp, AForcedCallsJsonBlockIsAToolCall) {
  KimiServer kimi("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n"
                  "</tool_call>");
  json body = kimi_openai_body(false);
  body["tool_choice"] = "required";
  auto res = kimi.server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u);
  EXPECT_EQ(json::parse(choice["message"]["tool_calls"][0]["function"]["arguments"].get<std::string>()),
            kKimiWeatherArguments);
}

// K2-Thinking may call a tool from inside its reasoning without closing it: the call still comes
// back as a call, the reasoning before it as reasoning (reasoning_splitter.h).
TEST(KimiToolCallsHttp, ACallStraightFromAReasoningNeverClosedIsACall) {
  const std::string reply = kKimiReply;
  KimiServer kimi("<think>Need the weather." + reply.substr(reply.find("<|tool_calls_section_begin|>")));
  for (bool stream : {false, true}) {
    auto res = kimi.server.client(kTestApiKey).Post("/v1/chat/completions", kimi_openai_body(stream).dump(),
                                                    kJsonType);
    ASSERT_EQ(res->status, 200) << res->body;
    json message = stream ? json::object() : json::parse(res->body)["choices"][0]["message"];
    if (stream) {
      const ReasoningStream s = parse_reasoning_stream(res->body);
      message = {{"reasoning_content", s.reasoning}, {"content", s.content}, {"tool_calls", s.tool_calls}};
    }
    EXPECT_EQ(message["reasoning_content"], "Need the weather.") << stream;
    EXPECT_TRUE(message["content"].is_null() || message["content"] == "") << message;
    ASSERT_EQ(message["tool_calls"].size(), 2u) << stream;
    EXPECT_EQ(message["tool_calls"][1]["function"]["name"], "plan") << stream;
  }
}

TEST(KimiToolCallsHttp, AnthropicAnswerCarriesThinkingTextAndTwoToolUsesWithStrataIds) {
  KimiServer kimi(kKimiReply);
  auto res = kimi.server.client(kTestApiKey).Post("/v1/messages", kimi_anthropic_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json body = json::parse(res->body);
  EXPECT_EQ(body["stop_reason"], "tool_use");
  ASSERT_EQ(body["content"].size(), 4u) << body;
  EXPECT_EQ(body["content"][0]["type"], "thinking");
  EXPECT_EQ(body["content"][0]["thinking"], "The user wants the weather.");
  EXPECT_EQ(body["content"][1], json({{"type", "text"}, {"text", "Let me check."}}));
  EXPECT_EQ(body["content"][2]["type"], "tool_use");
  EXPECT_EQ(body["content"][2]["name"], "get_weather");
  EXPECT_EQ(body["content"][2]["input"], kKimiWeatherArguments);
  EXPECT_EQ(body["content"][3]["name"], "plan");
  EXPECT_EQ(body["content"][3]["input"], kKimiPlanArguments);
  for (size_t i : {2u, 3u}) {
    EXPECT_TRUE(body["content"][i]["id"].get<std::string>().starts_with("toolu_")) << body["content"][i];
  }
}

TEST(KimiToolCallsHttp, AnthropicStreamSendsThinkingTextAndTwoToolUseBlocks) {
  KimiServer kimi(kKimiReply);
  auto res = kimi.server.client(kTestApiKey).Post("/v1/messages", kimi_anthropic_body(true).dump(), kJsonType);
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
  EXPECT_EQ(json::parse(inputs[0]), kKimiWeatherArguments);
  EXPECT_EQ(json::parse(inputs[1]), kKimiPlanArguments);
  EXPECT_EQ(stop_reason, "tool_use");
}

}  // namespace
}  // namespace strata::server
