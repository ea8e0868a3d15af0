// render_chat on the chat templates of models Strata runs whose tool calls are not Hermes JSON
// (src/chat/testdata: Seed-OSS's, Gemma 4 31B's, Step 3.5 Flash's), from a parsed OpenAI tool
// history: the tools, an earlier call with its reasoning and its result, and the generation
// prompt. Each render below was compared whole with jinja2 3.1.2's (ImmutableSandboxedEnvironment,
// trim_blocks, lstrip_blocks, loopcontrols, tojson as json.dumps(ensure_ascii=False), given the
// messages chat_input() builds): byte for byte the same. Seed-OSS's template needs dicts with
// integer keys; Gemma 4's writes an object's arguments in its own KEY:VALUE notation, so it must
// be given them as an object (the call-turn probe once took it for a template of JSON text).
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/engine_model.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {

using nlohmann::json;

const char* kToolHistory = R"({"messages": [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "reasoning_content": "Need the weather.", "tool_calls": [
        {"id": "call_Xy12", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\",\"days\":3}"}}]},
    {"role": "tool", "tool_call_id": "call_Xy12", "content": "sunny"}],
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather now",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]})";

Result<std::string> render(const std::string& file, const json& body, const char* bos, const char* eos) {
  Result<CompletionRequest> request = parse_chat_completion_request(RequestJson::parse(body.dump()));
  if (!request.ok()) return request.status();
  return render_chat(load_testdata_template(file), request->prompt, bos, eos);
}

// Seed-OSS: functions in <seed:tool_call> blocks, reasoning in <seed:think>; thinking switched off
// reaches its thinking_budget, which then closes the block in the prompt.
TEST(RealTemplatesRender, SeedOssTakesAToolHistoryAndItsThinkingBudget) {
  Result<std::string> out = render("seed-oss.jinja", json::parse(kToolHistory), "<seed:bos>", "<seed:eos>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find("<seed:bos>assistant\n<seed:think>Need the weather.</seed:think>\n<seed:tool_call>\n"
                      "<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n"
                      "</function>\n</seed:tool_call><seed:eos><seed:bos>tool\nsunny<seed:eos>"),
            std::string::npos) << *out;
  EXPECT_TRUE(out->ends_with("<seed:bos>assistant\n")) << *out;
  json off = json::parse(kToolHistory);
  off["chat_template_kwargs"] = {{"enable_thinking", false}};
  out = render("seed-oss.jinja", off, "<seed:bos>", "<seed:eos>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->ends_with("so I will directly start answering the question.</seed:cot_budget_reflect>\n"
                             "</seed:think>")) << *out;
  const TemplateTraits traits = template_traits(load_testdata_template("seed-oss.jinja"));
  EXPECT_EQ(traits.tool_syntax, ToolCallSyntax::kXmlParams);
  EXPECT_TRUE(traits.thinking_budget_from_enable_thinking);
}

// Gemma 4 31B: the call in its notation from an object, the result as a response to it.
TEST(RealTemplatesRender, Gemma4TakesAToolHistoryWithArgumentsAsAnObject) {
  Result<std::string> out = render("gemma-4-31b-it.jinja", json::parse(kToolHistory), "<bos>", "<eos>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find("<|tool>declaration:get_weather{description:<|\"|>Weather now<|\"|>"), std::string::npos) << *out;
  EXPECT_TRUE(out->ends_with("<|turn>model\n<|channel>thought\nNeed the weather.\n<channel|>"
                             "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>"
                             "<|tool_response>response:get_weather{value:<|\"|>sunny<|\"|>}<tool_response|>"))
      << *out;
  const TemplateTraits traits = template_traits(load_testdata_template("gemma-4-31b-it.jinja"));
  EXPECT_EQ(traits.tool_syntax, ToolCallSyntax::kGemma4);
  EXPECT_FALSE(traits.call_turns.arguments_as_text);
}

// Step 3.5 Flash: Qwen3-Coder's functions and parameters, reasoning in <think>.
TEST(RealTemplatesRender, Step35TakesAToolHistory) {
  Result<std::string> out = render("step-3.5-flash.jinja", json::parse(kToolHistory), "<s>", "</s>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find("<|im_start|>assistant\n<think>\nNeed the weather.\n</think>\n<tool_call>\n<function=get_weather>\n"
                      "<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n"
                      "</tool_call><|im_end|>\n<|im_start|>tool_response\n<tool_response>sunny</tool_response><|im_end|>"),
            std::string::npos) << *out;
  EXPECT_TRUE(out->ends_with("<|im_start|>assistant\n<think>\n")) << *out;
  EXPECT_EQ(template_traits(load_testdata_template("step-3.5-flash.jinja")).tool_syntax, ToolCallSyntax::kXmlParams);
}

}  // namespace
}  // namespace strata::server
