// Qwen3-Coder's and Qwen3.5's chat templates (testdata/qwen3-coder.jinja, testdata/qwen3.5.jinja)
// through our Jinja interpreter. The expected prompts are Python jinja2's renderings of the same
// templates and messages (jinja2 3.1.2, a sandboxed environment with trim_blocks and lstrip_blocks
// and Hugging Face's tojson, as transformers renders chat templates; object keys sorted on both
// sides, as these tests build them with nlohmann::json).
//
// Both teach the model calls of `<function=NAME>` holding `<parameter=KEY>` values and write a
// tool-call history back so: string arguments raw, objects and arrays with tojson, anything else
// with Python's str() (True, None), walking the arguments object with `|items`. Qwen3-Coder shows
// its tools as XML; Qwen3.5 as JSON lines, opens `<think>` in its generation prompt, and shows an
// assistant turn's reasoning only after the last user query.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"

namespace strata {
namespace {

using nlohmann::json;

std::string render_qwen_xml(const std::string& file, const std::vector<ChatMessage>& messages,
                            const json& extra = {}) {
  Result<std::string> out = load_testdata_template(file).apply(messages, /*add_generation_prompt=*/true, "", "", extra);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::string();
}

// Two tools: a description with a trailing space, a parameter description, an enum, a boolean, an
// array with items (extra schema keys Qwen3-Coder's template writes as their own tags).
json qwen_xml_tools() {
  return json::parse(R"([{"type": "function", "function": {"name": "get_weather", "description": "Get the weather ",
      "parameters": {"type": "object", "required": ["city"],
       "properties": {"city": {"type": "string", "description": "City name"},
                      "days": {"type": "integer", "enum": [1, 3, 7]}, "metric": {"type": "boolean"}}}}},
    {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object",
       "properties": {"path": {"type": "string"}, "content": {"type": "string"},
                      "lines": {"type": "array", "items": {"type": "integer"}}}}}}])");
}

json qwen_xml_context() { return {{"tools", qwen_xml_tools()}}; }

// Two calls whose arguments hold a string, an integer, a boolean, a multi-line string with '<',
// an array and an object; their results; the answer; a new question.
std::vector<ChatMessage> qwen_xml_history() {
  const json calls = json::parse(R"([
    {"id": "call_1", "type": "function", "function": {"name": "get_weather",
        "arguments": {"city": "Paris", "days": 3, "metric": true}}},
    {"id": "call_2", "type": "function", "function": {"name": "write_file",
        "arguments": {"path": "a.py", "content": "if a < b:\n    print(\"x\")\n", "lines": [1, 2],
                      "opts": {"mode": "w"}}}}])");
  return {{"user", "Weather in Paris?", nullptr},
          {"assistant", "Let me check.", {{"tool_calls", calls}}},
          {"tool", "{\"temp\": 21}", {{"tool_call_id", "call_1"}}},
          {"tool", "done", {{"tool_call_id", "call_2"}}},
          {"assistant", "Sunny, 21.", nullptr},
          {"user", "Thanks", nullptr}};
}

const std::vector<ChatMessage> kQwenXmlPlain = {{"user", "Hello!", nullptr}};
const std::vector<ChatMessage> kQwenXmlWithSystem = {{"system", "You are terse.", nullptr}, {"user", "Hello!", nullptr}};
const std::vector<ChatMessage> kQwenXmlToolQuestion = {{"user", "Weather in Paris?", nullptr}};
const std::vector<ChatMessage> kQwenXmlToolQuestionWithSystem = {{"system", "You are terse.", nullptr},
                                                                  {"user", "Weather in Paris?", nullptr}};

// --- Qwen3-Coder ---

constexpr char kCoderDefaultSystem[] =
    "<|im_start|>system\nYou are Qwen, a helpful AI assistant that can interact with a computer to solve tasks.";
