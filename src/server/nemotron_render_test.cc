// render_chat on Nemotron Nano 2's template (src/chat/testdata/nemotron-nano-v2.jinja) from a parsed
// OpenAI request: the tools offered as JSON in the system turn, an earlier call written back as a
// <TOOLCALL> block, its result as a <TOOL_RESPONSE>, and the generation prompt, which opens the
// thinking unless a system or user turn says /no_think. The model text reads it as Nemotron's calls.
// kNemotronOpenAiToolChat's render was compared whole with jinja2 3.1.6's (trim_blocks,
// lstrip_blocks, tojson as json.dumps(ensure_ascii=False), given the messages chat_input() builds):
// byte for byte the same.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/engine_model.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {

using nlohmann::json;

const char* kNemotronOpenAiToolChat = R"({"messages": [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_Xy12", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_Xy12", "content": "sunny"}],
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather now",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]})";

Result<std::string> render_nemotron(const std::string& body) {
  Result<CompletionRequest> request = parse_chat_completion_request(RequestJson::parse(body));
  if (!request.ok()) return request.status();
  return render_chat(load_testdata_template("nemotron-nano-v2.jinja"), request->prompt, "<s>", "<SPECIAL_12>");
}

TEST(NemotronRender, NanoV2TakesAnOpenAiClientsToolHistoryAndOpensItsThinking) {
  Result<std::string> out = render_nemotron(kNemotronOpenAiToolChat);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->starts_with("<SPECIAL_10>System\nYou are terse.\n\nYou can use the following tools")) << *out;
  EXPECT_NE(out->find(R"(<AVAILABLE_TOOLS>[{"name": "get_weather", "description": "Weather now", "parameters": )"),
            std::string::npos) << *out;
  EXPECT_NE(out->find("<SPECIAL_11>User\nWeather in Paris?\n<SPECIAL_11>Assistant\n<TOOLCALL>[{\"name\": "
                      "\"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]</TOOLCALL>\n<SPECIAL_12>\n\n"
                      "<SPECIAL_11>User\n<TOOL_RESPONSE>[sunny]</TOOL_RESPONSE>\n\n"),
            std::string::npos) << *out;
  EXPECT_TRUE(out->ends_with("<SPECIAL_11>Assistant\n<think>\n\n")) << *out;
  const TemplateTraits traits = template_traits(load_testdata_template("nemotron-nano-v2.jinja"));
  EXPECT_EQ(traits.tool_syntax, ToolCallSyntax::kNemotron);
  EXPECT_FALSE(traits.tools_in_system_turn);  // the template shows the tools itself
}

// "/no_think" in the system prompt closes the thinking at once, and leaves the prompt's text.
TEST(NemotronRender, NanoV2ClosesItsThinkingOnNoThink) {
  json body = json::parse(kNemotronOpenAiToolChat);
  body["messages"][0]["content"] = "You are terse. /no_think";
  Result<std::string> out = render_nemotron(body.dump());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->starts_with("<SPECIAL_10>System\nYou are terse.\n\n")) << *out;
  EXPECT_TRUE(out->ends_with("<SPECIAL_11>Assistant\n<think></think>")) << *out;
}

}  // namespace
}  // namespace strata::server
