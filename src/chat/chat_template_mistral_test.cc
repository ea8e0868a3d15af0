// Mistral's chat templates (testdata/mistral-small-3.2.jinja, devstral-small-2507.jinja,
// ministral-3-reasoning.jinja, mistral-nemo.jinja) through our Jinja interpreter. The expected
// prompts are Python jinja2's renderings of the same templates and messages (jinja2 3.1.6, a
// sandboxed environment with trim_blocks and lstrip_blocks, loop controls, Hugging Face's tojson
// and strftime_now at 2026-01-15, as transformers renders chat templates; bos_token "<s>",
// eos_token "</s>"), given the JSON objects with their keys sorted, as these tests build them
// (nlohmann::json; requests keep the client's order: server/key_order_render_test.cc).
//
// The calls are the newer form, `[TOOL_CALLS]NAME[ARGS]JSON` (Small 3.2 with `[CALL_ID]ID` between,
// and ids of 9 characters demanded), and Nemo's `[TOOL_CALLS][{...}]`; every template writes the
// arguments with tojson when they are an object, so a tool history goes in with object arguments.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"

namespace strata {
namespace {

using nlohmann::json;

// 2026-01-15 12:00 UTC: the same date in every time zone strftime_now may format it in.
constexpr int64_t kMistralNow = 1768478400;

Result<std::string> try_render_mistral(const std::string& file, const std::vector<ChatMessage>& messages,
                                       const json& extra = json::object()) {
  jinja::RenderOptions options;
  options.now_s = kMistralNow;
  return load_testdata_template(file).apply(messages, /*add_generation_prompt=*/true, "<s>", "</s>", extra, options);
}

std::string render_mistral(const std::string& file, const std::vector<ChatMessage>& messages,
                           const json& extra = json::object()) {
  Result<std::string> out = try_render_mistral(file, messages, extra);
  EXPECT_TRUE(out.ok()) << file << ": " << out.status().ToString();
  return out.ok() ? *out : std::string();
}

json mistral_tools() {
  return json::parse(R"([{"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
      "parameters": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}}},
      {"type": "function", "function": {"name": "get_time", "description": "Get the time",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])");
}

// mistral_tools() as tojson writes it (keys sorted, as nlohmann::json holds them).
constexpr char kToolsJson[] =
    R"([{"function": {"description": "Get the weather", "name": "get_weather", "parameters": {"properties": )"
    R"({"city": {"type": "string"}}, "required": ["city"], "type": "object"}}, "type": "function"}, )"
    R"({"function": {"description": "Get the time", "name": "get_time", "parameters": {"properties": )"
    R"({"city": {"type": "string"}}, "type": "object"}}, "type": "function"}])";

