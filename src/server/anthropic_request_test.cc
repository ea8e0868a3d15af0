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

}  // namespace
}  // namespace strata::server
