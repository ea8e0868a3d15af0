// The client's key order reaches the chat template: tools (their JSON schemas included), a
// history's tool-call arguments and chat_template_kwargs go through the server's request parser
// (parse_json_object) and the OpenAI and Anthropic request parsers into real templates
// (src/chat/testdata) with every object's keys as the client sent them, none in sorted order. The
// expected prompts are Python jinja2's renderings (3.1, as transformers renders templates) of the
// same tools and messages as Hugging Face hands them over (arguments as an object).
#include <gtest/gtest.h>

#include <string>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/anthropic_request.h"
#include "server/engine_model.h"
#include "server/json_fields.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {

// Keys out of sorted order at every level: the tool ("type" before "function"), its function
// ("name", "description", "parameters"), the schema ("type", "properties", "required"), the
// properties ("unit" before "city") and each property's schema; the call's arguments likewise.
const char* kKeyOrderOpenAiChat = R"({"messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"unit\": \"celsius\", \"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}],
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
      "parameters": {"type": "object", "properties": {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
          "city": {"type": "string", "description": "City name"}}, "required": ["city"]}}}]})";

// The same conversation as an Anthropic client sends it: input_schema becomes "parameters" with
// its keys as sent, and the tool_use input is the call's arguments.
const char* kKeyOrderAnthropicChat = R"({"max_tokens": 8, "messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"unit": "celsius", "city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]}],
  "tools": [{"name": "get_weather", "description": "Get the weather", "input_schema": {"type": "object",
      "properties": {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
          "city": {"type": "string", "description": "City name"}}, "required": ["city"]}}]})";

constexpr char kQwen3KeyOrderPrompt[] = R"EXPECTED(<|im_start|>system
# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{"type": "function", "function": {"name": "get_weather", "description": "Get the weather", "parameters": {"type": "object", "properties": {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "city": {"type": "string", "description": "City name"}}, "required": ["city"]}}}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
<|im_start|>user
Weather in Paris?<|im_end|>
<|im_start|>assistant
<tool_call>
{"name": "get_weather", "arguments": {"unit": "celsius", "city": "Paris"}}
</tool_call><|im_end|>
<|im_start|>user
<tool_response>
sunny
</tool_response><|im_end|>
<|im_start|>assistant
)EXPECTED";

constexpr char kQwen3CoderKeyOrderPrompt[] = R"EXPECTED(<|im_start|>system
You are Qwen, a helpful AI assistant that can interact with a computer to solve tasks.

# Tools

You have access to the following tools:

<tools>
<function>
<name>get_weather</name>
<description>Get the weather</description>
<parameters>
<parameter>
<name>unit</name>
<type>string</type>
<enum>["celsius", "fahrenheit"]</enum>
</parameter>
<parameter>
<name>city</name>
<type>string</type>
<description>City name</description>
</parameter>
<required>["city"]</required>
</parameters>
</function>
</tools>

If you choose to call a tool ONLY reply in the following format with NO suffix:

<tool_call>
<function=example_function_name>
<parameter=example_parameter_1>
value_1
</parameter>
<parameter=example_parameter_2>
value_2
</parameter>
</function>
</tool_call>

<IMPORTANT>
Reminder:
- Function calls MUST follow the specified format: the tool calling block MUST begin with an opening <tool_call> tag and end with a closing </tool_call> tag.
- Required parameters MUST be specified
- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after
- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls
</IMPORTANT><|im_end|>
<|im_start|>user
Weather in Paris?<|im_end|>
<|im_start|>assistant
<tool_call>
<function=get_weather>
<parameter=unit>
celsius
</parameter>
<parameter=city>
Paris
</parameter>
</function>
</tool_call><|im_end|>
<|im_start|>user
<tool_response>
sunny
</tool_response>
<|im_end|>
<|im_start|>assistant
)EXPECTED";

std::string key_order_prompt(const std::string& template_name, const Result<CompletionRequest>& request) {
  EXPECT_TRUE(request.ok()) << request.status().ToString();
  if (!request.ok()) return "";
  Result<std::string> text = render_chat(load_testdata_template(template_name), request->prompt, "", "<|im_end|>");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

std::string key_order_openai_prompt(const std::string& template_name, const std::string& body) {
  Result<RequestJson> parsed = parse_json_object(body);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? key_order_prompt(template_name, parse_chat_completion_request(*parsed)) : "";
}

std::string key_order_anthropic_prompt(const std::string& template_name, const std::string& body) {
  Result<RequestJson> parsed = parse_json_object(body);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? key_order_prompt(template_name, parse_anthropic_messages_request(*parsed)) : "";
}

// Qwen3 writes each tool with tojson and a call's arguments with tojson.
TEST(KeyOrderRender, Qwen3ShowsToolsAndArgumentsInTheClientsOrderForBothApis) {
  EXPECT_EQ(key_order_openai_prompt("qwen3.jinja", kKeyOrderOpenAiChat), kQwen3KeyOrderPrompt);
  EXPECT_EQ(key_order_anthropic_prompt("qwen3.jinja", kKeyOrderAnthropicChat), kQwen3KeyOrderPrompt);
}

// Qwen3-Coder walks tool.function.parameters.properties and the arguments with |items.
TEST(KeyOrderRender, Qwen3CoderWalksPropertiesAndArgumentsInTheClientsOrderForBothApis) {
  EXPECT_EQ(key_order_openai_prompt("qwen3-coder.jinja", kKeyOrderOpenAiChat), kQwen3CoderKeyOrderPrompt);
  EXPECT_EQ(key_order_anthropic_prompt("qwen3-coder.jinja", kKeyOrderAnthropicChat), kQwen3CoderKeyOrderPrompt);
}

// Any object in chat_template_kwargs reaches the template as sent.
TEST(KeyOrderRender, ChatTemplateKwargsKeepTheClientsOrder) {
  Result<ChatTemplate> t = ChatTemplate::Parse("{{ documents|tojson }}");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  Result<RequestJson> body = parse_json_object(R"({"messages": [{"role": "user", "content": "Hi"}],
      "chat_template_kwargs": {"documents": [{"title": "b", "text": "x", "id": 2}]}})");
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  Result<CompletionRequest> request = parse_chat_completion_request(*body);
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  Result<std::string> text = render_chat(*t, request->prompt, "", "");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, R"([{"title": "b", "text": "x", "id": 2}])");
}

}  // namespace
}  // namespace strata::server
