#include "server/anthropic_request.h"

#include <gtest/gtest.h>

namespace strata::server {
namespace {

using nlohmann::json;

TEST(AnthropicMessagesRequest, SystemBlocksAndStopSequences) {
  json body = json::parse(R"({
    "model": "claude-whatever", "max_tokens": 64,
    "system": [{"type": "text", "text": "You are "}, {"type": "text", "text": "terse."}],
    "messages": [{"role": "user", "content": "Hi"},
                 {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]},
                 {"role": "user", "content": "Again"}],
    "stop_sequences": ["\n\n"], "temperature": 0.5, "top_k": 5, "top_p": 0.8, "stream": true,
    "metadata": {"user_id": "u"}})");
  Result<CompletionRequest> r = parse_anthropic_messages_request(body);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->prompt.messages.size(), 4u);
  EXPECT_EQ(r->prompt.messages[0].role, "system");
  EXPECT_EQ(r->prompt.messages[0].content, "You are terse.");
  EXPECT_EQ(r->prompt.messages[2].role, "assistant");
  EXPECT_EQ(r->prompt.messages[2].content, "Hello");
  EXPECT_EQ(r->max_tokens, 64);
  EXPECT_EQ(r->generate.stop, std::vector<std::string>{"\n\n"});
  EXPECT_EQ(r->generate.sampling.temperature, 0.5f);
  EXPECT_EQ(r->generate.sampling.top_k, 5);
  EXPECT_EQ(r->generate.sampling.top_p, 0.8f);
  EXPECT_TRUE(r->stream);
}

TEST(AnthropicMessagesRequest, SystemStringAndDefaultTemperature) {
  Result<CompletionRequest> r = parse_anthropic_messages_request(json::parse(
      R"({"max_tokens": 8, "system": "sys", "messages": [{"role": "user", "content": "x"}]})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->prompt.messages[0].content, "sys");
  EXPECT_EQ(r->generate.sampling.temperature, 1.0f);
}

TEST(AnthropicMessagesRequest, RejectsBadBodiesNamingTheField) {
  auto message_of = [](const char* body) {
    return parse_anthropic_messages_request(json::parse(body)).status().message();
  };
  EXPECT_EQ(message_of(R"({"messages": [{"role": "user", "content": "x"}]})"), "'max_tokens' is required");
  EXPECT_NE(message_of(R"({"max_tokens": 5, "messages": []})").find("'messages'"), std::string::npos);
  EXPECT_NE(message_of(R"({"max_tokens": 5, "messages": [{"role": "system", "content": "x"}]})")
                .find("'messages[0].role'"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"max_tokens": 5, "messages": [{"role": "user"}]})").find("'messages[0].content'"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"max_tokens": 5, "temperature": 1.5, "messages": [{"role": "user", "content": "x"}]})")
                .find("'temperature'"),
            std::string::npos);
  Result<CompletionRequest> image = parse_anthropic_messages_request(json::parse(
      R"({"max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "image"}]}]})"));
  EXPECT_EQ(image.status().code(), Code::kUnsupported);
  EXPECT_NE(image.status().message().find("messages[0].content[0]"), std::string::npos);
}

TEST(AnthropicMessagesRequest, ThinkingBlocksBecomeTheTurnsReasoning) {
  Result<CompletionRequest> r = parse_anthropic_messages_request(json::parse(R"({"max_tokens": 5, "messages": [
      {"role": "user", "content": "Hi"},
      {"role": "assistant", "content": [
          {"type": "thinking", "thinking": "First.", "signature": "sig"},
          {"type": "redacted_thinking", "data": "opaque"},
          {"type": "thinking", "thinking": "Second."},
          {"type": "text", "text": "Hello"}]},
      {"role": "assistant", "content": [{"type": "text", "text": "No thoughts"}]},
      {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "opaque"}]}]})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<ChatTurn>& m = r->prompt.messages;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[1].content, "Hello");
  EXPECT_EQ(m[1].reasoning, "First.\n\nSecond.");
  EXPECT_FALSE(m[2].reasoning.has_value());
  EXPECT_FALSE(m[3].reasoning.has_value());  // redacted thinking is another server's ciphertext
  EXPECT_EQ(m[3].content, "");
}

TEST(AnthropicMessagesRequest, RejectsBadThinkingBlocksNamingTheField) {
  auto status_of = [](const char* blocks, const char* role = "assistant") {
    const std::string body = std::string(R"({"max_tokens": 5, "messages": [{"role": ")") + role +
                             R"(", "content": )" + blocks + "}]}";
    return parse_anthropic_messages_request(json::parse(body)).status();
  };
  Status number = status_of(R"([{"type": "thinking", "thinking": 5}])");
  EXPECT_EQ(number.code(), Code::kInvalidArgument);
  EXPECT_NE(number.message().find("'messages[0].content[0].thinking' must be a string"), std::string::npos)
      << number.message();
  Status missing = status_of(R"([{"type": "thinking"}])");
  EXPECT_NE(missing.message().find("'messages[0].content[0].thinking' must be a string"), std::string::npos);
  Status signature = status_of(R"([{"type": "thinking", "thinking": "t", "signature": 1}])");
  EXPECT_NE(signature.message().find("'messages[0].content[0].signature' must be a string"), std::string::npos);
  Status data = status_of(R"([{"type": "text", "text": "a"}, {"type": "redacted_thinking", "data": []}])");
  EXPECT_NE(data.message().find("'messages[0].content[1].data' must be a string"), std::string::npos);
  Status from_user = status_of(R"([{"type": "thinking", "thinking": "t"}])", "user");
  EXPECT_EQ(from_user.code(), Code::kUnsupported);
  EXPECT_NE(from_user.message().find("'messages[0].content[0]'"), std::string::npos);
}

