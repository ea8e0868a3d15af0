// DeepSeek-R1's and DeepSeek-V3.1's chat templates (testdata/deepseek-r1.jinja,
// testdata/deepseek-v3.1.jinja) through our Jinja interpreter. The expected prompts are Python
// jinja2's renderings of the same templates and messages (jinja2 3.1.2, a sandboxed environment
// with trim_blocks and lstrip_blocks and Hugging Face's tojson, as transformers renders chat
// templates; bos_token "<｜begin▁of▁sentence｜>").
//
// The messages are as OpenAI clients send them and llama.cpp hands them to a template: a tool-call
// turn has a null content and its arguments as JSON text, which both templates concatenate with
// '+' (R1 inside a ```json fence after "function<｜tool▁sep｜>NAME", V3.1 right after
// "NAME<｜tool▁sep｜>"). Neither template shows the offered tools to the model. R1's generation
// prompt opens "<think>\n"; V3.1's writes "</think>" (thinking off) or, with `thinking`, "<think>".
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"

namespace strata {
namespace {

using nlohmann::json;

constexpr char kDeepseekBos[] = "<｜begin▁of▁sentence｜>";

std::string render_deepseek(const std::string& file, const std::vector<ChatMessage>& messages,
                            const json& extra = {}) {
  Result<std::string> out = load_testdata_template(file).apply(messages, /*add_generation_prompt=*/true,
                                                               kDeepseekBos, "<｜end▁of▁sentence｜>", extra);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::string();
}

json deepseek_weather_tool() {
  return json::parse(R"({"type": "function", "function": {"name": "get_weather",
      "description": "Get the weather", "parameters": {"type": "object", "required": ["city"],
      "properties": {"city": {"type": "string"}}}}})");
}

json deepseek_call(const std::string& id, const std::string& name, const std::string& arguments) {
  return {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
}

// A tool-call turn as llama.cpp hands it to the template: null content, arguments as text.
ChatMessage deepseek_call_turn(const json& calls) {
  return {"assistant", "", {{"content", nullptr}, {"tool_calls", calls}}};
}

const std::vector<ChatMessage> kDeepseekPlain = {{"user", "Hello!", nullptr}};
const std::vector<ChatMessage> kDeepseekWithSystem = {{"system", "You are terse.", nullptr},
                                                      {"user", "Hello!", nullptr}};
const std::vector<ChatMessage> kDeepseekMultiTurn = {{"user", "Hi", nullptr},
                                                     {"assistant", "<think>\nGreet.\n</think>\n\nHello.", nullptr},
                                                     {"user", "Bye", nullptr}};

std::vector<ChatMessage> deepseek_one_call_and_result() {
  return {{"user", "Weather in Paris?", nullptr},
          deepseek_call_turn(json::array({deepseek_call("call_1", "get_weather", R"({"city": "Paris", "days": 3})")})),
          {"tool", "{\"temp\": 21}", {{"tool_call_id", "call_1"}}}};
}

std::vector<ChatMessage> deepseek_two_calls_results_and_answer() {
  return {{"user", "Weather and time in Paris?", nullptr},
          deepseek_call_turn(json::array({deepseek_call("call_1", "get_weather", R"({"city": "Paris", "days": 3})"),
                                          deepseek_call("call_2", "get_time", R"({"city": "Paris"})")})),
          {"tool", "sunny", {{"tool_call_id", "call_1"}}},
          {"tool", "noon", {{"tool_call_id", "call_2"}}},
          {"assistant", "Sunny at noon.", nullptr},
          {"user", "Thanks", nullptr}};
}

// --- DeepSeek-R1 ---

TEST(ChatTemplateDeepseekR1, RendersAPlainChatWithThinkingOpenedAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-r1.jinja", kDeepseekPlain),
            "<｜begin▁of▁sentence｜><｜User｜>Hello!<｜Assistant｜><think>\n");
}

TEST(ChatTemplateDeepseekR1, PutsTheSystemPromptFirstAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-r1.jinja", kDeepseekWithSystem),
            "<｜begin▁of▁sentence｜>You are terse.<｜User｜>Hello!<｜Assistant｜><think>\n");
}

TEST(ChatTemplateDeepseekR1, KeepsOnlyWhatFollowsThinkInEarlierRepliesAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-r1.jinja", kDeepseekMultiTurn),
            "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜>\n\nHello.<｜end▁of▁sentence｜>"
            "<｜User｜>Bye<｜Assistant｜><think>\n");
}

TEST(ChatTemplateDeepseekR1, WritesNothingOfOfferedToolsAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-r1.jinja", kDeepseekPlain, {{"tools", json::array({deepseek_weather_tool()})}}),
            render_deepseek("deepseek-r1.jinja", kDeepseekPlain));
}

