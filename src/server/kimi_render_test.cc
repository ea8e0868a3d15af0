// render_chat on Kimi K2's templates (src/chat/testdata/kimi-k2*.jinja) from parsed OpenAI and
// Anthropic requests, and what the server reads off those templates. The expected prompts are
// Python jinja2's renderings (3.1.6; see chat_template_kimi_test.cc) of the messages as the model
// would see a history it wrote itself: every call named `functions.NAME:INDEX`, numbered as the
// template numbers calls, each tool result under its call's id, whatever ids the client sent
// (Strata's own "call_..." / "toolu_...": kimi_call_ids.h). Arguments go over as objects (tojson).
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/anthropic_request.h"
#include "server/engine_model.h"
#include "server/kimi_call_ids.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {

using nlohmann::json;

// Two calls, their results, a later call and its result, with the ids Strata gave the client.
const char* kKimiOpenAiToolChat = R"({"messages": [
    {"role": "user", "content": "Weather and time in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_abc_0", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
        {"id": "call_abc_1", "type": "function", "function": {"name": "get_time", "arguments": "{\"zone\":\"CET\"}"}}]},
    {"role": "tool", "tool_call_id": "call_abc_0", "content": "sunny"},
    {"role": "tool", "tool_call_id": "call_abc_1", "content": "noon"},
    {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_def_0", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}]},
    {"role": "tool", "tool_call_id": "call_def_0", "content": "rain"}],
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]})";

const char* kKimiAnthropicToolChat = R"({"max_tokens": 8, "messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_abc_0", "name": "get_weather", "input": {"city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_abc_0", "content": "sunny"}]}],
  "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]})";

constexpr char kKimiWeatherToolDeclared[] =
    "<|im_system|>tool_declare<|im_middle|>[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", "
    "\"description\": \"Get the weather\", \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": "
    "{\"type\": \"string\"}}, \"required\": [\"city\"]}}}]<|im_end|>";
constexpr char kKimiSystem[] =
    "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot AI.<|im_end|>";
constexpr char kKimiOpener[] = "<|im_assistant|>assistant<|im_middle|>";