TEST(AnthropicMessagesRequest, ToolsAndToolBlocksReachTheTemplateFields) {
  RequestJson body = RequestJson::parse(R"({"max_tokens": 64,
    "tools": [{"name": "get_weather", "description": "Weather for a city",
               "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
    "tool_choice": {"type": "auto"},
    "messages": [
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
          {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
      {"role": "user", "content": [
          {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
          {"type": "tool_result", "tool_use_id": "toolu_2",
           "content": [{"type": "text", "text": "warm"}]},
          {"type": "text", "text": "And tomorrow?"}]}]})");
  Result<CompletionRequest> r = parse_anthropic_messages_request(body);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->parse_tool_calls);
  ASSERT_EQ(r->prompt.tools.size(), 1u);
  // In OpenAI's form, every key in the client's order (compared as ordered JSON).
  EXPECT_EQ(r->prompt.tools[0], RequestJson::parse(R"({"type": "function", "function": {
      "name": "get_weather", "description": "Weather for a city",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}})"));
  const std::vector<ChatTurn>& m = r->prompt.messages;
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[1].content, "Checking.");
  EXPECT_EQ(m[1].extra["tool_calls"][0], RequestJson::parse(R"({"id": "toolu_1", "type": "function",
      "function": {"name": "get_weather", "arguments": {"city": "Paris"}}})"));
  EXPECT_EQ(m[2].role, "tool");
  EXPECT_EQ(m[2].content, "sunny");
  EXPECT_EQ(m[2].extra["tool_call_id"], "toolu_1");
  EXPECT_EQ(m[3].role, "tool");
  EXPECT_EQ(m[3].content, "warm");
  EXPECT_EQ(m[4].role, "user");
  EXPECT_EQ(m[4].content, "And tomorrow?");
}

TEST(AnthropicMessagesRequest, ToolChoiceNoneWithholdsToolsAndToolNarrowsThem) {
  json body = json::parse(R"({"max_tokens": 8, "messages": [{"role": "user", "content": "x"}],
    "tools": [{"name": "a", "input_schema": {"type": "object"}},
              {"name": "b", "input_schema": {"type": "object"}}]})");
  body["tool_choice"] = {{"type", "none"}};
  Result<CompletionRequest> none = parse_anthropic_messages_request(body);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->prompt.tools.is_null());
  EXPECT_FALSE(none->parse_tool_calls);
  body["tool_choice"] = {{"type", "tool"}, {"name", "b"}};
  Result<CompletionRequest> named = parse_anthropic_messages_request(body);
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  ASSERT_EQ(named->prompt.tools.size(), 1u);
  EXPECT_EQ(named->prompt.tools[0]["function"]["name"], "b");
}

TEST(AnthropicMessagesRequest, RejectsBadToolsNamingTheField) {
  auto status_of = [](const char* extra) {
    json body = json::parse(R"({"max_tokens": 8, "messages": [{"role": "user", "content": "x"}]})");
    body.update(json::parse(extra));
    return parse_anthropic_messages_request(body).status();
  };
  EXPECT_NE(status_of(R"({"tools": [{"name": "a"}]})").message().find("'tools[0].input_schema'"),
            std::string::npos);
  EXPECT_EQ(status_of(R"({"tools": [{"type": "web_search_20250305", "name": "w"}]})").code(),
            Code::kUnsupported);
  EXPECT_NE(status_of(R"({"tool_choice": {"type": "any"}})").message().find("needs 'tools'"),
            std::string::npos);
  EXPECT_NE(status_of(R"({"tools": [{"name": "a", "input_schema": {}}], "tool_choice": {"type": "maybe"}})")
                .message().find("'tool_choice' must be"),
            std::string::npos);
  EXPECT_NE(status_of(R"({"tools": [{"name": "a", "input_schema": {}}],
                          "tool_choice": {"type": "tool", "name": "z"}})").message().find("\"z\""),
            std::string::npos);
  EXPECT_NE(status_of(R"({"messages": [{"role": "user", "content": [{"type": "tool_use", "id": "x",
                          "name": "a", "input": {}}]}]})").message().find("'messages[0].content[0]'"),
            std::string::npos);
  EXPECT_NE(status_of(R"({"messages": [{"role": "assistant", "content": [{"type": "tool_use",
                          "name": "a"}]}]})").message().find("'messages[0].content[0]'"),
            std::string::npos);
}

}  // namespace
}  // namespace strata::server
