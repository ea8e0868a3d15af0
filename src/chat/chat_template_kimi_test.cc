// Kimi K2's chat templates through our Jinja interpreter: testdata/kimi-k2.jinja (the first
// K2-Instruct's), kimi-k2-instruct.jinja (the later K2-Instruct's) and kimi-k2-thinking.jinja
// (K2-Thinking's). The expected prompts are Python jinja2's renderings (3.1.6, trim_blocks and
// lstrip_blocks, Hugging Face's tojson: json.dumps without ASCII escapes or sorted keys) of the
// same messages. The environment is jinja2's SandboxedEnvironment: the later two templates number
// calls with list.append() and list.pop(), which the ImmutableSandboxedEnvironment of transformers
// refuses; llama.cpp's minja runs them.
//
// Turns are `<|im_user|>user<|im_middle|>...<|im_end|>` and so on; each template puts a default
// system prompt first unless the client sent one, declares offered tools as JSON in a turn of their
// own, and writes an assistant's calls as a `<|tool_calls_section_begin|>` section of
// `<|tool_call_begin|>functions.NAME:INDEX<|tool_call_argument_begin|>ARGS<|tool_call_end|>` calls,
// numbering them itself: per turn in the first template, through the conversation in the later
// ones, which also write each result under its call's id. The first writes a result under the
// tool_call_id it is given, after a literal backslash and n.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"

