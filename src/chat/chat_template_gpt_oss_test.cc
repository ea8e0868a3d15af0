// gpt-oss's chat template (OpenAI's harmony format, testdata/gpt-oss.jinja) through our Jinja
// interpreter, against renderings written out from the format: a system header the template
// writes itself, the caller's system message as the developer's instructions, each turn as
// <|start|>ROLE<|message|>...<|end|>, assistant answers on the final channel, tools as a
// TypeScript-like namespace, tool calls on the commentary channel, and <|start|>assistant as
// the generation prompt.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"

namespace strata {
namespace {

ChatTemplate load_gpt_oss_template() { return load_testdata_template("gpt-oss.jinja"); }

// 2026-01-15 12:00 UTC: the same date in every time zone strftime_now may format it in.
constexpr int64_t kGptOssNow = 1768478400;

std::string render_gpt_oss(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                           const nlohmann::json& extra = {}) {
  jinja::RenderOptions options;
  options.now_s = kGptOssNow;
  Result<std::string> out =
      load_gpt_oss_template().apply(messages, add_generation_prompt, "<|startoftext|>", "<|return|>", extra, options);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::string();
}

std::string gpt_oss_system(const std::string& reasoning = "medium", const std::string& tools_line = "") {
  return "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n"
         "Knowledge cutoff: 2024-06\nCurrent date: 2026-01-15\n\nReasoning: " +
         reasoning +
         "\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message." +
         tools_line + "<|end|>";
}

const char kGptOssDeveloper[] = "<|start|>developer<|message|># Instructions\n\nYou are a helpful assistant.\n\n<|end|>";

TEST(ChatTemplateGptOss, RendersSystemAndUserWithGenerationPrompt) {
  std::vector<ChatMessage> messages = {{"system", "You are a helpful assistant.", nullptr},
                                       {"user", "Hello!", nullptr}};
  EXPECT_EQ(render_gpt_oss(messages, true),
            gpt_oss_system() + kGptOssDeveloper + "<|start|>user<|message|>Hello!<|end|><|start|>assistant");
  EXPECT_EQ(render_gpt_oss(messages, false),
            gpt_oss_system() + kGptOssDeveloper + "<|start|>user<|message|>Hello!<|end|>");
}

TEST(ChatTemplateGptOss, RendersEarlierAnswersOnTheFinalChannel) {
  std::vector<ChatMessage> messages = {{"system", "You are a helpful assistant.", nullptr},
                                       {"user", "Hello!", nullptr},
                                       {"assistant", "Hi there. How can I help?", {{"thinking", "Greet back."}}},
                                       {"user", "What is 2+2?", nullptr}};
  // Earlier turns' analysis is dropped: only their final answers stay in the prompt.
  EXPECT_EQ(render_gpt_oss(messages, true),
            gpt_oss_system() + kGptOssDeveloper +
                "<|start|>user<|message|>Hello!<|end|>"
                "<|start|>assistant<|channel|>final<|message|>Hi there. How can I help?<|end|>"
                "<|start|>user<|message|>What is 2+2?<|end|>"
                "<|start|>assistant");
}

TEST(ChatTemplateGptOss, WithoutSystemOrGenerationPromptEndsTheLastAnswerWithReturn) {
  std::vector<ChatMessage> messages = {{"user", "What is 2+2?", nullptr},
                                       {"assistant", "4", {{"thinking", "Simple sum."}}}};
  EXPECT_EQ(render_gpt_oss(messages, false, {{"reasoning_effort", "high"}}),
            gpt_oss_system("high") +
                "<|start|>user<|message|>What is 2+2?<|end|>"
                "<|start|>assistant<|channel|>analysis<|message|>Simple sum.<|end|>"
                "<|start|>assistant<|channel|>final<|message|>4<|return|>");
}

TEST(ChatTemplateGptOss, RaisesOnChannelTagsInContent) {
  std::vector<ChatMessage> messages = {{"user", "Hi", nullptr},
                                       {"assistant", "<|channel|>final<|message|>Hello", nullptr}};
  jinja::RenderOptions options;
  Result<std::string> out = load_gpt_oss_template().apply(messages, true, "", "", {}, options);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("containing <|channel|> tags"), std::string::npos) << out.status().message();
}

TEST(ChatTemplateGptOss, RendersToolsToolCallsAndToolResults) {
  const nlohmann::json tool = nlohmann::json::parse(R"({"type": "function", "function": {
      "name": "get_weather", "description": "Get the weather",
      "parameters": {"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
        "days": {"type": "integer"},
        "hours": {"type": "array", "items": {"type": "number"}}}}}})");
  const nlohmann::json call = {
      {"tool_calls", {{{"function", {{"name", "get_weather"}, {"arguments", {{"city", "Paris"}}}}}}}}};
  std::vector<ChatMessage> messages = {{"system", "You are a helpful assistant.", nullptr},
                                       {"user", "Weather in Paris?", nullptr},
                                       {"assistant", "", call},
                                       {"tool", "{\"temp\": 21}", nullptr}};
  // The properties come in the JSON object's order (nlohmann::json sorts keys).
  EXPECT_EQ(render_gpt_oss(messages, true, {{"tools", {tool}}}),
            gpt_oss_system("medium", "\nCalls to these tools must go to the commentary channel: 'functions'.") +
                "<|start|>developer<|message|># Instructions\n\nYou are a helpful assistant.\n\n"
                "# Tools\n\n## functions\n\nnamespace functions {\n\n"
                "// Get the weather\n"
                "type get_weather = (_: {\n"
                "// City name\ncity: string,\n"
                "days?: number,\n"
                "hours?: number[],\n"
                "unit?: \"c\" | \"f\", // default: c,\n"
                "}) => any;\n\n"
                "} // namespace functions<|end|>"
                "<|start|>user<|message|>Weather in Paris?<|end|>"
                "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>"
                "{\"city\": \"Paris\"}<|call|>"
                "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>"
                "\"{\\\"temp\\\": 21}\"<|end|>"
                "<|start|>assistant");
}