constexpr char kCoderToolsText[] =
    "\n\n# Tools\n\nYou have access to the following tools:\n\n<tools>\n<function>\n"
    "<name>get_weather</name>\n<description>Get the weather</description>\n<parameters>\n"
    "<parameter>\n<name>city</name>\n<type>string</type>\n<description>City name</description>\n"
    "</parameter>\n<parameter>\n<name>days</name>\n<type>integer</type>\n<enum>[1, 3, 7]</enum>\n"
    "</parameter>\n<parameter>\n<name>metric</name>\n<type>boolean</type>\n</parameter>\n"
    "<required>[\"city\"]</required>\n</parameters>\n</function>\n<function>\n"
    "<name>write_file</name>\n<parameters>\n<parameter>\n<name>content</name>\n<type>string</type>\n"
    "</parameter>\n<parameter>\n<name>lines</name>\n<type>array</type>\n"
    "<items>{\"type\": \"integer\"}</items>\n</parameter>\n<parameter>\n<name>path</name>\n"
    "<type>string</type>\n</parameter>\n</parameters>\n</function>\n</tools>\n\n"
    "If you choose to call a tool ONLY reply in the following format with NO suffix:\n\n<tool_call>\n"
    "<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nvalue_2\n</parameter>\n</function>\n</tool_call>\n\n"
    "<IMPORTANT>\nReminder:\n"
    "- Function calls MUST follow the specified format: the tool calling block MUST begin with an opening <tool_call> tag and end with a closing </tool_call> tag.\n"
    "- Required parameters MUST be specified\n"
    "- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n"
    "- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n"
    "</IMPORTANT>";
constexpr char kQwenXmlToolQuestionTurn[] =
    "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n";

TEST(ChatTemplateQwen3Coder, RendersAPlainChatAsJinja2Does) {
  EXPECT_EQ(render_qwen_xml("qwen3-coder.jinja", kQwenXmlPlain),
            "<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(render_qwen_xml("qwen3-coder.jinja", kQwenXmlWithSystem),
            "<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n");
}

TEST(ChatTemplateQwen3Coder, ShowsOfferedToolsAsXmlAfterItsOwnOrTheClientsSystemPromptAsJinja2Does) {
  EXPECT_EQ(render_qwen_xml("qwen3-coder.jinja", kQwenXmlToolQuestion, qwen_xml_context()),
            std::string(kCoderDefaultSystem) + kCoderToolsText + "<|im_end|>\n" + kQwenXmlToolQuestionTurn);
  EXPECT_EQ(render_qwen_xml("qwen3-coder.jinja", kQwenXmlToolQuestionWithSystem, qwen_xml_context()),
            std::string("<|im_start|>system\nYou are terse.") + kCoderToolsText + "<|im_end|>\n" +
                kQwenXmlToolQuestionTurn);
}

TEST(ChatTemplateQwen3Coder, WritesCallsAsParameterTagsAndResultsAsOneUserTurnAsJinja2Does) {
  EXPECT_EQ(render_qwen_xml("qwen3-coder.jinja", qwen_xml_history(), qwen_xml_context()),
            std::string(kCoderDefaultSystem) + kCoderToolsText + "<|im_end|>\n" +
        "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\nLet me check.\n\n"
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n"
        "3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n</function>\n</tool_call>\n"
        "<tool_call>\n<function=write_file>\n<parameter=content>\nif a < b:\n    print(\"x\")\n\n"
        "</parameter>\n<parameter=lines>\n[1, 2]\n</parameter>\n<parameter=opts>\n{\"mode\": \"w\"}\n"
        "</parameter>\n<parameter=path>\na.py\n</parameter>\n</function>\n</tool_call><|im_end|>\n"
        "<|im_start|>user\n<tool_response>\n{\"temp\": 21}\n</tool_response>\n<tool_response>\ndone\n"
        "</tool_response>\n<|im_end|>\n<|im_start|>assistant\nSunny, 21.<|im_end|>\n<|im_start|>user\n"
        "Thanks<|im_end|>\n<|im_start|>assistant\n");
}

// --- Qwen3.5 ---

constexpr char kQwen35ToolsText[] =
    "# Tools\n\nYou have access to the following functions:\n\n<tools>\n"
    "{\"function\": {\"description\": \"Get the weather \", \"name\": \"get_weather\", \"parameters\": {\"properties\": {\"city\": {\"description\": \"City name\", \"type\": \"string\"}, \"days\": {\"enum\": [1, 3, 7], \"type\": \"integer\"}, \"metric\": {\"type\": \"boolean\"}}, \"required\": [\"city\"], \"type\": \"object\"}}, \"type\": \"function\"}\n"
    "{\"function\": {\"name\": \"write_file\", \"parameters\": {\"properties\": {\"content\": {\"type\": \"string\"}, \"lines\": {\"items\": {\"type\": \"integer\"}, \"type\": \"array\"}, \"path\": {\"type\": \"string\"}}, \"type\": \"object\"}}, \"type\": \"function\"}\n"
    "</tools>\n\n"
    "If you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n"
    "</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second parameter\n"
    "that can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\n"
    "Reminder:\n"
    "- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\n"
    "- Required parameters MUST be specified\n"
    "- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n"
    "- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n"
    "</IMPORTANT>";

