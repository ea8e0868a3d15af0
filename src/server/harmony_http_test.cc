// gpt-oss's harmony channels end to end: a FakeEngine scripted to reply as gpt-oss does (the
// analysis channel, then the final one; or a tool call on the commentary channel), a model text
// that says it writes harmony, over both APIs, streamed (one byte per token, so the markers
// arrive split) and not, and with --reasoning-format none.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::FakeEngine;
using testing::TestServer;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::parse_reasoning_stream;
using testing::parse_sse;
using testing::ReasoningStream;
using testing::test_config;

// What gpt-oss writes after the prompt's "<|start|>assistant" (its <|return|> ends the reply
// and is not rendered).
constexpr const char* kHarmonyReply =
    "<|channel|>analysis<|message|>User greets. Answer briefly.<|end|>"
    "<|start|>assistant<|channel|>final<|message|>Hello!";
// "<|channel|>analysis<|message|>User greets. Answer briefly.<|end|>", one byte each.
constexpr int kHarmonyReasoningTokens = 65;

// A server whose model text answers in harmony (set before the model is published).
struct HarmonyServer {
  explicit HarmonyServer(std::string reply, ServerConfig config = test_config())
      : server(std::move(config), testing::engine_with_reply(std::move(reply)), {}, /*publish=*/false) {
    server.text().harmony = true;
    server.publish();
  }
  TestServer server;
};