std::string kimi_prompt(const ChatTemplate& t, const Result<CompletionRequest>& request) {
  EXPECT_TRUE(request.ok()) << request.status().ToString();
  if (!request.ok()) return "";
  Result<std::string> text = render_chat(t, request->prompt, "[BOS]", "[EOS]");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

std::string kimi_openai_prompt(const char* file, const std::string& body) {
  return kimi_prompt(load_testdata_template(file), parse_chat_completion_request(RequestJson::parse(body)));
}

std::string kimi_anthropic_prompt(const char* file, const std::string& body) {
  return kimi_prompt(load_testdata_template(file), parse_anthropic_messages_request(RequestJson::parse(body)));
}

// kKimiOpenAiToolChat's turns as a Kimi template writes them: each assistant turn opened with
// REPLY_OPENER after the turn header, results under RESULT_IDS followed by NEWLINE (the first
// template writes a backslash and an n), the second call turn's call numbered ROME_INDEX.
std::string kimi_openai_turns(const std::string& reply_opener, const std::string& newline,
                              const std::vector<std::string>& result_ids, int rome_index) {
  return "<|im_user|>user<|im_middle|>Weather and time in Paris?<|im_end|>" + std::string(kKimiOpener) +
         reply_opener +
         "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
         "{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>"
         "{\"zone\": \"CET\"}<|tool_call_end|><|tool_calls_section_end|><|im_end|><|im_system|>tool<|im_middle|>"
         "## Return of " + result_ids[0] + newline + "sunny<|im_end|><|im_system|>tool<|im_middle|>## Return of " +
         result_ids[1] + newline + "noon<|im_end|>" + kKimiOpener + reply_opener +
         "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:" + std::to_string(rome_index) +
         "<|tool_call_argument_begin|>{\"city\": \"Rome\"}<|tool_call_end|><|tool_calls_section_end|><|im_end|>"
         "<|im_system|>tool<|im_middle|>## Return of " + result_ids[2] + newline + "rain<|im_end|>" + kKimiOpener;
}

TEST(KimiRender, TemplatesAreReadAsKimiCallsShowingToolsAndTakingObjectArguments) {
  for (const char* file : {"kimi-k2.jinja", "kimi-k2-instruct.jinja", "kimi-k2-thinking.jinja"}) {
    const TemplateTraits traits = template_traits(load_testdata_template(file));
    EXPECT_EQ(traits.tool_syntax, ToolCallSyntax::kKimiK2) << file;
    EXPECT_FALSE(traits.tools_in_system_turn) << file;
    EXPECT_FALSE(traits.call_turns.arguments_as_text) << file;
    EXPECT_FALSE(traits.call_turns.null_content) << file;
  }
  EXPECT_EQ(template_traits(load_testdata_template("kimi-k2.jinja")).kimi_calls, KimiCallNumbering::kPerTurn);
  EXPECT_EQ(template_traits(load_testdata_template("kimi-k2-instruct.jinja")).kimi_calls,
            KimiCallNumbering::kConversation);
  EXPECT_EQ(template_traits(load_testdata_template("kimi-k2-thinking.jinja")).kimi_calls,
            KimiCallNumbering::kConversation);
  for (const char* file : {"qwen3.jinja", "deepseek-v3.1.jinja", "glm-4.6.jinja"}) {
    EXPECT_EQ(template_traits(load_testdata_template(file)).kimi_calls, KimiCallNumbering::kNone) << file;
  }
}

// The first K2 template writes a result under the tool_call_id it gets: Strata's ids become the
// ids the template gave the calls, numbered per turn.
TEST(KimiRender, FirstTemplateWritesResultsUnderItsOwnPerTurnIds) {
  EXPECT_EQ(kimi_openai_prompt("kimi-k2.jinja", kKimiOpenAiToolChat),
            std::string(kKimiWeatherToolDeclared) +
                "<|im_system|>system<|im_middle|>You are a helpful assistant<|im_end|>" +
                kimi_openai_turns("", "\\n", {"functions.get_weather:0", "functions.get_time:1", "functions.get_weather:0"},
                                  0));
}

TEST(KimiRender, LaterTemplatesRenderAnOpenAiToolHistoryAsJinja2Does) {
  const std::vector<std::string> ids = {"functions.get_weather:0", "functions.get_time:1", "functions.get_weather:2"};
  EXPECT_EQ(kimi_openai_prompt("kimi-k2-instruct.jinja", kKimiOpenAiToolChat),
            kKimiWeatherToolDeclared + std::string(kKimiSystem) + "\n" + kimi_openai_turns("", "\n", ids, 2));
  EXPECT_EQ(kimi_openai_prompt("kimi-k2-thinking.jinja", kKimiOpenAiToolChat),
            kKimiWeatherToolDeclared + std::string(kKimiSystem) + kimi_openai_turns("<think></think>", "\n", ids, 2));
}

TEST(KimiRender, AnAnthropicToolHistoryRendersAsJinja2Does) {
  const std::string declared =
      "<|im_system|>tool_declare<|im_middle|>[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", "
      "\"parameters\": {\"type\": \"object\"}}}]<|im_end|>";
  auto turns = [](const std::string& think, const std::string& newline) {
    return "<|im_user|>user<|im_middle|>Weather in Paris?<|im_end|>" + std::string(kKimiOpener) + think +
           "Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
           "<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|><|im_end|>"
           "<|im_system|>tool<|im_middle|>## Return of functions.get_weather:0" + newline + "sunny<|im_end|>" +
           kKimiOpener;
  };
  EXPECT_EQ(kimi_anthropic_prompt("kimi-k2.jinja", kKimiAnthropicToolChat),
            declared + "<|im_system|>system<|im_middle|>You are a helpful assistant<|im_end|>" + turns("", "\\n"));
  EXPECT_EQ(kimi_anthropic_prompt("kimi-k2-instruct.jinja", kKimiAnthropicToolChat),
            declared + kKimiSystem + "\n" + turns("", "\n"));
  EXPECT_EQ(kimi_anthropic_prompt("kimi-k2-thinking.jinja", kKimiAnthropicToolChat),
            declared + kKimiSystem + turns("<think></think>", "\n"));
}

// K2-Thinking shows the reasoning that led to a call when the client sends it back with the call.
TEST(KimiRender, ThinkingShowsTheReasoningSentBackWithACall) {
  const std::string body = R"({"messages": [{"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": null, "reasoning_content": "Need the tool.", "tool_calls": [
          {"id": "call_x_0", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
      {"role": "tool", "tool_call_id": "call_x_0", "content": "sunny"}]})";
  EXPECT_EQ(kimi_openai_prompt("kimi-k2-thinking.jinja", body),
            std::string(kKimiSystem) + "<|im_user|>user<|im_middle|>Weather in Paris?<|im_end|>" + kKimiOpener +
                "<think>Need the tool.</think><|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
                "<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|><|im_end|>"
                "<|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\nsunny<|im_end|>" + kKimiOpener);
}

