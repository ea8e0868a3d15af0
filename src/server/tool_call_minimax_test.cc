// MiniMax-M2's tool calls (`<minimax:tool_call>` blocks of `<invoke name="NAME">` with
// `<parameter name="KEY">` values): a block body alone (parse_minimax_invokes) and whole outputs,
// at once and streamed (ToolCallParser with kMiniMaxM2), with values typed by the offered tools'
// schemas.
#include "server/tool_call_minimax.h"

#include <gtest/gtest.h>

#include <random>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

using nlohmann::json;

constexpr ToolCallSyntax kMiniMax = ToolCallSyntax::kMiniMaxM2;

// Two tools whose parameters take each JSON type.
ToolParamTypes minimax_param_types() {
  return ToolParamTypes(json::parse(R"([
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
        "location": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"},
        "hours": {"type": "number"}, "where": {"type": "object"}, "stops": {"type": "array"},
        "note": {"type": ["string", "null"]}}}}},
    {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object", "properties": {
        "path": {"type": "string"}, "content": {"type": "string"}}}}}])"));
}

ToolCallFormat minimax_format() { return ToolCallFormat(kMiniMax, minimax_param_types()); }

// What MiniMax-M2 writes for two calls in one block (as its tool-calling guide shows it).
constexpr std::string_view kMiniMaxTwoCalls =
    "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"location\">San Francisco, CA</parameter>\n"
    "<parameter name=\"days\">3</parameter>\n</invoke>\n<invoke name=\"write_file\">\n"
    "<parameter name=\"path\">a.py</parameter>\n<parameter name=\"content\">if a < b:\n    print(\"</invoke>\")\n"
    "</parameter>\n</invoke>\n</minimax:tool_call>";
constexpr std::string_view kMiniMaxTwoCallsReleased =
    R"x([get_weather {"location":"San Francisco, CA","days":3}][write_file {"path":"a.py","content":"if a < b:\n    print(\"</invoke>\")"}])x";

// One block with one call of get_weather whose body holds these parameters.
std::string weather_invoke(const std::string& parameters) {
  return "<minimax:tool_call>\n<invoke name=\"get_weather\">\n" + parameters + "</invoke>\n</minimax:tool_call>";
}

// The arguments of the only call in output, parsed with the tools' types.
json minimax_arguments(const std::string& output) {
  const ParsedOutput out = parse_tool_calls(output, minimax_format());
  EXPECT_EQ(out.calls.size(), 1u) << output;
  return out.calls.empty() ? json() : json::parse(out.calls[0].arguments_json);
}

// What a parser releases for output fed n_bytes at a time: its calls as "[name arguments]",
// then its text, trimmed when there are calls.
std::string minimax_released(std::string_view output, size_t n_bytes) {
  return testing::released_by_parser(minimax_format(), output, n_bytes);
}

TEST(MiniMaxCalls, ValuesAreTypedByTheToolsSchema) {
  json arguments = minimax_arguments(weather_invoke(
      "<parameter name=\"location\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n"
      "<parameter name=\"metric\">false</parameter>\n<parameter name=\"hours\">2.5</parameter>\n"
      "<parameter name=\"where\">{\"lat\": 48.8}</parameter>\n<parameter name=\"stops\">[1, \"two\"]</parameter>\n"
      "<parameter name=\"note\">null</parameter>\n"));
  EXPECT_EQ(arguments, json::parse(R"({"location": "Paris", "days": 3, "metric": false, "hours": 2.5,
      "where": {"lat": 48.8}, "stops": [1, "two"], "note": null})"));
}