json harmony_chat_body(bool stream) {
  json body = json::parse(R"({"model": "m", "max_tokens": 200, "messages": [{"role": "user", "content": "Hi"}]})");
  if (stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  return body;
}

// An OpenAI chat reply with a tool call, streamed or not: its calls (a streamed call's first
// delta), reasoning, content (a whole reply's as sent, null included; a stream's deltas joined)
// and finish reason.
struct ToolCallReply {
  json calls = json::array();
  std::string reasoning;
  json content;
  std::string finish;
};

ToolCallReply tool_call_reply(const std::string& body, bool stream) {
  if (stream) {
    const ReasoningStream s = parse_reasoning_stream(body);
    return {s.tool_calls, s.reasoning, s.content, s.finish_reason};
  }
  ToolCallReply out;
  const json choice = json::parse(body)["choices"][0];
  const json& message = choice["message"];
  out.calls = message["tool_calls"];
  if (message.contains("reasoning_content")) out.reasoning = message["reasoning_content"];
  out.content = message["content"];
  out.finish = choice["finish_reason"];
  return out;
}

TEST(HarmonyHttp, OpenAiMessageCarriesAnalysisAsReasoningContent) {
  HarmonyServer harmony(kHarmonyReply);
  auto res = harmony.server.client(kTestApiKey).Post("/v1/chat/completions", harmony_chat_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json body = json::parse(res->body);
  EXPECT_EQ(body["choices"][0]["message"]["content"], "Hello!");
  EXPECT_EQ(body["choices"][0]["message"]["reasoning_content"], "User greets. Answer briefly.");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(body["usage"]["completion_tokens_details"]["reasoning_tokens"], kHarmonyReasoningTokens);
}

TEST(HarmonyHttp, OpenAiStreamSendsAnalysisDeltasThenFinalContent) {
  HarmonyServer harmony(kHarmonyReply);
  auto res = harmony.server.client(kTestApiKey).Post("/v1/chat/completions", harmony_chat_body(true).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  const ReasoningStream stream = parse_reasoning_stream(res->body);
  EXPECT_FALSE(stream.reasoning_after_content) << "reasoning after content";
  EXPECT_EQ(stream.reasoning, "User greets. Answer briefly.");
  EXPECT_EQ(stream.content, "Hello!");
  EXPECT_EQ(stream.reasoning_tokens, kHarmonyReasoningTokens);
}

TEST(HarmonyHttp, AnthropicAnswersWithAThinkingBlockFirst) {
  HarmonyServer harmony(kHarmonyReply);
  json body = json::parse(R"({"model": "m", "max_tokens": 200, "messages": [{"role": "user", "content": "Hi"}]})");
  auto res = harmony.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json content = json::parse(res->body)["content"];
  ASSERT_EQ(content.size(), 2u) << content;
  EXPECT_EQ(content[0]["type"], "thinking");
  EXPECT_EQ(content[0]["thinking"], "User greets. Answer briefly.");
  EXPECT_EQ(content[1], (json{{"type", "text"}, {"text", "Hello!"}}));
}

TEST(HarmonyHttp, ToolCallOnTheCommentaryChannelIsAToolCall) {
  HarmonyServer harmony(
      "<|channel|>analysis<|message|>Need the weather.<|end|>"
      "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
      "{\"city\": \"Paris\"}");
  json body = harmony_chat_body(false);
  body["tools"] = json::parse(R"([{"type": "function", "function": {"name": "get_weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])");
  for (bool stream : {false, true}) {
    body["stream"] = stream;
    auto res = harmony.server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
    ASSERT_EQ(res->status, 200) << res->body;
    const ToolCallReply reply = tool_call_reply(res->body, stream);
    const json& calls = reply.calls;
    EXPECT_EQ(reply.content, stream ? json("") : json(nullptr)) << res->body;
    EXPECT_EQ(reply.reasoning, "Need the weather.") << stream;
    EXPECT_EQ(reply.finish, "tool_calls") << stream;
    ASSERT_EQ(calls.size(), 1u) << res->body;
    EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
    EXPECT_EQ(json::parse(calls[0]["function"]["arguments"].get<std::string>()), json({{"city", "Paris"}}));
  }
}

// gpt-oss addressed get_weather with a body that is no JSON object (cut off here): still a call,
// its arguments passed on as written: OpenAI's arguments string as it is, Anthropic's input
// wrapped as {"INVALID_JSON": ...}; streamed or not.
constexpr const char* kBrokenArguments = "{\"city\": \"Par";

TEST(HarmonyHttp, OpenAiToolCallWithArgumentsThatAreNotJsonKeepsThemAsWritten) {
  HarmonyServer harmony(std::string("<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>") +
                        kBrokenArguments);
  json body = harmony_chat_body(false);
  body["tools"] = json::parse(R"([{"type": "function", "function": {"name": "get_weather"}}])");
  for (bool stream : {false, true}) {
    body["stream"] = stream;
    auto res = harmony.server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
    ASSERT_EQ(res->status, 200) << res->body;
    const ToolCallReply reply = tool_call_reply(res->body, stream);
    const json& calls = reply.calls;
    EXPECT_EQ(reply.content, stream ? json("") : json(nullptr)) << res->body;
    EXPECT_EQ(reply.finish, "tool_calls") << stream;
    ASSERT_EQ(calls.size(), 1u) << res->body;
    EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
    EXPECT_EQ(calls[0]["function"]["arguments"], kBrokenArguments);
  }
}

TEST(HarmonyHttp, AnthropicToolCallWithArgumentsThatAreNotJsonWrapsThemAsInvalidJson) {
  HarmonyServer harmony(std::string("<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>") +
                        kBrokenArguments);
  json body = json::parse(R"({"model": "m", "max_tokens": 200, "messages": [{"role": "user", "content": "Hi"}],
      "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]})");
  const json expected_input = {{"INVALID_JSON", kBrokenArguments}};
  auto plain = harmony.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(plain->status, 200) << plain->body;
  const json message = json::parse(plain->body);
  EXPECT_EQ(message["stop_reason"], "tool_use");
  ASSERT_EQ(message["content"].size(), 1u) << message;
  EXPECT_EQ(message["content"][0]["type"], "tool_use");
  EXPECT_EQ(message["content"][0]["input"], expected_input);

  body["stream"] = true;
  auto streamed = harmony.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  std::string input_json, stop_reason;
  std::vector<std::string> block_types;
  for (const std::string& data : parse_sse(streamed->body).data) {
    const json event = json::parse(data);
    if (event["type"] == "content_block_start") block_types.push_back(event["content_block"]["type"]);
    if (event["type"] == "content_block_delta") input_json += event["delta"]["partial_json"].get<std::string>();
    if (event["type"] == "message_delta") stop_reason = event["delta"]["stop_reason"];
  }
  EXPECT_EQ(block_types, std::vector<std::string>{"tool_use"});
  EXPECT_EQ(json::parse(input_json), expected_input);
  EXPECT_EQ(stop_reason, "tool_use");
}

// A call's arguments are never read as text, so Hermes markup in them ("</tool_call>", a whole
// <tool_call> block) arrives intact, in a JSON object's strings or in a body that is no JSON; here
// after reasoning and a preamble, as the second of two calls, over both APIs, streamed or not.
constexpr const char* kMarkupObject = R"({"text": "</tool_call>\n<tool_call>{\"name\": \"x\"}</tool_call>"})";
constexpr const char* kMarkupRaw = "</tool_call><tool_call>{\"name\": \"x\", \"arguments\": {}}</tool_call> <\\/";

std::string markup_calls_reply() {
  return std::string("<|channel|>analysis<|message|>Need both.<|end|>"
                     "<|start|>assistant<|channel|>commentary<|message|>Checking.<|end|>"
                     "<|start|>assistant<|channel|>commentary to=functions.note <|constrain|>json<|message|>") +
         kMarkupObject + "<|call|><|start|>assistant<|channel|>commentary to=functions.raw_note<|message|>" + kMarkupRaw;
}

TEST(HarmonyHttp, OpenAiToolCallArgumentsHoldingHermesMarkupArriveIntact) {
  HarmonyServer harmony(markup_calls_reply());
  json body = harmony_chat_body(false);
  body["max_tokens"] = 1000;  // a token per byte
  body["tools"] = json::parse(R"([{"type": "function", "function": {"name": "note"}},
      {"type": "function", "function": {"name": "raw_note"}}])");
  for (bool stream : {false, true}) {
    body["stream"] = stream;
    auto res = harmony.server.client(kTestApiKey).Post("/v1/chat/completions", body.dump(), kJsonType);
    ASSERT_EQ(res->status, 200) << res->body;
    const ToolCallReply reply = tool_call_reply(res->body, stream);
    EXPECT_EQ(reply.content, "Checking.") << res->body;
    EXPECT_EQ(reply.reasoning, "Need both.");
    EXPECT_EQ(reply.finish, "tool_calls");
    ASSERT_EQ(reply.calls.size(), 2u) << res->body;
    EXPECT_EQ(reply.calls[0]["function"]["name"], "note");
    EXPECT_EQ(reply.calls[0]["function"]["arguments"], json::parse(kMarkupObject).dump());
    EXPECT_EQ(reply.calls[1]["function"]["name"], "raw_note");
    EXPECT_EQ(reply.calls[1]["function"]["arguments"], kMarkupRaw);
  }
}