// A Kimi template that writes the ids it is given (as ik_llama.cpp's first K2-Thinking template
// did, 2ebd715) gets the numbering the later templates use, the model's own form.
TEST(KimiRender, ATemplateWritingTheIdsGivenGetsCallsNumberedThroughTheConversation) {
  Result<ChatTemplate> t = ChatTemplate::Parse(
      "{%- for t in tools or [] -%}{{ t.function.name }};{%- endfor -%}{%- for m in messages -%}"
      "{%- if m.tool_calls -%}<|tool_calls_section_begin|>{%- for c in m.tool_calls -%}<|tool_call_begin|>{{ c.id }}"
      "<|tool_call_argument_begin|>{{ c.function.arguments | tojson }}<|tool_call_end|>{%- endfor -%}"
      "<|tool_calls_section_end|>{%- elif m.role == 'tool' -%}[{{ m.tool_call_id }}: {{ m.content }}]"
      "{%- else -%}{{ m.content }}{%- endif -%}{%- endfor -%}");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const TemplateTraits traits = template_traits(*t);
  EXPECT_EQ(traits.tool_syntax, ToolCallSyntax::kKimiK2);
  EXPECT_EQ(traits.kimi_calls, KimiCallNumbering::kConversation);
  const std::string prompt = kimi_prompt(*t, parse_chat_completion_request(RequestJson::parse(kKimiOpenAiToolChat)));
  EXPECT_EQ(prompt,
            "get_weather;Weather and time in Paris?<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
            "<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.get_time:1"
            "<|tool_call_argument_begin|>{\"zone\": \"CET\"}<|tool_call_end|><|tool_calls_section_end|>"
            "[functions.get_weather:0: sunny][functions.get_time:1: noon]<|tool_calls_section_begin|><|tool_call_begin|>"
            "functions.get_weather:2<|tool_call_argument_begin|>{\"city\": \"Rome\"}<|tool_call_end|>"
            "<|tool_calls_section_end|>[functions.get_weather:2: rain]");
}

ChatMessage kimi_call_turn(const std::vector<std::pair<std::string, std::string>>& id_and_name) {
  json calls = json::array();
  for (const auto& [id, name] : id_and_name) {
    calls.push_back({{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", json::object()}}}});
  }
  return {"assistant", "", {{"tool_calls", calls}}};
}

std::string kimi_result_id(const ChatMessage& message) { return message.extra["tool_call_id"]; }

// A client that reuses an id from turn to turn (its own counter, say) gets each result matched
// to the latest call of that id; a result naming no call keeps its id.
TEST(KimiCallIds, ResultsTakeTheNewIdOfTheLatestCallOfTheirIdAndOthersKeepTheirs) {
  std::vector<ChatMessage> messages = {{"user", "Go", nullptr},
                                       kimi_call_turn({{"c0", "f"}, {"c1", "g"}}),
                                       {"tool", "a", {{"tool_call_id", "c1"}}},
                                       {"tool", "b", {{"tool_call_id", "c0"}}},
                                       kimi_call_turn({{"c0", "g"}}),
                                       {"tool", "c", {{"tool_call_id", "c0"}}},
                                       {"tool", "d", {{"tool_call_id", "unknown"}}}};
  std::vector<ChatMessage> per_turn = messages;
  number_kimi_calls(KimiCallNumbering::kConversation, &messages);
  EXPECT_EQ(messages[1].extra["tool_calls"][1]["id"], "functions.g:1");
  EXPECT_EQ(messages[4].extra["tool_calls"][0]["id"], "functions.g:2");
  EXPECT_EQ(kimi_result_id(messages[2]), "functions.g:1");
  EXPECT_EQ(kimi_result_id(messages[3]), "functions.f:0");
  EXPECT_EQ(kimi_result_id(messages[5]), "functions.g:2");
  EXPECT_EQ(kimi_result_id(messages[6]), "unknown");
  number_kimi_calls(KimiCallNumbering::kPerTurn, &per_turn);
  EXPECT_EQ(per_turn[4].extra["tool_calls"][0]["id"], "functions.g:0");
  EXPECT_EQ(kimi_result_id(per_turn[5]), "functions.g:0");
  std::vector<ChatMessage> untouched = {kimi_call_turn({{"c0", "f"}}), {"tool", "a", {{"tool_call_id", "c0"}}}};
  number_kimi_calls(KimiCallNumbering::kNone, &untouched);
  EXPECT_EQ(untouched[0].extra["tool_calls"][0]["id"], "c0");
  EXPECT_EQ(kimi_result_id(untouched[1]), "c0");
}

}  // namespace
}  // namespace strata::server
