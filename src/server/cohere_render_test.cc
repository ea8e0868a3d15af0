// render_chat on Cohere's templates (src/chat/testdata: North-Mini-Code's and Command R7B's) from
// parsed OpenAI and Anthropic requests: the tools, an earlier call with its reasoning and its
// result, and the generation prompt, which opens North's thinking unless the request switched
// thinking off. The model text reads both as thinking models with Cohere's calls. The North render
// and the Command R7B render of kCohereOpenAiToolChat were compared whole with jinja2 3.1.2's
// (trim_blocks, lstrip_blocks, loopcontrols, tojson as json.dumps(ensure_ascii=False), as Hugging
// Face renders templates, given the messages chat_input() builds): byte for byte the same.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/anthropic_request.h"
#include "server/engine_model.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {

using nlohmann::json;

const char* kCohereOpenAiToolChat = R"({"messages": [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "reasoning_content": "Need the weather.", "tool_calls": [
        {"id": "call_Xy12", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_Xy12", "content": "sunny"}],
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather now",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]})";

Result<std::string> render_openai(const std::string& file, const std::string& body) {
  Result<CompletionRequest> request = parse_chat_completion_request(RequestJson::parse(body));
  if (!request.ok()) return request.status();
  return render_chat(load_testdata_template(file), request->prompt, "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>");
}

TEST(CohereRender, NorthTakesAnOpenAiClientsToolHistoryAndOpensItsThinking) {
  Result<std::string> out = render_openai("north-mini-code.jinja", kCohereOpenAiToolChat);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find(R"({"name": "get_weather", "description": "Weather now", "parameters": {"type": "object")"),
            std::string::npos) << *out;
  EXPECT_NE(out->find("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>Need the weather.<|END_THINKING|>"
                      "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": "
                      "{\"city\": \"Paris\"}}\n]<|END_ACTION|><|END_OF_TURN_TOKEN|>"),
            std::string::npos) << *out;
  EXPECT_NE(out->find("<|START_TOOL_RESULT|>[\n    {\n        \"tool_call_id\": \"0\""), std::string::npos) << *out;
  EXPECT_TRUE(out->ends_with("<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>")) << *out;
}

const char* kCohereAnthropicToolChat = R"({"max_tokens": 8, "system": "You are terse.",
  "thinking": {"type": "disabled"}, "messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "Need the weather.", "signature": ""},
        {"type": "tool_use", "id": "toolu_01A0", "name": "get_weather", "input": {"city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A0", "content": "sunny"}]}],
  "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]})";

// Anthropic's thinking disabled reaches North's `reasoning` switch: the prompt closes the thinking.
TEST(CohereRender, NorthTakesAnAnthropicClientsToolHistoryWithThinkingSwitchedOff) {
  Result<CompletionRequest> request = parse_anthropic_messages_request(RequestJson::parse(kCohereAnthropicToolChat));
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  const ChatTemplate north = load_testdata_template("north-mini-code.jinja");
  Result<std::string> out = render_chat(north, request->prompt, "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find("<|START_THINKING|>Need the weather.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": "
                      "\"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n]<|END_ACTION|>"),
            std::string::npos) << *out;
  EXPECT_NE(out->find("\"results\": {\n            \"0\": {\"content\": \"sunny\"}"), std::string::npos) << *out;
  EXPECT_TRUE(out->ends_with("<|CHATBOT_TOKEN|><|START_THINKING|><|END_THINKING|>")) << *out;
  const TemplateTraits traits = template_traits(north);
  EXPECT_EQ(traits.tool_syntax, ToolCallSyntax::kCohere);
  EXPECT_TRUE(traits.reasoning_from_enable_thinking);
  EXPECT_FALSE(traits.tools_in_system_turn);  // North shows the tools itself
  // A `reasoning` the client gives wins over enable_thinking.
  request->prompt.template_kwargs["reasoning"] = true;
  out = render_chat(north, request->prompt, "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->ends_with("<|CHATBOT_TOKEN|><|START_THINKING|>")) << *out;
}

// Command R7B writes a call turn's reasoning as its plan and switches thinking with enable_thinking
// (closed unless it is true).
TEST(CohereRender, CommandR7bTakesAToolHistoryAndItsEnableThinking) {
  const ChatTemplate r7b = load_testdata_template("command-r7b.jinja");
  Result<std::string> out = render_openai("command-r7b.jinja", kCohereOpenAiToolChat);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find("<|CHATBOT_TOKEN|><|START_THINKING|>Need the weather.<|END_THINKING|><|START_ACTION|>[\n"),
            std::string::npos) << *out;
  EXPECT_NE(out->find("\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}"), std::string::npos) << *out;
  EXPECT_TRUE(out->ends_with("<|CHATBOT_TOKEN|><|START_THINKING|><|END_THINKING|>")) << *out;
  json thinking = json::parse(kCohereOpenAiToolChat);
  thinking["chat_template_kwargs"] = {{"enable_thinking", true}};
  out = render_openai("command-r7b.jinja", thinking.dump());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->ends_with("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>")) << *out;
  EXPECT_EQ(template_traits(r7b).tool_syntax, ToolCallSyntax::kCohere);
  EXPECT_FALSE(template_traits(r7b).reasoning_from_enable_thinking);
  EXPECT_FALSE(template_traits(r7b).reasoning_as_thinking_chunk);
}

}  // namespace
}  // namespace strata::server