// The typing is Qwen3-Coder's (tool_param_types.h): text that is not JSON of the parameter's type
// stays a string, string parameters stay strings, True / False / None where the schema takes them.
TEST(MiniMaxCalls, ValuesThatAreNotOfTheParametersTypeStayStrings) {
  EXPECT_EQ(minimax_arguments(weather_invoke("<parameter name=\"days\">three</parameter>"))["days"], "three");
  EXPECT_EQ(minimax_arguments(weather_invoke("<parameter name=\"days\">2.5</parameter>"))["days"], "2.5");
  EXPECT_EQ(minimax_arguments(weather_invoke("<parameter name=\"where\">[1]</parameter>"))["where"], "[1]");
  EXPECT_EQ(minimax_arguments(weather_invoke("<parameter name=\"location\">42</parameter>"))["location"], "42");
  EXPECT_EQ(minimax_arguments(weather_invoke("<parameter name=\"metric\">True</parameter>"))["metric"], true);
  EXPECT_EQ(minimax_arguments(weather_invoke("<parameter name=\"note\">None</parameter>"))["note"], nullptr);
  EXPECT_EQ(minimax_arguments(weather_invoke("<parameter name=\"hours\">7</parameter>"))["hours"], 7);
}

TEST(MiniMaxCalls, WithoutTheToolsEveryValueIsAString) {
  const std::string output = weather_invoke("<parameter name=\"days\">3</parameter><parameter name=\"metric\">true</parameter>");
  for (const ToolCallFormat& format : {ToolCallFormat(kMiniMax), ToolCallFormat(kMiniMax, ToolParamTypes(json()))}) {
    const ParsedOutput out = parse_tool_calls(output, format);
    ASSERT_EQ(out.calls.size(), 1u);
    EXPECT_EQ(out.calls[0].arguments_json, R"({"days":"3","metric":"true"})");
  }
}

// MiniMax's parser (and vLLM's) strips the whitespace around a value; what is inside stays.
TEST(MiniMaxCalls, ValuesLoseTheWhitespaceAroundThemAndKeepTheirInsides) {
  json arguments = minimax_arguments(
      "<minimax:tool_call>\n<invoke name=\"write_file\">\n<parameter name=\"content\">\n\n"
      "#include <a.h>\nint main() {\n  return 1 < 2;\n}\n \t\n</parameter>\n"
      "<parameter name=\"path\">  x.cc\r\n</parameter>\n</invoke>\n</minimax:tool_call>");
  EXPECT_EQ(arguments["content"], "#include <a.h>\nint main() {\n  return 1 < 2;\n}");
  EXPECT_EQ(arguments["path"], "x.cc");
  EXPECT_EQ(minimax_arguments(weather_invoke("<parameter name=\"location\"> \n </parameter>"))["location"], "");
  EXPECT_EQ(minimax_arguments(weather_invoke("<parameter name=\"days\">\n 3 \n</parameter>"))["days"], 3);
}

TEST(MiniMaxCalls, NamesMayBeDoubleQuotedSingleQuotedOrBare) {
  for (const std::string& invoke :
       {std::string("<invoke name=\"get_weather\">"), std::string("<invoke name='get_weather'>"),
        std::string("<invoke name=get_weather>"), std::string("<invoke name= \"get_weather\" >")}) {
    const ParsedOutput out = parse_tool_calls(
        "<minimax:tool_call>" + invoke + "<parameter name='days'>1</parameter><parameter name=metric>true</parameter>"
        "<parameter name= \"hours\" >2</parameter></invoke></minimax:tool_call>",
        minimax_format());
    ASSERT_EQ(out.calls.size(), 1u) << invoke;
    EXPECT_EQ(out.calls[0].name, "get_weather");
    EXPECT_EQ(out.calls[0].arguments_json, R"({"days":1,"metric":true,"hours":2})") << invoke;
  }
}

TEST(MiniMaxCalls, KeysKeepTheModelsOrderAndARepeatedKeyKeepsItsLastValue) {
  const ParsedOutput out = parse_tool_calls(
      weather_invoke("<parameter name=\"days\">3</parameter>\n<parameter name=\"location\">Rome</parameter>\n"
                     "<parameter name=\"days\">4</parameter>\n"),
      minimax_format());
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].arguments_json, R"({"days":4,"location":"Rome"})");
  EXPECT_FALSE(out.calls[0].arguments_raw);
}

