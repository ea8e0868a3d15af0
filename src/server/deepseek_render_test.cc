// render_chat on DeepSeek-R1's and DeepSeek-V3.1's templates (src/chat/testdata) from parsed
// OpenAI and Anthropic requests. The expected prompts are Python jinja2's renderings (3.1.2, as
// transformers renders templates) of the messages as an OpenAI client sends them and llama.cpp
// hands them over: a call-only turn's content null and the call's arguments as the JSON text
// the client got back from the server (compact). V3.1's `thinking` follows enable_thinking as
// llama.cpp sets it.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/anthropic_request.h"
#include "server/engine_model.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {

using nlohmann::json;

constexpr char kDeepseekBosText[] = "<｜begin▁of▁sentence｜>";

const char* kDeepseekOpenAiToolChat = R"({"messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}],
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]})";

const char* kDeepseekAnthropicToolChat = R"({"max_tokens": 8, "messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]}],
  "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]})";

std::string deepseek_openai_prompt(const ChatTemplate& t, const std::string& body) {
  Result<CompletionRequest> request = parse_chat_completion_request(json::parse(body));
  EXPECT_TRUE(request.ok()) << request.status().ToString();
  if (!request.ok()) return "";
  Result<std::string> text = render_chat(t, request->prompt, kDeepseekBosText, "<｜end▁of▁sentence｜>");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

std::string deepseek_anthropic_prompt(const ChatTemplate& t, const std::string& body) {
  Result<CompletionRequest> request = parse_anthropic_messages_request(json::parse(body));
  EXPECT_TRUE(request.ok()) << request.status().ToString();
  if (!request.ok()) return "";
  Result<std::string> text = render_chat(t, request->prompt, kDeepseekBosText, "<｜end▁of▁sentence｜>");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

TEST(DeepseekRender, R1ToolHistoryOfBothApisRendersAsJinja2Does) {
  const ChatTemplate t = load_testdata_template("deepseek-r1.jinja");
  const std::string expected =
      "<｜begin▁of▁sentence｜><｜User｜>Weather in Paris?<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"
      "function<｜tool▁sep｜>get_weather\n```json\n{\"city\":\"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁outputs▁begin｜>"
      "<｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜><｜tool▁outputs▁end｜>";
  EXPECT_EQ(deepseek_openai_prompt(t, kDeepseekOpenAiToolChat), expected);
  EXPECT_EQ(deepseek_anthropic_prompt(t, kDeepseekAnthropicToolChat), expected);
}

TEST(DeepseekRender, V31ToolHistoryOfBothApisRendersAsJinja2Does) {
  const ChatTemplate t = load_testdata_template("deepseek-v3.1.jinja");
  const std::string expected =
      "<｜begin▁of▁sentence｜><｜User｜>Weather in Paris?<｜Assistant｜></think><｜tool▁calls▁begin｜>"
      "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\":\"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
      "<｜end▁of▁sentence｜><｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>";
  EXPECT_EQ(deepseek_openai_prompt(t, kDeepseekOpenAiToolChat), expected);
  EXPECT_EQ(deepseek_anthropic_prompt(t, kDeepseekAnthropicToolChat), expected);
}

// Reasoning sent back with an answer never reaches the prompt: both templates keep only what
// follows "</think>" in an assistant's content and read no reasoning field.
TEST(DeepseekRender, ReasoningSentBackLeavesThePromptAsWithout) {
  const std::string with = R"({"messages": [{"role": "user", "content": "Hi"},
      {"role": "assistant", "content": "Hello.", "reasoning_content": "Greet them."},
      {"role": "user", "content": "Bye"}]})";
  const std::string without = R"({"messages": [{"role": "user", "content": "Hi"},
      {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Bye"}]})";
  for (const char* name : {"deepseek-r1.jinja", "deepseek-v3.1.jinja"}) {
    const ChatTemplate t = load_testdata_template(name);
    EXPECT_EQ(deepseek_openai_prompt(t, with), deepseek_openai_prompt(t, without)) << name;
  }
}

// V3.1's template switches thinking with `thinking`; as llama.cpp does, it follows
// enable_thinking (on when not given, off for Anthropic's thinking disabled) unless `thinking`
// itself is given.
TEST(DeepseekRender, V31ThinksUnlessEnableThinkingOrThinkingSaysOtherwise) {
  const ChatTemplate t = load_testdata_template("deepseek-v3.1.jinja");
  auto with_kwargs = [&t](const std::string& kwargs) {
    return deepseek_openai_prompt(t, R"({"messages": [{"role": "user", "content": "Hi"}])" + kwargs + "}");
  };
  EXPECT_EQ(with_kwargs(""), "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜><think>");
  EXPECT_TRUE(with_kwargs(R"(, "chat_template_kwargs": {"enable_thinking": false})").ends_with("</think>"));
  EXPECT_TRUE(with_kwargs(R"(, "chat_template_kwargs": {"thinking": false})").ends_with("</think>"));
  EXPECT_TRUE(with_kwargs(R"(, "chat_template_kwargs": {"thinking": true, "enable_thinking": false})")
                  .ends_with("<think>"));
  EXPECT_TRUE(deepseek_anthropic_prompt(t, R"({"max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}],
      "thinking": {"type": "disabled"}})").ends_with("<｜Assistant｜></think>"));
}

// R1's template opens "<think>\n" whatever enable_thinking says; it is left alone.
TEST(DeepseekRender, R1TemplateGetsNoThinkingVariable) {
  const ChatTemplate t = load_testdata_template("deepseek-r1.jinja");
  EXPECT_FALSE(template_traits(t).thinking_from_enable_thinking);
  EXPECT_EQ(deepseek_openai_prompt(t, R"({"messages": [{"role": "user", "content": "Hi"}],
      "chat_template_kwargs": {"enable_thinking": false}})"),
            "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜><think>\n");
}

}  // namespace
}  // namespace strata::server
