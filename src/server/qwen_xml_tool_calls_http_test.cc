// Qwen3-Coder's and Qwen3.5's replies end to end: a FakeEngine scripted to answer as Qwen3-Coder
// does (text, then `<tool_call>` blocks of `<function=NAME>` with `<parameter=KEY>` values) or as
// Qwen3.5 does (a `<think>` block first), a model text that says it writes that syntax, over both
// APIs, streamed (one byte per token, so the tags arrive split) and not. Argument values are
// text in the reply and come out typed by the tools' schemas.
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

constexpr const char* kCoderReply =
    "Let me check.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n</function>\n</tool_call>\n"
    "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\n"
    "if a < b:\n    print(\"hi\")\n\n</parameter>\n</function>\n</tool_call>";

constexpr const char* kQwen35Reply =
    "<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n<function=get_weather>\n"
    "<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";

const json kQwenWeatherArguments = {{"city", "Paris"}, {"days", 3}, {"metric", true}};
const json kQwenWriteArguments = {{"path", "a.py"}, {"content", "if a < b:\n    print(\"hi\")\n"}};

// A server whose model text writes Qwen3-Coder's tool calls (set before the model is published).
struct QwenXmlServer {
  explicit QwenXmlServer(std::string reply = kCoderReply)
      : server(test_config(), testing::engine_with_reply(std::move(reply)), {}, /*publish=*/false) {
    server.text().tool_syntax = ToolCallSyntax::kXmlParams;
    server.publish();
  }
  TestServer server;
};

constexpr const char* kQwenWeatherSchema = R"({"type": "object", "properties": {"city": {"type": "string"},
    "days": {"type": "integer"}, "metric": {"type": "boolean"}}})";
constexpr const char* kQwenWriteSchema = R"({"type": "object", "properties": {"path": {"type": "string"},
    "content": {"type": "string"}}})";

json qwen_xml_openai_body(bool stream, bool tools = true) {
  json body = {{"model", "m"}, {"max_tokens", 400}, {"messages", {{{"role", "user"}, {"content", "Weather?"}}}}};
  body["tools"] = {{{"type", "function"}, {"function", {{"name", "get_weather"}, {"parameters", json::parse(kQwenWeatherSchema)}}}},
                   {{"type", "function"}, {"function", {{"name", "write_file"}, {"parameters", json::parse(kQwenWriteSchema)}}}}};
  if (stream) body["stream"] = true;
  if (!tools) body.erase("tools");
  return body;
}

json qwen_xml_anthropic_body(bool stream) {
  json body = {{"model", "m"}, {"max_tokens", 400}, {"messages", {{{"role", "user"}, {"content", "Weather?"}}}}};
  body["tools"] = {{{"name", "get_weather"}, {"input_schema", json::parse(kQwenWeatherSchema)}},
                   {{"name", "write_file"}, {"input_schema", json::parse(kQwenWriteSchema)}}};
  if (stream) body["stream"] = true;
  return body;
}

TEST(QwenXmlToolCallsHttp, OpenAiAnswerHasTheTextAndBothCallsWithTypedArguments) {
  QwenXmlServer qwen;
  auto res = qwen.server.client(kTestApiKey).Post("/v1/chat/completions", qwen_xml_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["content"], "Let me check.");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 2u);
  const json& weather = choice["message"]["tool_calls"][0]["function"];
  EXPECT_EQ(weather["name"], "get_weather");
  EXPECT_EQ(weather["arguments"], R"({"city":"Paris","days":3,"metric":true})");  // a JSON object's text
  EXPECT_EQ(choice["message"]["tool_calls"][1]["function"]["name"], "write_file");
  EXPECT_EQ(json::parse(choice["message"]["tool_calls"][1]["function"]["arguments"].get<std::string>()),
            kQwenWriteArguments);
}

