#include "server/anthropic_response.h"

#include <gtest/gtest.h>

#include "server/sse.h"

namespace strata::server {
namespace {

using nlohmann::json;

const ResponseMeta kMessageMeta{"msg_1", 1700000000, "stories"};

TEST(AnthropicResponse, StopReasons) {
  EXPECT_STREQ(anthropic_stop_reason(FinishReason::kLength, ""), "max_tokens");
  EXPECT_STREQ(anthropic_stop_reason(FinishReason::kStop, ""), "end_turn");
  EXPECT_STREQ(anthropic_stop_reason(FinishReason::kStop, "END"), "stop_sequence");
}

TEST(AnthropicResponse, MessageSplitsCachedInputTokens) {
  GenerationResult r;
  r.text = "Hello";
  r.finish = FinishReason::kStop;
  r.usage = {12, 8, 5};
  json body = anthropic_message_json(kMessageMeta, r, "END");
  EXPECT_EQ(body["type"], "message");
  EXPECT_EQ(body["role"], "assistant");
  EXPECT_EQ(body["content"], json::parse(R"([{"type": "text", "text": "Hello"}])"));
  EXPECT_EQ(body["stop_reason"], "stop_sequence");
  EXPECT_EQ(body["stop_sequence"], "END");
  EXPECT_EQ(body["usage"]["input_tokens"], 4);
  EXPECT_EQ(body["usage"]["cache_read_input_tokens"], 8);
  EXPECT_EQ(body["usage"]["output_tokens"], 5);
}

TEST(AnthropicResponse, StreamEventsHaveTheirTypes) {
  json start = message_start_event(kMessageMeta, 7);
  EXPECT_EQ(start["type"], "message_start");
  EXPECT_EQ(start["message"]["usage"]["input_tokens"], 7);
  EXPECT_TRUE(start["message"]["content"].empty());
  EXPECT_TRUE(start["message"]["stop_reason"].is_null());
  EXPECT_EQ(content_block_start_event()["content_block"]["type"], "text");
  EXPECT_EQ(ping_event()["type"], "ping");
  json delta = text_delta_event("ab");
  EXPECT_EQ(delta["type"], "content_block_delta");
  EXPECT_EQ(delta["delta"]["type"], "text_delta");
  EXPECT_EQ(delta["delta"]["text"], "ab");
  EXPECT_EQ(content_block_stop_event()["index"], 0);
  json end = message_delta_event(FinishReason::kLength, "", {7, 0, 3});
  EXPECT_EQ(end["delta"]["stop_reason"], "max_tokens");
  EXPECT_TRUE(end["delta"]["stop_sequence"].is_null());
  EXPECT_EQ(end["usage"]["output_tokens"], 3);
  EXPECT_EQ(message_stop_event()["type"], "message_stop");
}

TEST(AnthropicResponse, BareJsonToolCallIsAToolUseBlock) {
  GenerationResult r;
  r.text = "{\"name\": \"search\", \"parameters\": {\"q\": \"cats\"}}";
  r.finish = FinishReason::kStop;
  json body = anthropic_message_json(kMessageMeta, r, "", /*parse_tool_calls=*/true);
  EXPECT_EQ(body["stop_reason"], "tool_use");
  EXPECT_EQ(body["content"], json::parse(R"([{"type": "tool_use", "id": "toolu_1_0", "name": "search",
                                              "input": {"q": "cats"}}])"));
  EXPECT_EQ(input_json_delta_event("{}", 2),
            json::parse(R"({"type": "content_block_delta", "index": 2,
                            "delta": {"type": "input_json_delta", "partial_json": "{}"}})"));
}

// The body's bytes: members in Anthropic's order, a tool's input in the order the model wrote.
TEST(AnthropicResponse, ToolInputKeepsTheModelsKeyOrder) {
  GenerationResult r;
  r.text = "<tool_call>\n{\"name\": \"convert\", \"arguments\": {\"value\": 3, \"from\": \"m\", \"to\": \"ft\"}}\n</tool_call>";
  r.finish = FinishReason::kStop;
  const std::string body = dump_json(anthropic_message_json(kMessageMeta, r, "", /*parse_tool_calls=*/true));
  EXPECT_NE(body.find(R"("input":{"value":3,"from":"m","to":"ft"})"), std::string::npos) << body;
  EXPECT_EQ(body.find(R"({"id":)"), 0u) << body;
}

}  // namespace
}  // namespace strata::server
