// render_chat on Qwen3-Coder's and Qwen3.5's templates (src/chat/testdata) from parsed OpenAI and
// Anthropic requests. The expected prompts are Python jinja2's renderings (3.1.2, as transformers
// renders templates; keys in the client's order, as Strata hands tools over) of the messages as Hugging Face
// hands them to these templates: a call's arguments as an object (the client sends OpenAI's as
// JSON text), which the templates walk with `|items` to write `<parameter=KEY>` values. Both
// templates show the tools themselves, so nothing is added to the system prompt.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/anthropic_request.h"
#include "server/engine_model.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {

using nlohmann::json;

const char* kQwenXmlOpenAiToolChat = R"({"messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\", \"days\": 3}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}],
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                     "required": ["city"]}}}]})";

const char* kQwenXmlAnthropicToolChat = R"({"max_tokens": 8, "messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris", "days": 3}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]}],
  "tools": [{"name": "get_weather", "input_schema": {"type": "object",
      "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}]})";

// The call both histories hold, as both templates write it.
constexpr char kQwenXmlCallText[] =
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n"
    "</parameter>\n</function>\n</tool_call><|im_end|>\n";

// --- Qwen3-Coder: tools as XML, under its own system prompt ---

constexpr char kCoderOpenAiTools[] =
    "<function>\n<name>get_weather</name>\n<description>Get the weather</description>\n<parameters>\n"
    "<parameter>\n<name>city</name>\n<type>string</type>\n</parameter>\n<parameter>\n<name>days</name>\n"
    "<type>integer</type>\n</parameter>\n<required>[\"city\"]</required>\n</parameters>\n</function>\n";
constexpr char kCoderAnthropicTools[] =
    "<function>\n<name>get_weather</name>\n<parameters>\n<parameter>\n<name>city</name>\n<type>string</type>\n"
    "</parameter>\n<parameter>\n<name>days</name>\n<type>integer</type>\n</parameter>\n</parameters>\n</function>\n";

std::string coder_prompt(const std::string& tools) {
  return "<|im_start|>system\nYou are Qwen, a helpful AI assistant that can interact with a computer to solve "
         "tasks.\n\n# Tools\n\nYou have access to the following tools:\n\n<tools>\n" +
         tools +
         "</tools>\n\nIf you choose to call a tool ONLY reply in the following format with NO suffix:\n\n"
         "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
         "<parameter=example_parameter_2>\nvalue_2\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\n"
         "Reminder:\n- Function calls MUST follow the specified format: the tool calling block MUST begin with an "
         "opening <tool_call> tag and end with a closing </tool_call> tag.\n- Required parameters MUST be "
         "specified\n- You may provide optional reasoning for your function call in natural language BEFORE the "
         "function call, but NOT after\n- If there is no function call available, answer the question like normal "
         "with your current knowledge and do not tell the user about function calls\n</IMPORTANT><|im_end|>\n"
         "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n" +
         kQwenXmlCallText + "<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<|im_end|>\n"
         "<|im_start|>assistant\n";
}

// --- Qwen3.5: tools as JSON lines, a think block in each turn after the last user query ---

constexpr char kQwen35OpenAiTool[] =
    "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Get the weather\", "
    "\"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}, \"days\": "
    "{\"type\": \"integer\"}}, \"required\": [\"city\"]}}}";
constexpr char kQwen35AnthropicTool[] =
    "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\", "
    "\"properties\": {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\"}}}}}";

std::string qwen35_prompt(const std::string& tool, const std::string& reasoning) {
  return "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>\n" + tool +
         "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
         "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
         "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple "
         "lines\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow "
         "the specified format: an inner <function=...></function> block must be nested within "
         "<tool_call></tool_call> XML tags\n- Required parameters MUST be specified\n- You may provide optional "
         "reasoning for your function call in natural language BEFORE the function call, but NOT after\n- If "
         "there is no function call available, answer the question like normal with your current knowledge and "
         "do not tell the user about function calls\n</IMPORTANT><|im_end|>\n"
         "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>\n" +
         reasoning + "\n</think>\n\n" + kQwenXmlCallText +
         "<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n";
}

std::string qwen_xml_prompt(const ChatTemplate& t, const Result<CompletionRequest>& request) {
  EXPECT_TRUE(request.ok()) << request.status().ToString();
  if (!request.ok()) return "";
  Result<std::string> text = render_chat(t, request->prompt, "", "<|im_end|>");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

std::string qwen_xml_openai_prompt(const ChatTemplate& t, const std::string& body) {
  return qwen_xml_prompt(t, parse_chat_completion_request(RequestJson::parse(body)));
}

std::string qwen_xml_anthropic_prompt(const ChatTemplate& t, const std::string& body) {
  return qwen_xml_prompt(t, parse_anthropic_messages_request(RequestJson::parse(body)));
}

TEST(QwenXmlRender, Qwen3CoderToolHistoryOfBothApisRendersAsJinja2Does) {
  const ChatTemplate t = load_testdata_template("qwen3-coder.jinja");
  EXPECT_EQ(qwen_xml_openai_prompt(t, kQwenXmlOpenAiToolChat), coder_prompt(kCoderOpenAiTools));
  EXPECT_EQ(qwen_xml_anthropic_prompt(t, kQwenXmlAnthropicToolChat), coder_prompt(kCoderAnthropicTools));
}

TEST(QwenXmlRender, Qwen35ToolHistoryOfBothApisRendersAsJinja2Does) {
  const ChatTemplate t = load_testdata_template("qwen3.5.jinja");
  EXPECT_EQ(qwen_xml_openai_prompt(t, kQwenXmlOpenAiToolChat), qwen35_prompt(kQwen35OpenAiTool, ""));
  EXPECT_EQ(qwen_xml_anthropic_prompt(t, kQwenXmlAnthropicToolChat), qwen35_prompt(kQwen35AnthropicTool, ""));
}

// The reasoning a client sends back with a call (OpenAI reasoning_content, Anthropic thinking)
// reaches Qwen3.5's think block for that turn.
TEST(QwenXmlRender, Qwen35ShowsTheReasoningSentBackWithACall) {
  const ChatTemplate t = load_testdata_template("qwen3.5.jinja");
  RequestJson openai = RequestJson::parse(kQwenXmlOpenAiToolChat);
  openai["messages"][1]["reasoning_content"] = "I should check.";
  EXPECT_EQ(qwen_xml_openai_prompt(t, openai.dump()), qwen35_prompt(kQwen35OpenAiTool, "I should check."));
  RequestJson anthropic = RequestJson::parse(kQwenXmlAnthropicToolChat);
  RequestJson& blocks = anthropic["messages"][1]["content"];
  blocks.insert(blocks.begin(), RequestJson{{"type", "thinking"}, {"thinking", "I should check."}, {"signature", ""}});
  EXPECT_EQ(qwen_xml_anthropic_prompt(t, anthropic.dump()), qwen35_prompt(kQwen35AnthropicTool, "I should check."));
}

}  // namespace
}  // namespace strata::server
