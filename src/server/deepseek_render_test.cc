// render_chat on DeepSeek-R1's and DeepSeek-V3.1's templates (src/chat/testdata) from parsed
// OpenAI and Anthropic requests. The expected prompts are Python jinja2's renderings (3.1.2, as
// transformers renders templates) of the messages as an OpenAI client sends them and llama.cpp
// hands them over: a call-only turn's content null and the call's arguments as the JSON text
// the client got back from the server (compact). V3.1's `thinking` follows enable_thinking as
// llama.cpp sets it. Offered tools, which neither template shows, reach the prompt as llama.cpp's
// minja puts them there (a system prompt of the tools and an example call).
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

// The offered tools as llama.cpp's minja writes them into the system prompt of a template that
// leaves them out (keys in the client's order, as Strata hands tools to every template), and each
// template's example call.
constexpr char kOpenAiWeatherToolJson[] =
    "[\n  {\n    \"type\": \"function\",\n    \"function\": {\n      \"name\": \"get_weather\",\n"
    "      \"description\": \"Get the weather\",\n      \"parameters\": {\n        \"type\": \"object\",\n"
    "        \"properties\": {\n          \"city\": {\n            \"type\": \"string\"\n          }\n        },\n"
    "        \"required\": [\n          \"city\"\n        ]\n      }\n    }\n  }\n]";
constexpr char kAnthropicWeatherToolJson[] =
    "[\n  {\n    \"type\": \"function\",\n    \"function\": {\n      \"name\": \"get_weather\",\n"
    "      \"parameters\": {\n        \"type\": \"object\"\n      }\n    }\n  }\n]";
constexpr char kR1CallExample[] =
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>tool_name\n```json\n"
    "{\"arg1\": \"some_value\"}\n```<｜tool▁call▁end｜>";
