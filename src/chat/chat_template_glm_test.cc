// GLM-4.5 / GLM-4.6's chat template (testdata/glm-4.6.jinja) through our Jinja interpreter.
// The expected prompts are Python jinja2's renderings of the same template and messages (jinja2
// 3.1.6, a sandboxed environment with trim_blocks and lstrip_blocks and Hugging Face's tojson,
// as transformers renders chat templates). Object keys are in sorted order on both sides (the
// tests build them as nlohmann::json; requests keep the client's order).
// The template writes "[gMASK]<sop>" itself, opens no <think> in the generation prompt (the
// model writes it), and calls a string method on a macro's output (`.endswith`).
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"

namespace strata {
namespace {

using nlohmann::json;

std::string render_glm(const std::vector<ChatMessage>& messages, const json& extra = {}) {
  Result<std::string> out = load_testdata_template("glm-4.6.jinja").apply(messages, /*add_generation_prompt=*/true, "", "", extra);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::string();
}

json glm_weather_tool() {
  return json::parse(R"({"type": "function", "function": {"name": "get_weather",
      "description": "Get the weather", "parameters": {"type": "object", "required": ["city"],
      "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}})");
}

// One call whose arguments hold a string, a number, a string with quotes and an object.
json glm_weather_call() {
  return json::parse(R"({"id": "call_1", "type": "function", "function": {"name": "get_weather",
      "arguments": {"city": "Beijing", "days": 3, "note": "say \"hi\"", "opts": {"unit": "c"}}}})");
}

const char kGlmToolsSystem[] =
    "<|system|>\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
    "{\"function\": {\"description\": \"Get the weather\", \"name\": \"get_weather\", \"parameters\": "
    "{\"properties\": {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\"}}, "
    "\"required\": [\"city\"], \"type\": \"object\"}}, \"type\": \"function\"}\n</tools>\n\n"
    "For each function call, output the function name and arguments within the following XML format:\n"
    "<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n<arg_value>{arg-value-1}</arg_value>\n"
    "<arg_key>{arg-key-2}</arg_key>\n<arg_value>{arg-value-2}</arg_value>\n...\n</tool_call>";

// String values raw, any other value as JSON.
const char kGlmWeatherCallText[] =
    "\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
    "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n"
    "<arg_key>note</arg_key>\n<arg_value>say \"hi\"</arg_value>\n"
    "<arg_key>opts</arg_key>\n<arg_value>{\"unit\": \"c\"}</arg_value>\n</tool_call>";

TEST(ChatTemplateGlm, RendersAPlainChatAsJinja2Does) {
  EXPECT_EQ(render_glm({{"user", "Hello!", nullptr}}), "[gMASK]<sop><|user|>\nHello!<|assistant|>");
}

TEST(ChatTemplateGlm, RendersASystemPromptAsJinja2Does) {
  EXPECT_EQ(render_glm({{"system", "You are terse.", nullptr}, {"user", "Hello!", nullptr}}),
            "[gMASK]<sop><|system|>\nYou are terse.<|user|>\nHello!<|assistant|>");
}

TEST(ChatTemplateGlm, EnableThinkingFalseAddsNothinkAndAnEmptyThinkBlockAsJinja2Does) {
  EXPECT_EQ(render_glm({{"user", "Hello!", nullptr}}, {{"enable_thinking", false}}),
            "[gMASK]<sop><|user|>\nHello!/nothink<|assistant|>\n<think></think>");
}

TEST(ChatTemplateGlm, RendersOfferedToolsAsJinja2Does) {
  EXPECT_EQ(render_glm({{"user", "Weather in Beijing?", nullptr}}, {{"tools", {glm_weather_tool()}}}),
            std::string("[gMASK]<sop>") + kGlmToolsSystem + "<|user|>\nWeather in Beijing?<|assistant|>");
}

TEST(ChatTemplateGlm, RendersToolCallsAndToolResultsAsJinja2Does) {
  const std::vector<ChatMessage> messages = {
      {"user", "Weather in Beijing?", nullptr},
      {"assistant", "", {{"tool_calls", {glm_weather_call()}}}},
      {"tool", "{\"temp\": 21}", {{"tool_call_id", "call_1"}}},
      {"tool", "sunny", {{"tool_call_id", "call_2"}}}};
  EXPECT_EQ(render_glm(messages, {{"tools", {glm_weather_tool()}}}),
            std::string("[gMASK]<sop>") + kGlmToolsSystem + "<|user|>\nWeather in Beijing?<|assistant|>\n<think></think>" +
                kGlmWeatherCallText +
                "<|observation|>\n<tool_response>\n{\"temp\": 21}\n</tool_response>"
                "\n<tool_response>\nsunny\n</tool_response><|assistant|>");
}

// Reasoning shows only for the turns after the last user message (the tool-call loop).
TEST(ChatTemplateGlm, KeepsReasoningContentAfterTheLastUserMessageAsJinja2Does) {
  const std::vector<ChatMessage> messages = {
      {"user", "Hi", nullptr},
      {"assistant", "Hello.", {{"reasoning_content", "Greet."}}},
      {"user", "Weather in Beijing?", nullptr},
      {"assistant", "Let me check.", {{"reasoning_content", "\nNeed the tool.\n"}, {"tool_calls", {glm_weather_call()}}}},
      {"tool", "{\"temp\": 21}", {{"tool_call_id", "call_1"}}}};
  EXPECT_EQ(render_glm(messages),
            std::string("[gMASK]<sop><|user|>\nHi<|assistant|>\n<think></think>\nHello.<|user|>\nWeather in Beijing?"
                        "<|assistant|>\n<think>Need the tool.</think>\nLet me check.") +
                kGlmWeatherCallText + "<|observation|>\n<tool_response>\n{\"temp\": 21}\n</tool_response><|assistant|>");
}

}  // namespace
}  // namespace strata
