// render_chat on Mistral's templates (src/chat/testdata) from parsed OpenAI and Anthropic requests.
// Mistral Small 3.2's template refuses tool call ids that are not 9 alphanumeric characters, and
// clients send back the ids they got ("call_...", "toolu_..."): those go to it as
// nine_character_call_id() of themselves, the same in the call and in its result, so a history
// renders as it would with such ids (the form jinja2 renders in ChatTemplateMistralSmall32.*).
// Ministral 3 Reasoning's template shows earlier reasoning only as a thinking chunk of the content,
// which is how the turn's reasoning reaches it.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/anthropic_request.h"
#include "server/engine_model.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {

using nlohmann::json;

const char* kMistralOpenAiToolChat = R"({"messages": [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_Xy12abCD34efGH56ijKL78mn", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_Xy12abCD34efGH56ijKL78mn", "content": "sunny"}],
  "tools": [{"type": "function", "function": {"name": "get_weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]})";

const char* kMistralAnthropicToolChat = R"({"max_tokens": 8, "system": "You are terse.", "messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather", "input": {"city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
        "content": "sunny"}]}],
  "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]})";

Result<std::string> mistral_openai_prompt(const std::string& file, const std::string& body) {
  Result<CompletionRequest> request = parse_chat_completion_request(RequestJson::parse(body));
  if (!request.ok()) return request.status();
  return render_chat(load_testdata_template(file), request->prompt, "<s>", "</s>");
}

// How the prompt ends: the user's question, the call and its result with `id`.
std::string small32_history(const std::string& id) {
  return "[INST]Weather in Paris?[/INST][TOOL_CALLS]get_weather[CALL_ID]" + id +
         R"([ARGS]{"city": "Paris"}</s>[TOOL_RESULTS])" + id + "[TOOL_CONTENT]sunny[/TOOL_RESULTS]";
}

TEST(MistralRender, NineCharacterCallIdsAreStableAlphanumericAndKeepThoseAlreadySo) {
  const std::string id = nine_character_call_id("call_Xy12abCD34efGH56ijKL78mn");
  EXPECT_EQ(id.size(), 9u);
  EXPECT_EQ(id.find_first_not_of("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"), std::string::npos);
  EXPECT_EQ(nine_character_call_id("call_Xy12abCD34efGH56ijKL78mn"), id);
  EXPECT_NE(nine_character_call_id("call_Xy12abCD34efGH56ijKL78mo"), id);
  EXPECT_EQ(nine_character_call_id("a1B2c3D4e"), "a1B2c3D4e");
  EXPECT_NE(nine_character_call_id("a1B2c3D4_"), "a1B2c3D4_");
  EXPECT_EQ(nine_character_call_id("").size(), 9u);
}

TEST(MistralRender, Small32TakesAnOpenAiClientsToolHistory) {
  Result<std::string> out = mistral_openai_prompt("mistral-small-3.2.jinja", kMistralOpenAiToolChat);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->ends_with(small32_history(nine_character_call_id("call_Xy12abCD34efGH56ijKL78mn")))) << *out;
  EXPECT_TRUE(template_traits(load_testdata_template("mistral-small-3.2.jinja")).nine_character_call_ids);
}

TEST(MistralRender, Small32TakesAnAnthropicClientsToolHistory) {
  Result<CompletionRequest> request = parse_anthropic_messages_request(RequestJson::parse(kMistralAnthropicToolChat));
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  Result<std::string> out = render_chat(load_testdata_template("mistral-small-3.2.jinja"), request->prompt, "<s>", "</s>");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->ends_with(small32_history(nine_character_call_id("toolu_01A09q90qw90lq917835lq9")))) << *out;
}

TEST(MistralRender, NemoTakesAnOpenAiClientsToolHistory) {
  Result<std::string> out = mistral_openai_prompt("mistral-nemo.jinja", kMistralOpenAiToolChat);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::string id = nine_character_call_id("call_Xy12abCD34efGH56ijKL78mn");
  EXPECT_NE(out->find(R"([TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": ")" + id + "\"}]</s>"),
            std::string::npos)
      << *out;
  EXPECT_NE(out->find(R"([TOOL_RESULTS]{"content": sunny, "call_id": ")" + id + "\"}[/TOOL_RESULTS]"), std::string::npos);
}

// Templates that take any id get the client's as they are.
TEST(MistralRender, DevstralKeepsTheClientsIdsAndWritesCallsWithoutThem) {
  EXPECT_FALSE(template_traits(load_testdata_template("devstral-small-2507.jinja")).nine_character_call_ids);
  Result<std::string> out = mistral_openai_prompt("devstral-small-2507.jinja", kMistralOpenAiToolChat);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find(R"([INST]Weather in Paris?[/INST][TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}</s>)"
                      "[TOOL_RESULTS]sunny[/TOOL_RESULTS]"),
            std::string::npos)
      << *out;
}

// Reasoning a client sends back (OpenAI reasoning_content) reaches Ministral 3's template as the
// thinking chunk it shows as [THINK]...[/THINK], before the text and before calls.
TEST(MistralRender, Ministral3ShowsEarlierReasoningAsThink) {
  EXPECT_TRUE(template_traits(load_testdata_template("ministral-3-reasoning.jinja")).reasoning_as_thinking_chunk);
  const std::string body = R"({"messages": [{"role": "system", "content": "You are terse."},
      {"role": "user", "content": "2+2?"},
      {"role": "assistant", "content": "4", "reasoning_content": "Add them."},
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": null, "reasoning_content": "Ask the tool.", "tool_calls": [{"id": "call_1",
          "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]})";
  Result<std::string> out = mistral_openai_prompt("ministral-3-reasoning.jinja", body);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out,
            "<s>[SYSTEM_PROMPT]You are terse.[/SYSTEM_PROMPT][INST]2+2?[/INST][THINK]Add them.[/THINK]4</s>"
            "[INST]Weather in Paris?[/INST][THINK]Ask the tool.[/THINK]"
            R"([TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}</s>[TOOL_RESULTS]sunny[/TOOL_RESULTS])");
  EXPECT_FALSE(template_traits(load_testdata_template("qwen3.jinja")).reasoning_as_thinking_chunk);
}

}  // namespace
}  // namespace strata::server
