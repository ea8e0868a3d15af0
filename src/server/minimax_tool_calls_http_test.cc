// MiniMax-M2's replies end to end: a FakeEngine scripted to answer as MiniMax-M2 does after its
// generation prompt "]~b]ai\n<think>\n" (reasoning without an opening tag, "</think>", text, then a
// `<minimax:tool_call>` block of `<invoke name="NAME">` with `<parameter name="KEY">` values), a
// model text that says it writes that syntax and whose prompts end inside <think>, over both
// APIs, streamed (one byte per token, so the tags arrive split) and not. Argument values are text
// in the reply and come out typed by the tools' schemas.
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

constexpr const char* kMiniMaxReasoning = "The user wants the weather.\n";
constexpr const char* kMiniMaxReply =
    "The user wants the weather.\n</think>\n\nLet me check.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n"
    "<parameter name=\"location\">San Francisco, CA</parameter>\n<parameter name=\"days\">3</parameter>\n"
    "<parameter name=\"metric\">true</parameter>\n</invoke>\n<invoke name=\"write_file\">\n"
    "<parameter name=\"path\">a.py</parameter>\n<parameter name=\"content\">\nif a < b:\n    print(\"hi\")\n"
    "</parameter>\n</invoke>\n</minimax:tool_call>";

const json kMiniMaxWeatherArguments = {{"location", "San Francisco, CA"}, {"days", 3}, {"metric", true}};
const json kMiniMaxWriteArguments = {{"path", "a.py"}, {"content", "if a < b:\n    print(\"hi\")"}};

// A server whose model text writes MiniMax-M2's tool calls and whose chat prompts end as
// MiniMax-M2's generation prompt does, inside <think> (set before the model is published).
struct MiniMaxServer {
  explicit MiniMaxServer(std::string reply = kMiniMaxReply)
      : server(test_config(), testing::engine_with_reply(std::move(reply)), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kMiniMaxM2;
    server.text().prompt_suffix = "]~b]ai\n<think>\n";
    server.publish();
  }
  TestServer server;
};

constexpr const char* kMiniMaxWeatherSchema = R"({"type": "object", "properties": {"location": {"type": "string"},
    "days": {"type": "integer"}, "metric": {"type": "boolean"}}})";
constexpr const char* kMiniMaxWriteSchema = R"({"type": "object", "properties": {"path": {"type": "string"},
    "content": {"type": "string"}}})";

json minimax_openai_body(bool stream, bool tools = true) {
  json body = {{"model", "m"}, {"max_tokens", 1000}, {"messages", {{{"role", "user"}, {"content", "Weather?"}}}}};
  body["tools"] = {
      {{"type", "function"}, {"function", {{"name", "get_weather"}, {"parameters", json::parse(kMiniMaxWeatherSchema)}}}},
      {{"type", "function"}, {"function", {{"name", "write_file"}, {"parameters", json::parse(kMiniMaxWriteSchema)}}}}};
  if (stream) body["stream"] = true;
  if (!tools) body.erase("tools");
  return body;
}

json minimax_anthropic_body(bool stream) {
  json body = {{"model", "m"}, {"max_tokens", 1000}, {"messages", {{{"role", "user"}, {"content", "Weather?"}}}}};
  body["tools"] = {{{"name", "get_weather"}, {"input_schema", json::parse(kMiniMaxWeatherSchema)}},
                   {{"name", "write_file"}, {"input_schema", json::parse(kMiniMaxWriteSchema)}}};
  if (stream) body["stream"] = true;
  return body;
}

TEST(MiniMaxToolCallsHttp, OpenAiAnswerHasReasoningTextAndBothCallsWithTypedArguments) {
  MiniMaxServer minimax;
  auto res = minimax.server.client(kTestApiKey).Post("/v1/chat/completions", minimax_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["reasoning_content"], kMiniMaxReasoning);
  EXPECT_EQ(choice["message"]["content"], "Let me check.");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 2u);
  json& weather = choice["message"]["tool_calls"][0]["function"];
  EXPECT_EQ(weather["name"], "get_weather");
  EXPECT_EQ(weather["arguments"], R"({"location":"San Francisco, CA","days":3,"metric":true})");
  EXPECT_EQ(choice["message"]["tool_calls"][1]["function"]["name"], "write_file");
  EXPECT_EQ(json::parse(choice["message"]["tool_calls"][1]["function"]["arguments"].get<std::string>()),
            kMiniMaxWriteArguments);
}