constexpr char kV31CallExample[] =
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_name<｜tool▁sep｜>{\"arg1\": \"some_value\"}"
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>";

std::string deepseek_tools_text(const std::string& tools_json, const std::string& example) {
  return "You can call any of the following tools to satisfy the user's requests: " + tools_json +
         "\n\nExample tool call syntax:\n\n" + example + "\n\n";
}

std::string deepseek_openai_prompt(const ChatTemplate& t, const std::string& body) {
  Result<CompletionRequest> request = parse_chat_completion_request(RequestJson::parse(body));
  EXPECT_TRUE(request.ok()) << request.status().ToString();
  if (!request.ok()) return "";
  Result<std::string> text = render_chat(t, request->prompt, kDeepseekBosText, "<｜end▁of▁sentence｜>");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

std::string deepseek_anthropic_prompt(const ChatTemplate& t, const std::string& body) {
  Result<CompletionRequest> request = parse_anthropic_messages_request(RequestJson::parse(body));
  EXPECT_TRUE(request.ok()) << request.status().ToString();
  if (!request.ok()) return "";
  Result<std::string> text = render_chat(t, request->prompt, kDeepseekBosText, "<｜end▁of▁sentence｜>");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

TEST(DeepseekRender, R1ToolHistoryOfBothApisRendersAsJinja2Does) {
  const ChatTemplate t = load_testdata_template("deepseek-r1.jinja");
  const std::string turns =
      "<｜User｜>Weather in Paris?<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"
      "function<｜tool▁sep｜>get_weather\n```json\n{\"city\":\"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁outputs▁begin｜>"
      "<｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜><｜tool▁outputs▁end｜>";
  EXPECT_EQ(deepseek_openai_prompt(t, kDeepseekOpenAiToolChat),
            kDeepseekBosText + deepseek_tools_text(kOpenAiWeatherToolJson, kR1CallExample) + turns);
  EXPECT_EQ(deepseek_anthropic_prompt(t, kDeepseekAnthropicToolChat),
            kDeepseekBosText + deepseek_tools_text(kAnthropicWeatherToolJson, kR1CallExample) + turns);
}

TEST(DeepseekRender, V31ToolHistoryOfBothApisRendersAsJinja2Does) {
  const ChatTemplate t = load_testdata_template("deepseek-v3.1.jinja");
  const std::string turns =
      "<｜User｜>Weather in Paris?<｜Assistant｜></think><｜tool▁calls▁begin｜>"
      "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\":\"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
      "<｜end▁of▁sentence｜><｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>";
  EXPECT_EQ(deepseek_openai_prompt(t, kDeepseekOpenAiToolChat),
            kDeepseekBosText + deepseek_tools_text(kOpenAiWeatherToolJson, kV31CallExample) + turns);
  EXPECT_EQ(deepseek_anthropic_prompt(t, kDeepseekAnthropicToolChat),
            kDeepseekBosText + deepseek_tools_text(kAnthropicWeatherToolJson, kV31CallExample) + turns);
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

// R1's template opens "<think>\n" whatever enable_thinking says: with thinking switched off (by
// the client, or by a constraint: a forced call, a response_format) the server closes the block,
// as llama.cpp does, so the constrained output is the answer and not read as reasoning. With
// thinking on, or not said, the prompt is the template's.
TEST(DeepseekRender, R1TemplateGetsItsThinkBlockClosedWhenThinkingIsSwitchedOff) {
  const ChatTemplate t = load_testdata_template("deepseek-r1.jinja");
  EXPECT_FALSE(template_traits(t).thinking_from_enable_thinking);
  EXPECT_TRUE(template_traits(t).closes_reasoning_switched_off);
  const std::string open = "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜><think>\n";
  EXPECT_EQ(deepseek_openai_prompt(t, R"({"messages": [{"role": "user", "content": "Hi"}],
      "chat_template_kwargs": {"enable_thinking": false}})"),
            open + "</think>\n\n");
  EXPECT_EQ(deepseek_openai_prompt(t, R"({"messages": [{"role": "user", "content": "Hi"}],
      "response_format": {"type": "json_object"}})"),
            open + "</think>\n\n");
  EXPECT_EQ(deepseek_openai_prompt(t, R"({"messages": [{"role": "user", "content": "Hi"}]})"), open);
  EXPECT_EQ(deepseek_openai_prompt(t, R"({"messages": [{"role": "user", "content": "Hi"}],
      "response_format": {"type": "json_object"}, "chat_template_kwargs": {"enable_thinking": true}})"),
            open);
  // V3.1's template closes its own block when thinking is off.
  EXPECT_FALSE(template_traits(load_testdata_template("deepseek-v3.1.jinja")).closes_reasoning_switched_off);
}

// Neither template shows `tools`: the tools go in front of the turns as the system prompt, or
// after the client's own system prompt, as llama.cpp hands them to these templates.
TEST(DeepseekRender, R1GetsOfferedToolsInItsSystemPromptFromBothApis) {
  const ChatTemplate t = load_testdata_template("deepseek-r1.jinja");
  const std::string openai = R"({"messages": [{"role": "system", "content": "Be brief."},
      {"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]})";
  EXPECT_EQ(deepseek_openai_prompt(t, openai),
            "<｜begin▁of▁sentence｜>Be brief.\n\nYou can call any of the following tools to satisfy the user's "
            "requests: " + std::string(kOpenAiWeatherToolJson) + "\n\nExample tool call syntax:\n\n"
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>tool_name\n```json\n"
            "{\"arg1\": \"some_value\"}\n```<｜tool▁call▁end｜>\n\n<｜User｜>Weather in Paris?<｜Assistant｜><think>\n");
  const std::string anthropic = R"({"max_tokens": 8, "messages": [{"role": "user", "content": "Weather in Paris?"}],
      "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]})";
  EXPECT_EQ(deepseek_anthropic_prompt(t, anthropic),
            "<｜begin▁of▁sentence｜>You can call any of the following tools to satisfy the user's requests: " +
                std::string(kAnthropicWeatherToolJson) + "\n\nExample tool call syntax:\n\n" + kR1CallExample +
                "\n\n<｜User｜>Weather in Paris?<｜Assistant｜><think>\n");
}

TEST(DeepseekRender, V31GetsOfferedToolsInItsSystemPromptFromBothApis) {
  const ChatTemplate t = load_testdata_template("deepseek-v3.1.jinja");
  const std::string openai = R"({"messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]})";
  EXPECT_EQ(deepseek_openai_prompt(t, openai),
            "<｜begin▁of▁sentence｜>You can call any of the following tools to satisfy the user's requests: " +
                std::string(kOpenAiWeatherToolJson) + "\n\nExample tool call syntax:\n\n"
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_name<｜tool▁sep｜>{\"arg1\": \"some_value\"}"
                "<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>\n\n"
                "<｜User｜>Weather in Paris?<｜Assistant｜><think>");
  const std::string anthropic = R"({"max_tokens": 8, "system": "Be brief.",
      "messages": [{"role": "user", "content": "Weather in Paris?"}],
      "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]})";
  EXPECT_EQ(deepseek_anthropic_prompt(t, anthropic),
            "<｜begin▁of▁sentence｜>Be brief.\n\nYou can call any of the following tools to satisfy the user's "
            "requests: " + std::string(kAnthropicWeatherToolJson) + "\n\nExample tool call syntax:\n\n" +
                kV31CallExample + "\n\n<｜User｜>Weather in Paris?<｜Assistant｜><think>");
}

// No tools offered (or tool_choice none): the prompt has no tool text.
TEST(DeepseekRender, NoToolsOfferedAddsNoToolText) {
  const ChatTemplate t = load_testdata_template("deepseek-r1.jinja");
  EXPECT_EQ(deepseek_openai_prompt(t, R"({"messages": [{"role": "user", "content": "Hi"}]})"),
            "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜><think>\n");
  EXPECT_EQ(deepseek_openai_prompt(t, R"({"messages": [{"role": "user", "content": "Hi"}], "tool_choice": "none",
      "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]})"),
            "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜><think>\n");
}

// Templates that show `tools` themselves get them only that way: no system text is added.
TEST(DeepseekRender, TemplatesThatShowToolsGetNoToolSystemText) {
  const std::string openai = R"({"messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
      "parameters": {"type": "object"}}}]})";
  for (const char* name : {"qwen3.jinja", "glm-4.6.jinja", "gpt-oss.jinja"}) {
    const ChatTemplate t = load_testdata_template(name);
    EXPECT_FALSE(template_traits(t).tools_in_system_turn) << name;
    const std::string prompt = deepseek_openai_prompt(t, openai);
    EXPECT_NE(prompt.find("get_weather"), std::string::npos) << name;
    EXPECT_EQ(prompt.find("You can call any of the following tools"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace strata::server
