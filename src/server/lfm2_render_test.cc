// LFM2.5's template (src/chat/testdata/lfm2.5-8b-a1b.jinja) from parsed OpenAI and Anthropic
// requests: the tools as JSON in the system turn after the date, an earlier turn's calls written
// back by the template itself as the Python-style list the model writes (strings in single quotes,
// other values as Python prints them, dicts as JSON), their results as tool turns, the reasoning of
// turns after the last user turn kept as <think>, and the plain generation prompt. The model text
// reads the template as LFM2's calls. Each expected prompt is jinja2 3.1's render of the template
// (trim_blocks, lstrip_blocks, loopcontrols, tojson as json.dumps(ensure_ascii=False), {% generation
// %} as its body, strftime_now at 2026-01-15, as Hugging Face renders templates) given the messages
// and tools chat_input() builds from the request: byte for byte the same.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/anthropic_request.h"
#include "server/engine_model.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {

// 2026-01-15 12:00 UTC: the same date in every time zone strftime_now may format it in.
constexpr int64_t kLfmNow = 1768478400;

// An agent's loop: two calls (values of every kind) after some reasoning, their results, and the
// model's turn next.
const char* kLfmOpenAiToolChat = R"({"messages": [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris, and a plan?"},
    {"role": "assistant", "content": null, "reasoning_content": "Two tools.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather",
            "arguments": "{\"city\":\"Paris\",\"days\":3,\"metric\":true,\"hours\":[9,12],\"at\":{\"lat\":48.9}}"}},
        {"id": "call_2", "type": "function", "function": {"name": "plan",
            "arguments": "{\"stops\":[\"Paris\",\"Lyon\"],\"budget\":1.5,\"note\":null}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "tool", "tool_call_id": "call_2", "content": "planned"}],
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather now",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "plan", "parameters": {"type": "object"}}}]})";

constexpr char kLfmOpenAiToolPrompt[] =
    "<|startoftext|><|im_start|>system\nYou are terse.\n\nToday's date: 2026-01-15\n\nList of tools: "
    R"([{"type": "function", "function": {"name": "get_weather", "description": "Weather now", "parameters": )"
    R"({"type": "object", "properties": {"city": {"type": "string"}}}}}, {"type": "function", "function": )"
    R"({"name": "plan", "parameters": {"type": "object"}}}])"
    "<|im_end|>\n<|im_start|>user\nWeather in Paris, and a plan?<|im_end|>\n<|im_start|>assistant\n"
    "<think>Two tools.</think><|tool_call_start|>[get_weather(city='Paris', days=3, metric=True, hours=[9, 12], "
    R"(at={"lat": 48.9}), plan(stops=['Paris', 'Lyon'], budget=1.5, note=None)]<|tool_call_end|><|im_end|>)"
    "\n<|im_start|>tool\nsunny<|im_end|>\n<|im_start|>tool\nplanned<|im_end|>\n<|im_start|>assistant\n";

// A finished exchange and a new question: the earlier turn's reasoning is left out.
const char* kLfmAnthropicToolChat = R"({"max_tokens": 8, "messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "Need the weather.", "signature": ""},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_01A0", "name": "get_weather", "input": {"city": "Paris", "days": 2}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A0", "content": "sunny"}]},
    {"role": "assistant", "content": "Sunny."},
    {"role": "user", "content": "Thanks!"}],
  "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]})";

constexpr char kLfmAnthropicToolPrompt[] =
    "<|startoftext|><|im_start|>system\nToday's date: 2026-01-15\n\nList of tools: "
    R"([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}])"
    "<|im_end|>\n<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"
    "Checking.<|tool_call_start|>[get_weather(city='Paris', days=2)]<|tool_call_end|><|im_end|>\n"
    "<|im_start|>tool\nsunny<|im_end|>\n<|im_start|>assistant\nSunny.<|im_end|>\n"
    "<|im_start|>user\nThanks!<|im_end|>\n<|im_start|>assistant\n";

// The prompt chat_input() gives the template for a request, rendered at kLfmNow.
Result<std::string> render_lfm(const PromptInput& prompt) {
  const ChatTemplate lfm = load_testdata_template("lfm2.5-8b-a1b.jinja");
  const ChatInput input = chat_input(lfm, template_traits(lfm, "<|startoftext|>", "<|im_end|>"), prompt);
  jinja::RenderOptions options;
  options.now_s = kLfmNow;
  return lfm.apply(input.messages, /*add_generation_prompt=*/true, "<|startoftext|>", "<|im_end|>", input.context,
                   options);
}

TEST(Lfm2Render, TakesAnOpenAiClientsToolLoopWithItsCallsAsTheModelWritesThem) {
  Result<CompletionRequest> request = parse_chat_completion_request(RequestJson::parse(kLfmOpenAiToolChat));
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  Result<std::string> out = render_lfm(request->prompt);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, kLfmOpenAiToolPrompt);
  const TemplateTraits traits = template_traits(load_testdata_template("lfm2.5-8b-a1b.jinja"));
  EXPECT_EQ(traits.tool_syntax, ToolCallSyntax::kLfm2);
  EXPECT_FALSE(traits.tools_in_system_turn);  // the template shows the tools itself
  EXPECT_FALSE(traits.call_turns.arguments_as_text);  // it walks the arguments as a mapping
}

TEST(Lfm2Render, TakesAnAnthropicClientsFinishedExchangeWithoutItsReasoning) {
  Result<CompletionRequest> request = parse_anthropic_messages_request(RequestJson::parse(kLfmAnthropicToolChat));
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  Result<std::string> out = render_lfm(request->prompt);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, kLfmAnthropicToolPrompt);
}

// LFM2's first template (LFM2-350M to 2.6B) writes no calls back, only the tools between its list
// markers: the models write the same calls.
TEST(Lfm2Render, LfmsFirstTemplateIsReadAsLfm2sCallsToo) {
  Result<ChatTemplate> first = ChatTemplate::Parse(
      "{%- if tools -%}List of tools: <|tool_list_start|>{{ tools | tojson }}<|tool_list_end|>"
      "{%- endif -%}{%- for m in messages -%}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{%- endfor -%}");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(template_traits(*first).tool_syntax, ToolCallSyntax::kLfm2);
}

}  // namespace
}  // namespace strata::server