namespace strata {
namespace {

using nlohmann::json;

constexpr char kKimiInstruct[] = "kimi-k2-instruct.jinja";
constexpr char kKimiFirst[] = "kimi-k2.jinja";
constexpr char kKimiThinking[] = "kimi-k2-thinking.jinja";

constexpr char kKimiDefaultSystem[] =
    "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot AI.<|im_end|>";
constexpr char kKimiFirstDefaultSystem[] = "<|im_system|>system<|im_middle|>You are a helpful assistant<|im_end|>";
constexpr char kKimiReplyOpener[] = "<|im_assistant|>assistant<|im_middle|>";

std::string render_kimi(const std::string& file, const std::vector<ChatMessage>& messages, const json& extra = {}) {
  Result<std::string> out =
      load_testdata_template(file).apply(messages, /*add_generation_prompt=*/true, "[BOS]", "[EOS]", extra);
  EXPECT_TRUE(out.ok()) << file << ": " << out.status().ToString();
  return out.ok() ? *out : std::string();
}

// What each template puts before the first turn when the client sends no system prompt (the
// later Instruct template leaves a newline after it).
std::string kimi_default_system(const std::string& file) {
  if (file == kKimiFirst) return kKimiFirstDefaultSystem;
  return std::string(kKimiDefaultSystem) + (file == kKimiInstruct ? "\n" : "");
}

json kimi_call(const std::string& id, const std::string& name, const json& arguments) {
  return {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
}

ChatMessage kimi_result(const std::string& id, const std::string& content) {
  return {"tool", content, {{"tool_call_id", id}}};
}

// Two calls with text, their results, a call to one tool in a later turn, its result, an answer.
std::vector<ChatMessage> kimi_two_call_turns() {
  const json paris = {{"city", "Paris"}};
  return {{"user", "Weather and time in Paris?", nullptr},
          {"assistant", "Checking.",
           {{"tool_calls", json::array({kimi_call("functions.get_weather:0", "get_weather", paris),
                                        kimi_call("functions.get_time:1", "get_time", paris)})}}},
          kimi_result("functions.get_weather:0", "sunny"),
          kimi_result("functions.get_time:1", "noon"),
          {"assistant", "",
           {{"tool_calls", json::array({kimi_call("functions.get_weather:2", "get_weather", {{"city", "Rome"}})})}}},
          kimi_result("functions.get_weather:2", "rain"),
          {"assistant", "Sunny at noon; rain in Rome.", nullptr},
          {"user", "Thanks", nullptr}};
}

constexpr char kKimiCallsOfTurnOne[] =
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
    "{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>"
    "{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>";

// The turn-two call, numbered INDEX.
std::string kimi_rome_call(int index) {
  return "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:" + std::to_string(index) +
         "<|tool_call_argument_begin|>{\"city\": \"Rome\"}<|tool_call_end|><|tool_calls_section_end|>";
}

TEST(ChatTemplateKimiK2, EachTemplateOpensWithItsDefaultSystemPromptAsJinja2Does) {
  for (const char* file : {kKimiInstruct, kKimiFirst, kKimiThinking}) {
    EXPECT_EQ(render_kimi(file, {{"user", "Hello!", nullptr}}),
              kimi_default_system(file) + "<|im_user|>user<|im_middle|>Hello!<|im_end|>" + kKimiReplyOpener)
        << file;
  }
}

TEST(ChatTemplateKimiK2, TheClientsSystemPromptTakesTheDefaultsPlace) {
  for (const char* file : {kKimiInstruct, kKimiFirst, kKimiThinking}) {
    EXPECT_EQ(render_kimi(file, {{"system", "You are terse.", nullptr}, {"user", "Hello!", nullptr}}),
              std::string("<|im_system|>system<|im_middle|>You are terse.<|im_end|><|im_user|>user<|im_middle|>"
                          "Hello!<|im_end|>") +
                  kKimiReplyOpener)
        << file;
  }
}

TEST(ChatTemplateKimiK2, OfferedToolsAreDeclaredAsJsonInATurnOfTheirOwn) {
  const json tool = json::parse(R"({"type": "function", "function": {"name": "get_weather",
      "description": "Get the weather", "parameters": {"type": "object", "required": ["city"],
      "properties": {"city": {"type": "string"}}}}})");
  for (const char* file : {kKimiInstruct, kKimiFirst, kKimiThinking}) {
    EXPECT_EQ(render_kimi(file, {{"user", "Weather in Paris?", nullptr}}, {{"tools", json::array({tool})}}),
              "<|im_system|>tool_declare<|im_middle|>[{\"function\": {\"description\": \"Get the weather\", "
              "\"name\": \"get_weather\", \"parameters\": {\"properties\": {\"city\": {\"type\": \"string\"}}, "
              "\"required\": [\"city\"], \"type\": \"object\"}}, \"type\": \"function\"}]<|im_end|>" +
                  kimi_default_system(file) + "<|im_user|>user<|im_middle|>Weather in Paris?<|im_end|>" +
                  kKimiReplyOpener)
        << file;
  }
}

TEST(ChatTemplateKimiK2, LaterInstructNumbersCallsThroughTheConversationAsJinja2Does) {
  EXPECT_EQ(render_kimi(kKimiInstruct, kimi_two_call_turns()),
            kimi_default_system(kKimiInstruct) +
                "<|im_user|>user<|im_middle|>Weather and time in Paris?<|im_end|>" + kKimiReplyOpener +
                "Checking." + kKimiCallsOfTurnOne +
                "<|im_end|><|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\nsunny<|im_end|>"
                "<|im_system|>tool<|im_middle|>## Return of functions.get_time:1\nnoon<|im_end|>" +
                kKimiReplyOpener + kimi_rome_call(2) +
                "<|im_end|><|im_system|>tool<|im_middle|>## Return of functions.get_weather:2\nrain<|im_end|>" +
                kKimiReplyOpener + "Sunny at noon; rain in Rome.<|im_end|><|im_user|>user<|im_middle|>Thanks<|im_end|>" +
                kKimiReplyOpener);
}

// The first template numbers each turn's calls from 0 and writes each result under the
// tool_call_id it is given: here the later templates' numbering, which disagrees with its own.
TEST(ChatTemplateKimiK2, FirstTemplateNumbersCallsPerTurnAndWritesResultsUnderTheIdsGiven) {
  EXPECT_EQ(render_kimi(kKimiFirst, kimi_two_call_turns()),
            std::string(kKimiFirstDefaultSystem) + "<|im_user|>user<|im_middle|>Weather and time in Paris?<|im_end|>" +
                kKimiReplyOpener + "Checking." + kKimiCallsOfTurnOne +
                "<|im_end|><|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\\nsunny<|im_end|>"
                "<|im_system|>tool<|im_middle|>## Return of functions.get_time:1\\nnoon<|im_end|>" +
                kKimiReplyOpener + kimi_rome_call(0) +
                "<|im_end|><|im_system|>tool<|im_middle|>## Return of functions.get_weather:2\\nrain<|im_end|>" +
                kKimiReplyOpener + "Sunny at noon; rain in Rome.<|im_end|><|im_user|>user<|im_middle|>Thanks<|im_end|>" +
                kKimiReplyOpener);
}

// K2-Thinking writes an empty <think></think> before every assistant turn up to the last one
// without calls, and each later turn's reasoning_content inside its block.
TEST(ChatTemplateKimiK2, ThinkingKeepsReasoningOnlyAfterTheLastAnswerWithoutCalls) {
  EXPECT_EQ(render_kimi(kKimiThinking, kimi_two_call_turns()),
            kimi_default_system(kKimiThinking) + "<|im_user|>user<|im_middle|>Weather and time in Paris?<|im_end|>" +
                kKimiReplyOpener + "<think></think>Checking." + kKimiCallsOfTurnOne +
                "<|im_end|><|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\nsunny<|im_end|>"
                "<|im_system|>tool<|im_middle|>## Return of functions.get_time:1\nnoon<|im_end|>" +
                kKimiReplyOpener + "<think></think>" + kimi_rome_call(2) +
                "<|im_end|><|im_system|>tool<|im_middle|>## Return of functions.get_weather:2\nrain<|im_end|>" +
                kKimiReplyOpener +
                "<think></think>Sunny at noon; rain in Rome.<|im_end|><|im_user|>user<|im_middle|>Thanks<|im_end|>" +
                kKimiReplyOpener);
  const std::vector<ChatMessage> reasoned = {
      {"user", "Hi", nullptr},
      {"assistant", "Hello.", {{"reasoning_content", "Greet."}}},
      {"user", "Weather in Paris?", nullptr},
      {"assistant", "",
       {{"reasoning_content", "Need the tool."},
        {"tool_calls", json::array({kimi_call("functions.get_weather:0", "get_weather", {{"city", "Paris"}})})}}},
      kimi_result("functions.get_weather:0", "sunny")};
  EXPECT_EQ(render_kimi(kKimiThinking, reasoned),
            kimi_default_system(kKimiThinking) + "<|im_user|>user<|im_middle|>Hi<|im_end|>" + kKimiReplyOpener +
                "<think></think>Hello.<|im_end|><|im_user|>user<|im_middle|>Weather in Paris?<|im_end|>" +
                kKimiReplyOpener +
                "<think>Need the tool.</think><|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
                "<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>"
                "<|im_end|><|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\nsunny<|im_end|>" +
                kKimiReplyOpener);
}

// Object arguments go through tojson as json.dumps writes them: nested values, nothing escaped
// that JSON does not escape (no HTML escapes, no \u for non-ASCII).
TEST(ChatTemplateKimiK2, ObjectArgumentsAreWrittenAsJsonDumpsWritesThem) {
  const json arguments = json::parse(R"({"note": "x<y & \"q\" é", "steps": [{"a": 1, "b": [true, null]}]})");
  const std::vector<ChatMessage> messages = {
      {"user", "Go", nullptr},
      {"assistant", "", {{"tool_calls", json::array({kimi_call("functions.plan:0", "plan", arguments)})}}},
      kimi_result("functions.plan:0", "ok")};
  const std::string call =
      "<|tool_calls_section_begin|><|tool_call_begin|>functions.plan:0<|tool_call_argument_begin|>"
      "{\"note\": \"x<y & \\\"q\\\" é\", \"steps\": [{\"a\": 1, \"b\": [true, null]}]}<|tool_call_end|>"
      "<|tool_calls_section_end|>";
  for (const char* file : {kKimiInstruct, kKimiFirst, kKimiThinking}) {
    const std::string think = file == kKimiThinking ? "<think></think>" : "";
    const std::string newline = file == kKimiFirst ? "\\n" : "\n";
    EXPECT_EQ(render_kimi(file, messages),
              kimi_default_system(file) + "<|im_user|>user<|im_middle|>Go<|im_end|>" + kKimiReplyOpener + think +
                  call + "<|im_end|><|im_system|>tool<|im_middle|>## Return of functions.plan:0" + newline +
                  "ok<|im_end|>" + kKimiReplyOpener)
        << file;
  }
}

}  // namespace
}  // namespace strata