// Every branch of the template's TypeScript type renderer (nested objects through the recursive
// macro, unions of types, oneOf, arrays, nullable, defaults) and a tool without parameters. The
// expected text, odd whitespace of the template's own included, is what Python's jinja2 3.1.6
// renders from the same input with transformers' settings (trim_blocks, lstrip_blocks, tojson as
// json.dumps) and sorted keys.
TEST(ChatTemplateGptOss, RendersEveryKindOfParameterTypeAsJinja2Does) {
  const nlohmann::json tools = nlohmann::json::parse(R"([
    {"type": "function", "function": {"name": "search", "description": "Search the docs",
      "parameters": {"type": "object", "required": ["query"], "properties": {
        "query": {"type": "string", "description": "What to find"},
        "filters": {"type": "object", "properties": {"lang": {"type": "string"},
                    "year": {"type": ["integer", "null"]}}, "required": ["lang"]},
        "limit": {"type": "integer", "default": 10},
        "mode": {"oneOf": [{"type": "string", "description": "a name"}, {"type": "number"}]},
        "tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
        "note": {"type": "string", "nullable": true},
        "flags": {"type": "array"},
        "ids": {"type": "array", "items": {"type": "integer"}, "nullable": true}}}}},
    {"type": "function", "function": {"name": "now", "description": "The time"}}])");
  EXPECT_EQ(render_gpt_oss({{"user", "Find it", nullptr}}, true, {{"tools", tools}}),
            gpt_oss_system("medium", "\nCalls to these tools must go to the commentary channel: 'functions'.") +
                "<|start|>developer<|message|># Tools\n"
                "\n"
                "## functions\n"
                "\n"
                "namespace functions {\n"
                "\n"
                "// Search the docs\n"
                "type search = (_: {\n"
                "filters?: {\n"
                "lang: \n"
                "                string, year?: \n"
                "                integer | null},\n"
                "flags?: any[],\n"
                "ids?: number[] | null,\n"
                "limit?: number, // default: 10,\n"
                "mode?: string// a name | \n"
                "number,\n"
                "note?: string | null,\n"
                "// What to find\n"
                "query: string,\n"
                "tags?: {\n"
                "k?: \n"
                "                string}[],\n"
                "}) => any;\n"
                "\n"
                "// The time\n"
                "type now = () => any;\n"
                "\n"
                "} // namespace functions<|end|><|start|>user<|message|>Find it<|end|><|start|>assistant");
}

TEST(ChatTemplateGptOss, RendersBuiltinToolsAndModelIdentity) {
  const std::string out = render_gpt_oss({{"user", "Hi", nullptr}}, true,
                                         {{"builtin_tools", {"python"}}, {"model_identity", "You are Strata."}});
  EXPECT_EQ(out.rfind("<|start|>system<|message|>You are Strata.\nKnowledge cutoff: 2024-06\n", 0), 0u) << out;
  EXPECT_NE(out.find("Reasoning: medium\n\n# Tools\n\n## python\n\nUse this tool to execute Python code"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Depends on the cluster.\n\n# Valid channels"), std::string::npos) << out;
}

}  // namespace
}  // namespace strata
