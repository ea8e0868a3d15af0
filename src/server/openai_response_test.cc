#include "server/openai_response.h"

#include <gtest/gtest.h>

#include "server/testing/fake_model_text.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::FakeModelText;

GenerationResult sample_result() {
  GenerationResult r;
  r.text = "Hi";
  r.tokens = {FakeModelText::kFirstByte + 'H', FakeModelText::kFirstByte + 'i'};
  r.logprobs = {{r.tokens[0], -0.25f, {{r.tokens[0], -0.25f}, {r.tokens[1], -2.0f}}},
                {r.tokens[1], -0.5f, {}}};
  r.finish = FinishReason::kLength;
  r.usage = {10, 4, 2};
  return r;
}

const ResponseMeta kChatMeta{"chatcmpl-1", 1700000000, "stories"};

TEST(OpenAiResponse, ChatCompletionCarriesMessageFinishAndUsage) {
  FakeModelText text;
  json body = chat_completion_json(kChatMeta, sample_result(), false, text);
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_EQ(body["id"], "chatcmpl-1");
  EXPECT_EQ(body["model"], "stories");
  EXPECT_EQ(body["created"], 1700000000);
  ASSERT_EQ(body["choices"].size(), 1u);
  EXPECT_EQ(body["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(body["choices"][0]["message"]["content"], "Hi");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "length");
  EXPECT_TRUE(body["choices"][0]["logprobs"].is_null());
  EXPECT_EQ(body["usage"]["prompt_tokens"], 10);
  EXPECT_EQ(body["usage"]["completion_tokens"], 2);
  EXPECT_EQ(body["usage"]["total_tokens"], 12);
  EXPECT_EQ(body["usage"]["prompt_tokens_details"]["cached_tokens"], 4);
}

TEST(OpenAiResponse, ChoicesUsageCountsThePromptOnceAndAddsUpTheCompletions) {
  Usage a{10, 6, 3, 1};
  Usage b{10, 4, 5, 2};
  Usage c{10, 8, 7, 0};
  Usage total = choices_usage({a, b, c});
  EXPECT_EQ(total.prompt_tokens, 10);
  EXPECT_EQ(total.cached_tokens, 4);  // the fewest any choice took from cache
  EXPECT_EQ(total.completion_tokens, 15);
  EXPECT_EQ(total.reasoning_tokens, 3);
  Usage one = choices_usage({b});
  EXPECT_EQ(one.cached_tokens, 4);
  EXPECT_EQ(one.completion_tokens, 5);
}

TEST(OpenAiResponse, ChatCompletionOfSeveralResultsIndexesItsChoices) {
  FakeModelText text;
  GenerationResult second = sample_result();
  second.text = "Ho";
  second.finish = FinishReason::kStop;
  json body = chat_completion_json(kChatMeta, {sample_result(), second}, ChatAnswerOptions{}, text);
  ASSERT_EQ(body["choices"].size(), 2u);
  EXPECT_EQ(body["choices"][0]["index"], 0);
  EXPECT_EQ(body["choices"][0]["message"]["content"], "Hi");
  EXPECT_EQ(body["choices"][1]["index"], 1);
  EXPECT_EQ(body["choices"][1]["message"]["content"], "Ho");
  EXPECT_EQ(body["choices"][1]["finish_reason"], "stop");
  EXPECT_EQ(body["usage"]["completion_tokens"], 4);
  EXPECT_EQ(body["usage"]["total_tokens"], 14);
  json plain = text_completion_json(kChatMeta, {sample_result(), second}, false, text);
  EXPECT_EQ(plain["choices"][1]["index"], 1);
  EXPECT_EQ(plain["choices"][1]["text"], "Ho");
  EXPECT_EQ(plain["usage"]["completion_tokens"], 4);
}

TEST(OpenAiResponse, ChatLogprobsNameTokensAndBytes) {
  FakeModelText text;
  json lp = chat_completion_json(kChatMeta, sample_result(), true, text)["choices"][0]["logprobs"];
  ASSERT_EQ(lp["content"].size(), 2u);
  EXPECT_EQ(lp["content"][0]["token"], "H");
  EXPECT_EQ(lp["content"][0]["logprob"], -0.25);
  EXPECT_EQ(lp["content"][0]["bytes"], json::array({72}));
  ASSERT_EQ(lp["content"][0]["top_logprobs"].size(), 2u);
  EXPECT_EQ(lp["content"][0]["top_logprobs"][1]["token"], "i");
  EXPECT_EQ(lp["content"][0]["top_logprobs"][1]["logprob"], -2.0);
}

TEST(OpenAiResponse, TextCompletionLogprobsHaveOffsets) {
  FakeModelText text;
  json body = text_completion_json(kChatMeta, sample_result(), true, text);
  EXPECT_EQ(body["object"], "text_completion");
  EXPECT_EQ(body["choices"][0]["text"], "Hi");
  json lp = body["choices"][0]["logprobs"];
  EXPECT_EQ(lp["tokens"], json::array({"H", "i"}));
  EXPECT_EQ(lp["token_logprobs"], json::array({-0.25, -0.5}));
  EXPECT_EQ(lp["text_offset"], json::array({0, 1}));
  EXPECT_EQ(lp["top_logprobs"][0]["i"], -2.0);
}

TEST(OpenAiResponse, FinishReasonNames) {
  EXPECT_STREQ(openai_finish_reason(FinishReason::kStop), "stop");
  EXPECT_STREQ(openai_finish_reason(FinishReason::kLength), "length");
}

TEST(OpenAiResponse, ChunksHaveOneChoiceOrOnlyUsage) {
  json chunk = chat_chunk_json(kChatMeta, 0, {{"content", "x"}}, nullptr, nullptr);
  EXPECT_EQ(chunk["object"], "chat.completion.chunk");
  ASSERT_EQ(chunk["choices"].size(), 1u);
  EXPECT_EQ(chunk["choices"][0]["delta"]["content"], "x");
  EXPECT_TRUE(chunk["choices"][0]["finish_reason"].is_null());
  json last = chat_chunk_json(kChatMeta, 0, json::object(), nullptr, "stop");
  EXPECT_EQ(last["choices"][0]["finish_reason"], "stop");
  EXPECT_TRUE(last["choices"][0]["delta"].empty());
  json usage = chat_usage_chunk_json(kChatMeta, {3, 0, 5});
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["total_tokens"], 8);
  json text = text_chunk_json(kChatMeta, 2, "y", nullptr, "length");
  EXPECT_EQ(text["choices"][0]["index"], 2);
  EXPECT_EQ(text["object"], "text_completion");
  EXPECT_EQ(text["choices"][0]["text"], "y");
  EXPECT_EQ(text["choices"][0]["finish_reason"], "length");
}

TEST(OpenAiResponse, ToolCallsBecomeMessageToolCalls) {
  FakeModelText text;
  GenerationResult r;
  r.finish = FinishReason::kStop;
  r.text = "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": 1}}</tool_call>\n"
           "<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>";
  json message = chat_completion_json(kChatMeta, r, false, text, /*parse_tool_calls=*/true)["choices"][0];
  EXPECT_EQ(message["finish_reason"], "tool_calls");
  EXPECT_TRUE(message["message"]["content"].is_null());
  ASSERT_EQ(message["message"]["tool_calls"].size(), 2u);
  EXPECT_EQ(message["message"]["tool_calls"][0],
            json({{"id", "call_1_0"}, {"type", "function"},
                  {"function", {{"name", "a"}, {"arguments", "{\"x\":1}"}}}}));
  EXPECT_EQ(message["message"]["tool_calls"][1]["id"], "call_1_1");
  // Without tools in the request the same text is just text.
  json plain = chat_completion_json(kChatMeta, r, false, text)["choices"][0];
  EXPECT_EQ(plain["message"]["content"], r.text);
  EXPECT_EQ(plain["finish_reason"], "stop");
}

TEST(OpenAiResponse, MalformedToolCallIsPlainContent) {
  FakeModelText text;
  GenerationResult r;
  r.finish = FinishReason::kStop;
  r.text = "<tool_call>{\"name\": \"a\", \"arguments\": {</tool_call>";
  json choice = chat_completion_json(kChatMeta, r, false, text, /*parse_tool_calls=*/true)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_EQ(choice["message"]["content"], r.text);
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
}

}  // namespace
}  // namespace strata::server
