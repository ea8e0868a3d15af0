// Tool calling end to end: a FakeEngine scripted to answer with a tool call, over both APIs,
// with and without streaming (the fake engine sends one byte per token, so tags arrive split).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::FakeEngine;
using testing::FakeModelText;
using testing::SseStream;
using testing::engine_with_reply;
using testing::TestServer;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::parse_sse;
using testing::test_config;

constexpr const char* kToolReply =
    "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";

FakeEngine::Options tool_engine() { return engine_with_reply(kToolReply); }

json openai_body() {
  return json::parse(R"({"model": "m", "max_tokens": 200, "messages": [
      {"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]})");
}

json anthropic_body() {
  return json::parse(R"({"model": "m", "max_tokens": 200, "messages": [
      {"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"name": "get_weather", "description": "Weather for a city",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]})");
}

std::string prompt_text(TestServer& server) {
  return FakeModelText().detokenize(server.engine().submitted().at(0).prompt_tokens);
}

TEST(ToolCallsHttp, OpenAiAnswerCarriesToolCalls) {
  TestServer server(test_config(), tool_engine());
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", openai_body().dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["content"], "Let me check.");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u);
  const json& call = choice["message"]["tool_calls"][0];
  EXPECT_EQ(call["type"], "function");
  EXPECT_EQ(call["id"].get<std::string>().rfind("call_", 0), 0u);
  EXPECT_EQ(call["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(call["function"]["arguments"].get<std::string>()), json({{"city", "Paris"}}));
  // The fake model writes the tools into the prompt the way ChatML models get them.
  EXPECT_NE(prompt_text(server).find("<tools>\n{\"function\":{\"name\":\"get_weather\""), std::string::npos);
}

TEST(ToolCallsHttp, OpenAiWithoutToolsLeavesTheTextAlone) {
  TestServer server(test_config(), tool_engine());
  json body = openai_body();
  body["tool_choice"] = "none";
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json choice = json::parse(res->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_EQ(choice["message"]["content"], kToolReply);
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  EXPECT_EQ(prompt_text(server).find("<tools>"), std::string::npos);
}

TEST(ToolCallsHttp, OpenAiStreamSendsTextThenOneToolCallDelta) {
  TestServer server(test_config(), tool_engine());
  json body = openai_body();
  body["stream"] = true;
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  SseStream sse = parse_sse(res->body);
  ASSERT_GE(sse.data.size(), 3u);
  EXPECT_EQ(sse.data.back(), "[DONE]");
  std::string content;
  std::vector<json> calls;
  std::string finish;
  for (size_t i = 0; i + 1 < sse.data.size(); ++i) {
    json choice = json::parse(sse.data[i])["choices"][0];
    const json& delta = choice["delta"];
    if (delta.contains("content")) content += delta["content"].get<std::string>();
    if (delta.contains("tool_calls")) calls.push_back(delta["tool_calls"][0]);
    if (!choice["finish_reason"].is_null()) finish = choice["finish_reason"];
  }
  EXPECT_EQ(content, "Let me check.");  // nothing of the tag leaked; the newline before it held and dropped
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["index"], 0);
  EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(calls[0]["function"]["arguments"].get<std::string>()), json({{"city", "Paris"}}));
  EXPECT_EQ(finish, "tool_calls");
}

TEST(ToolCallsHttp, OpenAiStreamKeepsOneLogprobPerTokenWhileHoldingText) {
  TestServer server(test_config(), tool_engine());
  json body = openai_body();
  body["stream"] = true;
  body["logprobs"] = true;
  body["stream_options"] = {{"include_usage", true}};
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  SseStream sse = parse_sse(res->body);
  size_t n_logprobs = 0;
  int completion_tokens = -1;
  for (size_t i = 0; i + 1 < sse.data.size(); ++i) {
    json chunk = json::parse(sse.data[i]);
    if (chunk["usage"].is_object()) completion_tokens = chunk["usage"]["completion_tokens"];
    if (chunk["choices"].empty()) continue;
    const json& logprobs = chunk["choices"][0]["logprobs"];
    if (logprobs.is_object()) n_logprobs += logprobs["content"].size();
  }
  EXPECT_EQ(static_cast<int>(n_logprobs), completion_tokens);
}

TEST(ToolCallsHttp, OpenAiToolHistoryReachesThePrompt) {
  TestServer server(test_config(), engine_with_reply("Fine."));
  json body = openai_body();
  body["messages"].push_back(json::parse(R"({"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_1", "type": "function",
       "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]})"));
  body["messages"].push_back(json::parse(R"({"role": "tool", "tool_call_id": "call_1", "content": "sunny"})"));
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const std::string prompt = prompt_text(server);
  EXPECT_NE(prompt.find("assistant: <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}"),
            std::string::npos) << prompt;
  EXPECT_NE(prompt.find("user: <tool_response>\nsunny\n</tool_response>"), std::string::npos) << prompt;
}

TEST(ToolCallsHttp, AnthropicAnswerCarriesToolUse) {
  TestServer server(test_config(), tool_engine());
  auto res = server.client(kTestApiKey).Post("/v1/messages", anthropic_body().dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json body = json::parse(res->body);
  EXPECT_EQ(body["stop_reason"], "tool_use");
  ASSERT_EQ(body["content"].size(), 2u);
  EXPECT_EQ(body["content"][0], json({{"type", "text"}, {"text", "Let me check."}}));
  const json& use = body["content"][1];
  EXPECT_EQ(use["type"], "tool_use");
  EXPECT_EQ(use["id"].get<std::string>().rfind("toolu_", 0), 0u);
  EXPECT_EQ(use["name"], "get_weather");
  EXPECT_EQ(use["input"], json({{"city", "Paris"}}));
}

TEST(ToolCallsHttp, AnthropicStreamSendsATextBlockThenAToolUseBlock) {
  TestServer server(test_config(), tool_engine());
  json body = anthropic_body();
  body["stream"] = true;
  auto res = server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  SseStream sse = parse_sse(res->body);
  ASSERT_EQ(sse.events.size(), sse.data.size());
  std::string text, input_json;
  std::vector<json> starts;
  std::vector<int> stops;
  std::string stop_reason;
  for (size_t i = 0; i < sse.events.size(); ++i) {
    json data = json::parse(sse.data[i]);
    if (sse.events[i] == "content_block_start") starts.push_back(data);
    if (sse.events[i] == "content_block_stop") stops.push_back(data["index"]);
    if (sse.events[i] == "message_delta") stop_reason = data["delta"]["stop_reason"];
    if (sse.events[i] != "content_block_delta") continue;
    if (data["delta"]["type"] == "text_delta") {
      EXPECT_EQ(data["index"], 0);
      text += data["delta"]["text"].get<std::string>();
    } else {
      EXPECT_EQ(data["delta"]["type"], "input_json_delta");
      EXPECT_EQ(data["index"], 1);
      input_json += data["delta"]["partial_json"].get<std::string>();
    }
  }
  EXPECT_EQ(text, "Let me check.");
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[0]["content_block"]["type"], "text");
  EXPECT_EQ(starts[1]["index"], 1);
  EXPECT_EQ(starts[1]["content_block"]["type"], "tool_use");
  EXPECT_EQ(starts[1]["content_block"]["name"], "get_weather");
  EXPECT_EQ(starts[1]["content_block"]["input"], json::object());
  EXPECT_EQ(json::parse(input_json), json({{"city", "Paris"}}));
  EXPECT_EQ(stops, (std::vector<int>{0, 1}));
  EXPECT_EQ(stop_reason, "tool_use");
  EXPECT_EQ(sse.events.back(), "message_stop");
}

TEST(ToolCallsHttp, AnthropicToolResultHistoryIsAccepted) {
  TestServer server(test_config(), engine_with_reply("Fine."));
  json body = anthropic_body();
  body["messages"].push_back(json::parse(R"({"role": "assistant", "content": [
      {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]})"));
  body["messages"].push_back(json::parse(R"({"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]})"));
  auto res = server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(json::parse(res->body)["stop_reason"], "end_turn");
  EXPECT_NE(prompt_text(server).find("<tool_response>\nsunny\n</tool_response>"), std::string::npos);
}

}  // namespace
}  // namespace strata::server