json mistral_call(const std::string& id, const std::string& name, const json& arguments) {
  return {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
}

// Two calls (ids of 9 alphanumeric characters, as Mistral's templates demand), their results, an
// answer and one more question. before_calls: the call turn's text.
std::vector<ChatMessage> mistral_history(const std::string& before_calls = "", const std::string& id_prefix = "") {
  const std::string weather_id = id_prefix + "abcDEF123";
  const std::string time_id = id_prefix + "x9Y8z7W6v";
  const json calls = json::array({mistral_call(weather_id, "get_weather", {{"city", "Paris"}, {"days", 3}}),
                                  mistral_call(time_id, "get_time", {{"city", "Paris"}})});
  return {{"system", "You are terse.", nullptr},
          {"user", "Weather and time in Paris?", nullptr},
          {"assistant", before_calls, {{"tool_calls", calls}}},
          {"tool", "sunny", {{"tool_call_id", weather_id}}},
          {"tool", "noon", {{"tool_call_id", time_id}}},
          {"assistant", "Sunny at noon.", nullptr},
          {"user", "Thanks", nullptr}};
}

const std::vector<ChatMessage> kMistralWithSystem = {{"system", "You are terse.", nullptr},
                                                     {"user", "Hello!", nullptr}};

// --- Mistral Small 3.2 ---

TEST(ChatTemplateMistralSmall32, WritesItsDefaultSystemPromptWithTodaysDateAsJinja2Does) {
  const std::string out = render_mistral("mistral-small-3.2.jinja", {{"user", "Hello!", nullptr}});
  EXPECT_EQ(out.rfind("<s>[SYSTEM_PROMPT]You are Mistral Small 3, a Large Language Model (LLM) created by", 0), 0u);
  EXPECT_NE(out.find("The current date is 2026-01-15.\n\nWhen you're not sure"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("cannot perform the requested action at the moment.[/SYSTEM_PROMPT][INST]Hello![/INST]"));
  EXPECT_EQ(out.size(), 2335u);  // jinja2's rendering, byte for byte in length
}

TEST(ChatTemplateMistralSmall32, OffersToolsBeforeTheLastUserTurnAsJinja2Does) {
  EXPECT_EQ(render_mistral("mistral-small-3.2.jinja", kMistralWithSystem, {{"tools", mistral_tools()}}),
            std::string("<s>[SYSTEM_PROMPT]You are terse.[/SYSTEM_PROMPT][AVAILABLE_TOOLS]") + kToolsJson +
                "[/AVAILABLE_TOOLS][INST]Hello![/INST]");
}

TEST(ChatTemplateMistralSmall32, WritesCallsWithTheirIdsAndResultsAsJinja2Does) {
  EXPECT_EQ(render_mistral("mistral-small-3.2.jinja", mistral_history(), {{"tools", mistral_tools()}}),
            std::string("<s>[SYSTEM_PROMPT]You are terse.[/SYSTEM_PROMPT][INST]Weather and time in Paris?[/INST]")
                + R"([TOOL_CALLS]get_weather[CALL_ID]abcDEF123[ARGS]{"city": "Paris", "days": 3})"
                + R"([TOOL_CALLS]get_time[CALL_ID]x9Y8z7W6v[ARGS]{"city": "Paris"}</s>)"
                + "[TOOL_RESULTS]abcDEF123[TOOL_CONTENT]sunny[/TOOL_RESULTS]"
                + "[TOOL_RESULTS]x9Y8z7W6v[TOOL_CONTENT]noon[/TOOL_RESULTS]Sunny at noon.</s>"
                + "[AVAILABLE_TOOLS]" + kToolsJson + "[/AVAILABLE_TOOLS][INST]Thanks[/INST]");
}

// What an OpenAI client's ids ("call_..."), sent back unchanged, meet: the template refuses them,
// as under jinja2 (the server hands it ids it can take: engine_model.h).
TEST(ChatTemplateMistralSmall32, RefusesToolCallIdsThatAreNotNineCharactersAsJinja2Does) {
  Result<std::string> out = try_render_mistral("mistral-small-3.2.jinja", mistral_history("", "call_"));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("Tool call IDs should be alphanumeric strings with length 9!"),
            std::string::npos)
      << out.status().ToString();
}

// --- Devstral Small 1.1 (2507) ---

TEST(ChatTemplateDevstral, WritesTextThenCallsWithoutIdsAsJinja2Does) {
  EXPECT_EQ(render_mistral("devstral-small-2507.jinja", mistral_history("Let me check."), {{"tools", mistral_tools()}}),
            std::string("<s>[SYSTEM_PROMPT]You are terse.[/SYSTEM_PROMPT][AVAILABLE_TOOLS]") + kToolsJson +
                "[/AVAILABLE_TOOLS][INST]Weather and time in Paris?[/INST]Let me check."
                + R"([TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3})"
                + R"([TOOL_CALLS]get_time[ARGS]{"city": "Paris"}</s>)"
                + "[TOOL_RESULTS]sunny[/TOOL_RESULTS][TOOL_RESULTS]noon[/TOOL_RESULTS]Sunny at noon.</s>"
                + "[INST]Thanks[/INST]");
}

TEST(ChatTemplateDevstral, WritesItsDefaultSystemPromptAsJinja2Does) {
  const std::string out = render_mistral("devstral-small-2507.jinja", {{"user", "Hello!", nullptr}});
  EXPECT_EQ(out.rfind("<s>[SYSTEM_PROMPT]You are Devstral, a helpful agentic model trained by Mistral AI", 0), 0u);
  EXPECT_TRUE(out.ends_with("</TROUBLESHOOTING>[/SYSTEM_PROMPT][INST]Hello![/INST]")) << out;
  EXPECT_EQ(out.size(), 5704u);
}

// A call-only turn must come with text content: with a null one the template reads
// content[0]['text'] of None and fails, under jinja2 too.
TEST(ChatTemplateDevstral, FailsOnACallTurnWithANullContentAsJinja2Does) {
  std::vector<ChatMessage> messages = mistral_history();
  messages[2].extra["content"] = nullptr;
  EXPECT_FALSE(try_render_mistral("devstral-small-2507.jinja", messages).ok());
}

// --- Ministral 3 Reasoning ---

TEST(ChatTemplateMinistral3, AsksForThinkInItsDefaultSystemPromptAsJinja2Does) {
  const std::string out = render_mistral("ministral-3-reasoning.jinja", {{"user", "Hello!", nullptr}});
  EXPECT_EQ(out.rfind("<s>[SYSTEM_PROMPT]# HOW YOU SHOULD THINK AND ANSWER\n\n", 0), 0u) << out;
  EXPECT_NE(out.find("the template below:[THINK]Your thoughts or/and draft"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("[/THINK]Here, provide a self-contained response.[/SYSTEM_PROMPT][INST]Hello![/INST]"));
  EXPECT_EQ(out.size(), 618u);
}

TEST(ChatTemplateMinistral3, WritesThinkingChunksOfEarlierRepliesAsJinja2Does) {
  const json content = json::parse(R"([{"type": "thinking", "thinking": "Add them."}, {"type": "text", "text": "4"}])");
  const std::vector<ChatMessage> messages = {{"system", "You are terse.", nullptr},
                                             {"user", "2+2?", nullptr},
                                             {"assistant", "", {{"content", content}}},
                                             {"user", "And 3+3?", nullptr}};
  EXPECT_EQ(render_mistral("ministral-3-reasoning.jinja", messages),
            "<s>[SYSTEM_PROMPT]You are terse.[/SYSTEM_PROMPT][INST]2+2?[/INST][THINK]Add them.[/THINK]4</s>"
            "[INST]And 3+3?[/INST]");
}

TEST(ChatTemplateMinistral3, WritesCallsAndResultsAsJinja2Does) {
  EXPECT_EQ(render_mistral("ministral-3-reasoning.jinja", mistral_history(), {{"tools", mistral_tools()}}),
            std::string("<s>[SYSTEM_PROMPT]You are terse.[/SYSTEM_PROMPT][AVAILABLE_TOOLS]") + kToolsJson +
                "[/AVAILABLE_TOOLS][INST]Weather and time in Paris?[/INST]"
                + R"([TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3})"
                + R"([TOOL_CALLS]get_time[ARGS]{"city": "Paris"}</s>)"
                + "[TOOL_RESULTS]sunny[/TOOL_RESULTS][TOOL_RESULTS]noon[/TOOL_RESULTS]Sunny at noon.</s>"
                + "[INST]Thanks[/INST]");
}

// --- Mistral Nemo (the older JSON form) ---

TEST(ChatTemplateMistralNemo, WritesCallsAsAJsonArrayWithIdsAsJinja2Does) {
  EXPECT_EQ(render_mistral("mistral-nemo.jinja", mistral_history(), {{"tools", mistral_tools()}}),
            std::string(R"(<s>[INST]Weather and time in Paris?[/INST][TOOL_CALLS][{"arguments": {"city": "Paris", )")
                + R"("days": 3}, "name": "get_weather", "id": "abcDEF123"}, {"arguments": {"city": "Paris"}, )"
                + R"("name": "get_time", "id": "x9Y8z7W6v"}]</s>)"
                + R"([TOOL_RESULTS]{"content": sunny, "call_id": "abcDEF123"}[/TOOL_RESULTS])"
                + R"([TOOL_RESULTS]{"content": noon, "call_id": "x9Y8z7W6v"}[/TOOL_RESULTS]Sunny at noon.</s>)"
                + R"([AVAILABLE_TOOLS][{"type": "function", "function": {"description": "Get the weather", )"
                + R"("name": "get_weather", "parameters": {"properties": {"city": {"type": "string"}}, )"
                + R"("required": ["city"], "type": "object"}}}, {"type": "function", "function": )"
                + R"({"description": "Get the time", "name": "get_time", "parameters": {"properties": )"
                + R"({"city": {"type": "string"}}, "type": "object"}}}][/AVAILABLE_TOOLS])"
                + "[INST]You are terse.\n\nThanks[/INST]");
}

}  // namespace
}  // namespace strata