TEST(ChatTemplateQwen35, RendersAPlainChatWithThinkingOpenedAsJinja2Does) {
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja", kQwenXmlPlain),
            "<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n<think>\n");
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja", kQwenXmlWithSystem),
            "<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nHello!<|im_end|>\n"
            "<|im_start|>assistant\n<think>\n");
}

TEST(ChatTemplateQwen35, EnableThinkingFalseClosesTheThinkBlockAsJinja2Does) {
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja", {{"user", "Hi", nullptr}}, {{"enable_thinking", false}}),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
}

TEST(ChatTemplateQwen35, ShowsOfferedToolsAsJsonLinesBeforeTheClientsSystemPromptAsJinja2Does) {
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja", kQwenXmlToolQuestion, qwen_xml_context()),
            std::string("<|im_start|>system\n") + kQwen35ToolsText + "<|im_end|>\n" + kQwenXmlToolQuestionTurn +
                "<think>\n");
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja", kQwenXmlToolQuestionWithSystem, qwen_xml_context()),
            std::string("<|im_start|>system\n") + kQwen35ToolsText + "\n\nYou are terse.<|im_end|>\n" +
                kQwenXmlToolQuestionTurn + "<think>\n");
}

TEST(ChatTemplateQwen35, WritesCallsAsParameterTagsAndResultsAsOneUserTurnAsJinja2Does) {
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja", qwen_xml_history(), qwen_xml_context()),
            std::string("<|im_start|>system\n") + kQwen35ToolsText + "<|im_end|>\n" +
        "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\nLet me check.\n\n"
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n"
        "3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n</function>\n</tool_call>\n"
        "<tool_call>\n<function=write_file>\n<parameter=content>\nif a < b:\n    print(\"x\")\n\n"
        "</parameter>\n<parameter=lines>\n[1, 2]\n</parameter>\n<parameter=opts>\n{\"mode\": \"w\"}\n"
        "</parameter>\n<parameter=path>\na.py\n</parameter>\n</function>\n</tool_call><|im_end|>\n"
        "<|im_start|>user\n<tool_response>\n{\"temp\": 21}\n</tool_response>\n<tool_response>\ndone\n"
        "</tool_response><|im_end|>\n<|im_start|>assistant\nSunny, 21.<|im_end|>\n<|im_start|>user\n"
        "Thanks<|im_end|>\n<|im_start|>assistant\n<think>\n");
}

// A tool-call turn after the last user query shows its reasoning (reasoning_content) in a think
// block; turns before it show neither reasoning_content nor a <think> block in their content.
TEST(ChatTemplateQwen35, ShowsReasoningOnlyAfterTheLastUserQueryAsJinja2Does) {
  const json call = json::parse(R"({"id": "call_1", "type": "function", "function": {"name": "get_weather",
      "arguments": {"city": "Paris", "days": 3, "metric": true}}})");
  const std::vector<ChatMessage> tool_round = {
      {"user", "Weather in Paris?", nullptr},
      {"assistant", "", {{"reasoning_content", "The user wants weather."}, {"tool_calls", json::array({call})}}},
      {"tool", "sunny", {{"tool_call_id", "call_1"}}}};
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja", tool_round, qwen_xml_context()),
            std::string("<|im_start|>system\n") + kQwen35ToolsText + "<|im_end|>\n" +
        "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>\n"
        "The user wants weather.\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\n"
        "Paris\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n"
        "</function>\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\nsunny\n"
        "</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n");
  const std::string earlier =
      "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello.<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n"
      "<|im_start|>assistant\n<think>\n";
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja", {{"user", "Hi", nullptr},
                                              {"assistant", "Hello.", {{"reasoning_content", "Greet."}}},
                                              {"user", "Bye", nullptr}}),
            earlier);
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja", {{"user", "Hi", nullptr},
                                              {"assistant", "<think>\nGreet.\n</think>\n\nHello.", nullptr},
                                              {"user", "Bye", nullptr}}),
            earlier);
  EXPECT_EQ(render_qwen_xml("qwen3.5.jinja",
                            {{"user", "Hi", nullptr}, {"assistant", "<think>\nGreet.\n</think>\n\nHello.", nullptr}}),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\nGreet.\n</think>\n\nHello.<|im_end|>\n"
            "<|im_start|>assistant\n<think>\n");
}

}  // namespace
}  // namespace strata