TEST(MiniMaxCalls, SeveralInvokesPerBlockAndSeveralBlocksWithTheTextAroundThem) {
  const std::string output = "I will check.\n\n" + std::string(kMiniMaxTwoCalls) + "\nThen: " +
                             weather_invoke("") + "\n<minimax:tool_call><invoke name=\"write_file\"></invoke>"
                             "<invoke name=\"get_weather\"></invoke></minimax:tool_call>";
  const ParsedOutput out = parse_tool_calls(output, minimax_format());
  ASSERT_EQ(out.calls.size(), 5u);
  const std::vector<std::string> names = {"get_weather", "write_file", "get_weather", "write_file", "get_weather"};
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(out.calls[i].name, names[i]) << i;
  EXPECT_EQ(json::parse(out.calls[1].arguments_json)["content"], "if a < b:\n    print(\"</invoke>\")");
  EXPECT_EQ(out.calls[2].arguments_json, "{}");
  EXPECT_EQ(out.content, "I will check.\n\n\nThen:");  // trimmed at both ends
}

TEST(MiniMaxCalls, RejectsBodiesThatAreNotOnlyInvokes) {
  const std::string invoke = "<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>";
  for (const std::string& body :
       {std::string(), std::string("\n"), "text " + invoke, invoke + " trailing", invoke.substr(0, invoke.size() - 3),
        std::string("<invoke name=\"f\">\n<parameter name=\"a\">1</invoke>"),        // parameter never closed
        std::string("<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n"),   // invoke never closed
        std::string("<invoke name=\"two words\"></invoke>"), std::string("<invoke name=\"\"></invoke>"),
        std::string("<invoke name=\"f></invoke>"), std::string("<invoke name=\"f'></invoke>"),
        std::string("<invoke name=\"f\">stray text</invoke>"), std::string("<invoke name=\"f\"><b>1</b></invoke>"),
        std::string("<invoke name=\"f\"><parameter name=\"\">1</parameter></invoke>"),
        std::string("<invoke name=\"f\"><parameter name=\"a\nb\">1</parameter></invoke>"),
        std::string("<invoke name=\"f\""), std::string("<invoke  name=\"f\"></invoke>"),
        std::string("<function=f>\n</function>"), std::string("{\"name\": \"f\", \"arguments\": {}}")}) {
    std::vector<ParsedToolCall> calls;
    EXPECT_FALSE(parse_minimax_invokes(body, {}, &calls)) << body;
    EXPECT_TRUE(calls.empty());
  }
}

TEST(MiniMaxCalls, MalformedBlocksComeBackAsText) {
  for (const std::string& output :
       {std::string("x <minimax:tool_call>oops</minimax:tool_call> y"),
        std::string("<minimax:tool_call>\n<invoke name=\"f\">\n</minimax:tool_call>"),
        std::string("<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>"),
        std::string("a <minimax:tool_call> b"), std::string("</minimax:tool_call>"),
        std::string("<minimax:tool_call>\n<invoke name=\"f\"></invoke>\ntext\n</minimax:tool_call>")}) {
    const ParsedOutput out = parse_tool_calls(output, minimax_format());
    EXPECT_TRUE(out.calls.empty()) << output;
    EXPECT_EQ(out.content, output);
  }
}

// A forced call is constrained to a JSON <tool_call> block whatever the model's syntax, so this
// syntax reads those too; bare JSON stays text, and MiniMax's blocks are text to other syntaxes.
TEST(MiniMaxCalls, JsonToolCallBlocksAreCallsButBareJsonIsText) {
  const std::string hermes = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"days\": 1}}\n</tool_call>";
  const std::string bare = "{\"name\": \"f\", \"arguments\": {}}";
  ASSERT_EQ(parse_tool_calls(hermes, minimax_format()).calls.size(), 1u);
  EXPECT_EQ(parse_tool_calls(hermes, minimax_format()).calls[0].arguments_json, R"({"days":1})");
  EXPECT_TRUE(parse_tool_calls(bare, minimax_format()).calls.empty());
  EXPECT_EQ(parse_tool_calls(bare, minimax_format()).content, bare);
  const std::string qwen = "<tool_call>\n<function=f>\n</function>\n</tool_call>";
  EXPECT_TRUE(parse_tool_calls(qwen, minimax_format()).calls.empty());
  for (ToolCallSyntax syntax : {ToolCallSyntax::kJson, ToolCallSyntax::kArgTags, ToolCallSyntax::kXmlParams,
                                ToolCallSyntax::kDeepSeekV31}) {
    EXPECT_TRUE(parse_tool_calls(std::string(kMiniMaxTwoCalls), syntax).calls.empty());
  }
}