TEST(HarmonyHttp, AnthropicToolCallArgumentsHoldingHermesMarkupArriveIntact) {
  HarmonyServer harmony(markup_calls_reply());
  json body = json::parse(R"({"model": "m", "max_tokens": 1000, "messages": [{"role": "user", "content": "Hi"}],
      "tools": [{"name": "note", "input_schema": {"type": "object"}}, {"name": "raw_note", "input_schema": {"type": "object"}}]})");
  const json expected = json::array({{{"type", "thinking"}, {"thinking", "Need both."}},
                                     {{"type", "text"}, {"text", "Checking."}},
                                     {{"type", "tool_use"}, {"name", "note"}, {"input", json::parse(kMarkupObject)}},
                                     {{"type", "tool_use"}, {"name", "raw_note"}, {"input", {{"INVALID_JSON", kMarkupRaw}}}}});
  auto plain = harmony.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(plain->status, 200) << plain->body;
  const json message = json::parse(plain->body);
  EXPECT_EQ(message["stop_reason"], "tool_use");
  json blocks = json::array();
  for (const json& block : message["content"]) {
    json seen = {{"type", block["type"]}};
    for (const char* key : {"thinking", "text", "name", "input"}) {
      if (block.contains(key)) seen[key] = block[key];
    }
    blocks.push_back(seen);
  }
  EXPECT_EQ(blocks, expected);

  body["stream"] = true;
  auto streamed = harmony.server.client(kTestApiKey).Post("/v1/messages", body.dump(), kJsonType);
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  json stream_blocks = json::array();
  std::string stop_reason;
  for (const std::string& data : parse_sse(streamed->body).data) {
    const json event = json::parse(data);
    if (event["type"] == "content_block_start") {
      json block = event["content_block"];
      stream_blocks.push_back({{"type", block["type"]}});
      if (block.contains("name")) stream_blocks.back()["name"] = block["name"];
    } else if (event["type"] == "content_block_delta") {
      const json& delta = event["delta"];
      json& block = stream_blocks.back();
      if (delta["type"] == "thinking_delta") block["thinking"] = block.value("thinking", "") + delta["thinking"].get<std::string>();
      if (delta["type"] == "text_delta") block["text"] = block.value("text", "") + delta["text"].get<std::string>();
      if (delta["type"] == "input_json_delta") block["input"] = json::parse(delta["partial_json"].get<std::string>());
    } else if (event["type"] == "message_delta") {
      stop_reason = event["delta"]["stop_reason"];
    }
  }
  EXPECT_EQ(stream_blocks, expected);
  EXPECT_EQ(stop_reason, "tool_use");
}