TEST(QwenXmlToolCallsHttp, OpenAiStreamSendsTheTextThenEachCallWhole) {
  QwenXmlServer qwen;
  auto res = qwen.server.client(kTestApiKey).Post("/v1/chat/completions", qwen_xml_openai_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const ReasoningStream stream = parse_reasoning_stream(res->body);
  EXPECT_EQ(stream.content, "Let me check.");  // no byte of the tags leaked
  ASSERT_EQ(stream.tool_calls.size(), 2u);
  EXPECT_EQ(stream.tool_calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(stream.tool_calls[0]["function"]["arguments"].get<std::string>()), kQwenWeatherArguments);
  EXPECT_EQ(json::parse(stream.tool_calls[1]["function"]["arguments"].get<std::string>()), kQwenWriteArguments);
  EXPECT_EQ(stream.finish_reason, "tool_calls");
}

TEST(QwenXmlToolCallsHttp, Qwen35ReasoningComesApartFromItsCall) {
  QwenXmlServer qwen(kQwen35Reply);
  auto res = qwen.server.client(kTestApiKey).Post("/v1/chat/completions", qwen_xml_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json message = json::parse(res->body)["choices"][0]["message"];
  EXPECT_EQ(message["reasoning_content"], "\nThe user wants the weather.\n");
  EXPECT_EQ(message["content"], nullptr);
  ASSERT_EQ(message["tool_calls"].size(), 1u);
  EXPECT_EQ(message["tool_calls"][0]["function"]["arguments"], R"({"city":"Paris","days":3})");

  auto streamed = qwen.server.client(kTestApiKey).Post("/v1/chat/completions", qwen_xml_openai_body(true).dump(),
                                                       kJsonType);
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  const ReasoningStream stream = parse_reasoning_stream(streamed->body);
  EXPECT_EQ(stream.reasoning, "\nThe user wants the weather.\n");
  EXPECT_EQ(stream.content, "");
  ASSERT_EQ(stream.tool_calls.size(), 1u);
  EXPECT_EQ(stream.tool_calls[0]["function"]["arguments"], R"({"city":"Paris","days":3})");
}

TEST(QwenXmlToolCallsHttp, OpenAiWithoutToolsLeavesTheCallsAsText) {
  QwenXmlServer qwen;
  auto res = qwen.server.client(kTestApiKey).Post("/v1/chat/completions", qwen_xml_openai_body(false, false).dump(),
                                                  kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  EXPECT_EQ(choice["message"]["content"], kCoderReply);
}

// Cut off inside its call (max_tokens, say): the reply comes back as text, streamed or not.
TEST(QwenXmlToolCallsHttp, ACallCutOffIsText) {
  const std::string cut = std::string(kQwen35Reply).substr(std::string(kQwen35Reply).find("<tool_call>"), 60);
  QwenXmlServer qwen(cut);
  auto res = qwen.server.client(kTestApiKey).Post("/v1/chat/completions", qwen_xml_openai_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["message"]["content"], cut);
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  EXPECT_EQ(choice["finish_reason"], "stop");

  auto streamed = qwen.server.client(kTestApiKey).Post("/v1/chat/completions", qwen_xml_openai_body(true).dump(),
                                                       kJsonType);
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  const ReasoningStream stream = parse_reasoning_stream(streamed->body);
  EXPECT_EQ(stream.content, cut);
  EXPECT_TRUE(stream.tool_calls.empty());
  EXPECT_EQ(stream.finish_reason, "stop");
}

// A forced call is constrained to the JSON <tool_call> form (output_constraint.h), which this
// syntax reads back as a call.
TEST(QwenXmlToolCallsHttp, AForcedCallIsConstrainedAndItsJsonBlockReadBack) {
  QwenXmlServer qwen("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>");
  json body = qwen_xml_openai_body(false);
  body["tool_choice"] = {{"type", "function"}, {"function", {{"name", "get_weather"}}}};
  auto res = qwen.server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  ASSERT_EQ(qwen.server.engine().submitted().size(), 1u);
  EXPECT_NE(qwen.server.engine().submitted()[0].constraint, nullptr);
  const json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u);
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["arguments"], R"({"city":"Paris","days":3})");
}

TEST(QwenXmlToolCallsHttp, AnthropicAnswerCarriesTextAndToolUsesWithObjectInputs) {
  QwenXmlServer qwen;
  auto res = qwen.server.client(kTestApiKey).Post("/v1/messages", qwen_xml_anthropic_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const json body = json::parse(res->body);
  EXPECT_EQ(body["stop_reason"], "tool_use");
  ASSERT_EQ(body["content"].size(), 3u) << body;
  EXPECT_EQ(body["content"][0], json({{"type", "text"}, {"text", "Let me check."}}));
  EXPECT_EQ(body["content"][1]["type"], "tool_use");
  EXPECT_EQ(body["content"][1]["name"], "get_weather");
  EXPECT_EQ(body["content"][1]["input"], kQwenWeatherArguments);
  EXPECT_EQ(body["content"][2]["name"], "write_file");
  EXPECT_EQ(body["content"][2]["input"], kQwenWriteArguments);
}

TEST(QwenXmlToolCallsHttp, AnthropicStreamSendsATextBlockThenTwoToolUseBlocks) {
  QwenXmlServer qwen;
  auto res = qwen.server.client(kTestApiKey).Post("/v1/messages", qwen_xml_anthropic_body(true).dump(), kJsonType);
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
  EXPECT_EQ(json::parse(inputs[0]), kQwenWeatherArguments);
  EXPECT_EQ(json::parse(inputs[1]), kQwenWriteArguments);
  EXPECT_EQ(stop_reason, "tool_use");
}

}  // namespace
}  // namespace strata::server