// A reply cut anywhere inside its calls (max_tokens, a stop string) is text, every byte of it.
TEST(MiniMaxCalls, AnOutputCutAtEveryByteInsideItsBlockComesBackAsText) {
  const std::string output = "Checking.\n" + std::string(kMiniMaxTwoCalls);
  for (size_t n = 0; n < output.size(); ++n) {
    const ParsedOutput out = parse_tool_calls(output.substr(0, n), minimax_format());
    EXPECT_TRUE(out.calls.empty()) << n;
    EXPECT_EQ(out.content, output.substr(0, n));
    EXPECT_EQ(minimax_released(output.substr(0, n), 1), output.substr(0, n)) << n;
  }
  EXPECT_EQ(parse_tool_calls(output, minimax_format()).calls.size(), 2u);
}

TEST(MiniMaxCalls, StreamingInAnyChunkSizeGivesTheSameAnswer) {
  const std::string output = "Checking.\n" + std::string(kMiniMaxTwoCalls);
  for (size_t n = 1; n <= output.size(); ++n) {
    EXPECT_EQ(minimax_released(output, n), std::string(kMiniMaxTwoCallsReleased) + "Checking.") << n;
  }
}

// Text streams on until an opener appears; a partial opener at the end is held back, and comes
// back as text when the output ends there.
TEST(MiniMaxCalls, TextBeforeABlockIsReleasedAndAPartialOpenerHeldBack) {
  ToolCallParser parser(minimax_format());
  std::vector<ToolCallPiece> pieces = parser.feed("Let me check. <minimax:tool");
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].text, "Let me check. ");
  EXPECT_TRUE(parser.feed("_call>\n<invoke name=\"get_weather\">\n</invoke>\n").empty());
  pieces = parser.feed("</minimax:tool_call>");
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_TRUE(pieces[0].is_call);
  EXPECT_EQ(pieces[0].call.name, "get_weather");
  EXPECT_EQ(parser.feed("<mini").size(), 0u);
  pieces = parser.finish();
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].text, "<mini");
}

// Random cuts of calls, tags and text, fed in random pieces: never a crash, the same calls and
// text whatever the pieces, and every byte back when there is no call.
TEST(MiniMaxCalls, RandomOutputsInRandomPiecesKeepEveryByte) {
  const std::vector<std::string> parts = {"text ", "<minimax:tool_call>", "</minimax:tool_call>",
                                          "<invoke name=\"get_weather\">", "</invoke>", "<parameter name=\"days\">",
                                          "</parameter>", "\n", "3", "True", "<", "<invoke name=", "<parameter name=",
                                          "'", "\"", "{\"a\": 1}", "get_weather>", "</", "<tool_call>", "</tool_call>"};
  std::mt19937 rng(11);
  for (int round = 0; round < 1000; ++round) {
    std::string output;
    const int n_parts = static_cast<int>(rng() % 16);
    for (int i = 0; i < n_parts; ++i) output += parts[rng() % parts.size()];
    const std::string whole = minimax_released(output, output.size() + 1);
    EXPECT_EQ(minimax_released(output, 1 + rng() % 9), whole) << output;
    if (parse_tool_calls(output, minimax_format()).calls.empty()) {
      EXPECT_EQ(whole, output);
    }
  }
}

}  // namespace
}  // namespace strata::server