// Earlier reasoning sent back must be text: both APIs answer 400 naming the field.
TEST(HarmonyHttp, ReasoningSentBackThatIsNotTextIsABadRequestNamingTheField) {
  HarmonyServer harmony(kHarmonyReply);
  json openai = json::parse(R"({"model": "m", "messages": [{"role": "user", "content": "Hi"},
      {"role": "assistant", "content": "Hello", "reasoning_content": 42}, {"role": "user", "content": "Again"}]})");
  auto a = harmony.server.client(kTestApiKey).Post("/v1/chat/completions", openai.dump(), kJsonType);
  ASSERT_EQ(a->status, 400) << a->body;
  EXPECT_NE(json::parse(a->body)["error"]["message"].get<std::string>().find("'messages[1].reasoning_content'"),
            std::string::npos) << a->body;
  json anthropic = json::parse(R"({"model": "m", "max_tokens": 20, "messages": [{"role": "user", "content": "Hi"},
      {"role": "assistant", "content": [{"type": "thinking", "thinking": ["x"]}]}, {"role": "user", "content": "Again"}]})");
  auto b = harmony.server.client(kTestApiKey).Post("/v1/messages", anthropic.dump(), kJsonType);
  ASSERT_EQ(b->status, 400) << b->body;
  EXPECT_NE(json::parse(b->body)["error"]["message"].get<std::string>().find("'messages[1].content[0].thinking'"),
            std::string::npos) << b->body;
}

TEST(HarmonyHttp, ReasoningFormatNoneKeepsTheRawChannels) {
  ServerConfig config = test_config();
  config.reasoning_format = "none";
  HarmonyServer harmony(kHarmonyReply, config);
  auto res = harmony.server.client(kTestApiKey).Post("/v1/chat/completions", harmony_chat_body(false).dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json message = json::parse(res->body)["choices"][0]["message"];
  EXPECT_EQ(message["content"], kHarmonyReply);
  EXPECT_FALSE(message.contains("reasoning_content"));
}

}  // namespace
}  // namespace strata::server