TEST(MiniMaxToolCallsHttp, OpenAiStreamSendsReasoningThenTextThenEachCallWhole) {
  MiniMaxServer minimax;
  auto res = minimax.server.client(kTestApiKey).Post("/v1/chat/completions", minimax_openai_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const ReasoningStream stream = parse_reasoning_stream(res->body);
  EXPECT_EQ(stream.reasoning, kMiniMaxReasoning);
  EXPECT_FALSE(stream.reasoning_after_content);
  EXPECT_EQ(stream.content, "Let me check.");  // no byte of the tags leaked
  ASSERT_EQ(stream.tool_calls.size(), 2u);
  EXPECT_EQ(stream.tool_calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(stream.tool_calls[0]["function"]["arguments"].get<std::string>()), kMiniMaxWeatherArguments);
  EXPECT_EQ(json::parse(stream.tool_calls[1]["function"]["arguments"].get<std::string>()), kMiniMaxWriteArguments);
  EXPECT_EQ(stream.finish_reason, "tool_calls");
}

TEST(MiniMaxToolCallsHttp, OpenAiWithoutToolsLeavesTheCallsAsText) {
  MiniMaxServer minimax;
  auto res = minimax.server.client(kTestApiKey).Post("/v1/chat/completions", minimax_openai_body(false, false).dump(),
                                                     kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  EXPECT_EQ(choice["message"]["reasoning_content"], kMiniMaxReasoning);
  const std::string reply = kMiniMaxReply;
  EXPECT_EQ(choice["message"]["content"], reply.substr(reply.find("Let me check.")));
}

// Cut off inside its call (max_tokens, say): the answer after the reasoning comes back as text,
// streamed or not.
TEST(MiniMaxToolCallsHttp, ACallCutOffIsText) {
  const std::string reply = kMiniMaxReply;
  const std::string cut = reply.substr(0, reply.find("</invoke>"));
  const std::string answer = cut.substr(cut.find("Let me check."));
  MiniMaxServer minimax(cut);
  auto res = minimax.server.client(kTestApiKey).Post("/v1/chat/completions", minimax_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["message"]["content"], answer);
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  EXPECT_EQ(choice["finish_reason"], "stop");

  auto streamed = minimax.server.client(kTestApiKey).Post("/v1/chat/completions", minimax_openai_body(true).dump(),
                                                          kJsonType);
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  const ReasoningStream stream = parse_reasoning_stream(streamed->body);
  EXPECT_EQ(stream.reasoning, kMiniMaxReasoning);
  EXPECT_EQ(stream.content, answer);
  EXPECT_TRUE(stream.tool_calls.empty());
  EXPECT_EQ(stream.finish_reason, "stop");
}

// A forced call is constrained to the JSON <tool_call> form (output_constraint.h), which this
// syntax reads back as a call; thinking is switched off for it, so the prompt closes the <think>
// it opened (as the server does for MiniMax-M2's template: minimax_render_test.cc) and the reply
// is answer, not reasoning.
TEST(MiniMaxToolCallsHttp, AForcedCallIsConstrainedAndItsJsonBlockReadBack) {
  MiniMaxServer minimax("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\", \"days\": 3}}\n"
                        "</tool_call>");
  json body = minimax_openai_body(false);
  body["tool_choice"] = {{"type", "function"}, {"function", {{"name", "get_weather"}}}};
  auto res = minimax.server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  ASSERT_EQ(minimax.server.engine().submitted().size(), 1u);
  EXPECT_NE(minimax.server.engine().submitted()[0].constraint, nullptr);
  json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_FALSE(choice["message"].contains("reasoning_content"));
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u);
  EXPECT_EQ(json::parse(choice["message"]["tool_calls"][0]["function"]["arguments"].get<std::string>()),
            json({{"location", "Paris"}, {"days", 3}}));
}

TEST(MiniMaxToolCallsHttp, AnthropicAnswerCarriesThinkingTextAndToolUsesWithObjectInputs) {
  MiniMaxServer minimax;
  auto res = minimax.server.client(kTestApiKey).Post("/v1/messages", minimax_anthropic_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json body = json::parse(res->body);
  EXPECT_EQ(body["stop_reason"], "tool_use");
  ASSERT_EQ(body["content"].size(), 4u) << body;
  EXPECT_EQ(body["content"][0]["type"], "thinking");
  EXPECT_EQ(body["content"][0]["thinking"], kMiniMaxReasoning);
  EXPECT_EQ(body["content"][1], json({{"type", "text"}, {"text", "Let me check."}}));
  EXPECT_EQ(body["content"][2]["type"], "tool_use");
  EXPECT_EQ(body["content"][2]["name"], "get_weather");
  EXPECT_EQ(body["content"][2]["input"], kMiniMaxWeatherArguments);
  EXPECT_EQ(body["content"][3]["name"], "write_file");
  EXPECT_EQ(body["content"][3]["input"], kMiniMaxWriteArguments);
}

TEST(MiniMaxToolCallsHttp, AnthropicStreamSendsThinkingTextThenTwoToolUseBlocks) {
  MiniMaxServer minimax;
  auto res = minimax.server.client(kTestApiKey).Post("/v1/messages", minimax_anthropic_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const SseStream sse = parse_sse(res->body);
  std::string thinking, text, stop_reason;
  std::vector<std::string> block_types, inputs;
  for (size_t i = 0; i < sse.events.size(); ++i) {
    json data = json::parse(sse.data[i]);
    if (sse.events[i] == "content_block_start") block_types.push_back(data["content_block"]["type"]);
    if (sse.events[i] == "message_delta") stop_reason = data["delta"]["stop_reason"];
    if (sse.events[i] != "content_block_delta") continue;
    if (data["delta"]["type"] == "thinking_delta") thinking += data["delta"]["thinking"].get<std::string>();
    if (data["delta"]["type"] == "text_delta") text += data["delta"]["text"].get<std::string>();
    if (data["delta"]["type"] == "input_json_delta") inputs.push_back(data["delta"]["partial_json"]);
  }
  EXPECT_EQ(block_types, (std::vector<std::string>{"thinking", "text", "tool_use", "tool_use"}));
  EXPECT_EQ(thinking, kMiniMaxReasoning);
  EXPECT_EQ(text, "Let me check.");
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(json::parse(inputs[0]), kMiniMaxWeatherArguments);
  EXPECT_EQ(json::parse(inputs[1]), kMiniMaxWriteArguments);
  EXPECT_EQ(stop_reason, "tool_use");
}

}  // namespace
}  // namespace strata::server