// The template closes the calls only from the second call on, and writes no generation prompt
// after tool results (jinja2 renders it so too).
TEST(ChatTemplateDeepseekR1, RendersAToolCallAndItsResultAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-r1.jinja", deepseek_one_call_and_result(),
                            {{"tools", json::array({deepseek_weather_tool()})}}),
            "<｜begin▁of▁sentence｜><｜User｜>Weather in Paris?<｜Assistant｜><｜tool▁calls▁begin｜>"
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\", \"days\": 3}\n```"
            "<｜tool▁call▁end｜><｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>{\"temp\": 21}<｜tool▁output▁end｜>"
            "<｜tool▁outputs▁end｜>");
}

TEST(ChatTemplateDeepseekR1, RendersTwoCallsTheirResultsAndTheAnswerAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-r1.jinja", deepseek_two_calls_results_and_answer()),
            "<｜begin▁of▁sentence｜><｜User｜>Weather and time in Paris?<｜Assistant｜><｜tool▁calls▁begin｜>"
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\", \"days\": 3}\n```"
            "<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{\"city\": \"Paris\"}\n```"
            "<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜><｜tool▁outputs▁begin｜>"
            "<｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>\n<｜tool▁output▁begin｜>noon<｜tool▁output▁end｜>"
            "<｜tool▁outputs▁end｜>Sunny at noon.<｜end▁of▁sentence｜><｜User｜>Thanks<｜Assistant｜><think>\n");
}

// --- DeepSeek-V3.1 ---

TEST(ChatTemplateDeepseekV31, RendersAPlainChatWithThinkingOffAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-v3.1.jinja", kDeepseekPlain),
            "<｜begin▁of▁sentence｜><｜User｜>Hello!<｜Assistant｜></think>");
}

TEST(ChatTemplateDeepseekV31, ThinkingTrueOpensThinkAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-v3.1.jinja", kDeepseekPlain, {{"thinking", true}}),
            "<｜begin▁of▁sentence｜><｜User｜>Hello!<｜Assistant｜><think>");
}

TEST(ChatTemplateDeepseekV31, PutsTheSystemPromptFirstAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-v3.1.jinja", kDeepseekWithSystem),
            "<｜begin▁of▁sentence｜>You are terse.<｜User｜>Hello!<｜Assistant｜></think>");
}

TEST(ChatTemplateDeepseekV31, KeepsOnlyWhatFollowsThinkInEarlierRepliesAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-v3.1.jinja", kDeepseekMultiTurn, {{"thinking", true}}),
            "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜></think>\n\nHello.<｜end▁of▁sentence｜>"
            "<｜User｜>Bye<｜Assistant｜><think>");
}

TEST(ChatTemplateDeepseekV31, WritesNothingOfOfferedToolsAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-v3.1.jinja", kDeepseekPlain, {{"tools", json::array({deepseek_weather_tool()})}}),
            render_deepseek("deepseek-v3.1.jinja", kDeepseekPlain));
}

// After tool results the template writes no generation prompt: the model answers right after
// the last <｜tool▁output▁end｜>.
TEST(ChatTemplateDeepseekV31, RendersAToolCallAndItsResultAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-v3.1.jinja", deepseek_one_call_and_result(),
                            {{"tools", json::array({deepseek_weather_tool()})}}),
            "<｜begin▁of▁sentence｜><｜User｜>Weather in Paris?<｜Assistant｜></think><｜tool▁calls▁begin｜>"
            "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\", \"days\": 3}<｜tool▁call▁end｜>"
            "<｜tool▁calls▁end｜><｜end▁of▁sentence｜><｜tool▁output▁begin｜>{\"temp\": 21}<｜tool▁output▁end｜>");
}

TEST(ChatTemplateDeepseekV31, WritesTheTextOfACallTurnBeforeItsCallsAsJinja2Does) {
  const std::vector<ChatMessage> messages = {
      {"user", "Weather in Paris?", nullptr},
      {"assistant", "Let me check.",
       {{"tool_calls", json::array({deepseek_call("call_1", "get_weather", R"({"city": "Paris"})")})}}},
      {"tool", "sunny", {{"tool_call_id", "call_1"}}}};
  EXPECT_EQ(render_deepseek("deepseek-v3.1.jinja", messages),
            "<｜begin▁of▁sentence｜><｜User｜>Weather in Paris?<｜Assistant｜></think>Let me check.<｜tool▁calls▁begin｜>"
            "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
            "<｜end▁of▁sentence｜><｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>");
}

TEST(ChatTemplateDeepseekV31, RendersTwoCallsTheirResultsAndTheAnswerAsJinja2Does) {
  EXPECT_EQ(render_deepseek("deepseek-v3.1.jinja", deepseek_two_calls_results_and_answer(), {{"thinking", true}}),
            "<｜begin▁of▁sentence｜><｜User｜>Weather and time in Paris?<｜Assistant｜></think><｜tool▁calls▁begin｜>"
            "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\", \"days\": 3}<｜tool▁call▁end｜>"
            "<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
            "<｜end▁of▁sentence｜><｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜><｜tool▁output▁begin｜>noon"
            "<｜tool▁output▁end｜>Sunny at noon.<｜end▁of▁sentence｜><｜User｜>Thanks<｜Assistant｜><think>");
}

}  // namespace
}  // namespace strata
