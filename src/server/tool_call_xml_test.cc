// Qwen3-Coder's tool calls (`<function=NAME>` with `<parameter=KEY>` values): a block body alone
// (parse_xml_function_calls) and whole outputs, at once and streamed (ToolCallParser with
// kXmlParams), with values typed by the offered tools' schemas.
#include "server/tool_call_xml.h"

#include <gtest/gtest.h>

#include <random>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

using nlohmann::json;

constexpr ToolCallSyntax kXml = ToolCallSyntax::kXmlParams;

// Two tools whose parameters take each JSON type.
ToolParamTypes xml_param_types() {
  return ToolParamTypes(json::parse(R"([
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"},
        "hours": {"type": "number"}, "where": {"type": "object"}, "stops": {"type": "array"},
        "note": {"type": ["string", "null"]}}}}},
    {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object", "properties": {
        "path": {"type": "string"}, "content": {"type": "string"}}}}}])"));
}

ToolCallFormat xml_format() { return ToolCallFormat(kXml, xml_param_types()); }

// What Qwen3-Coder writes for two calls (its template writes calls back so).
constexpr std::string_view kXmlTwoCalls =
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n"
    "</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n"
    "</parameter>\n<parameter=content>\nif a < b:\n    print(\"</function>\")\n\n</parameter>\n</function>\n"
    "</tool_call>";
constexpr std::string_view kXmlTwoCallsReleased =
    R"([get_weather {"city":"Paris","days":3}][write_file {"path":"a.py","content":"if a < b:\n    print(\"</function>\")\n"}])";

// One call of get_weather whose body holds these parameters.
std::string weather_call(const std::string& parameters) {
  return "<tool_call>\n<function=get_weather>\n" + parameters + "</function>\n</tool_call>";
}

// The arguments of the only call in output, parsed with the tools' types.
json xml_arguments(const std::string& output) {
  const ParsedOutput out = parse_tool_calls(output, xml_format());
  EXPECT_EQ(out.calls.size(), 1u) << output;
  return out.calls.empty() ? json() : json::parse(out.calls[0].arguments_json);
}

// What a parser releases for output fed n_bytes at a time: its calls as "[name arguments]",
// then its text, trimmed when there are calls.
std::string xml_released(std::string_view output, size_t n_bytes) {
  return testing::released_by_parser(xml_format(), output, n_bytes);
}

TEST(XmlParamCalls, ValuesAreTypedByTheToolsSchema) {
  const json arguments = xml_arguments(weather_call(
      "<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=metric>\nfalse\n"
      "</parameter>\n<parameter=hours>\n2.5\n</parameter>\n<parameter=where>\n{\"lat\": 48.8}\n</parameter>\n"
      "<parameter=stops>\n[1, \"two\"]\n</parameter>\n<parameter=note>\nnull\n</parameter>\n"));
  EXPECT_EQ(arguments, json::parse(R"({"city": "Paris", "days": 3, "metric": false, "hours": 2.5,
      "where": {"lat": 48.8}, "stops": [1, "two"], "note": null})"));
}

TEST(XmlParamCalls, KeysKeepTheModelsOrderAndARepeatedKeyKeepsItsLastValue) {
  const ParsedOutput out = parse_tool_calls(
      weather_call("<parameter=days>\n3\n</parameter>\n<parameter=city>\nRome\n</parameter>\n"
                   "<parameter=days>\n4\n</parameter>\n"),
      xml_format());
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].arguments_json, R"({"days":4,"city":"Rome"})");
  EXPECT_FALSE(out.calls[0].arguments_raw);
}

// The template writes every non-string value as Python's str() and JSON for containers; text
// that is not JSON of the parameter's type is passed on as a string.
TEST(XmlParamCalls, TextThatIsNotJsonOfTheParametersTypeStaysAString) {
  EXPECT_EQ(xml_arguments(weather_call("<parameter=days>\nthree\n</parameter>\n"))["days"], "three");
  EXPECT_EQ(xml_arguments(weather_call("<parameter=days>\n2.5\n</parameter>\n"))["days"], "2.5");
  EXPECT_EQ(xml_arguments(weather_call("<parameter=metric>\n1\n</parameter>\n"))["metric"], "1");
  EXPECT_EQ(xml_arguments(weather_call("<parameter=stops>\n[1,\n</parameter>\n"))["stops"], "[1,");
  EXPECT_EQ(xml_arguments(weather_call("<parameter=where>\n[1]\n</parameter>\n"))["where"], "[1]");
  EXPECT_EQ(xml_arguments(weather_call("<parameter=hours>\n7\n</parameter>\n"))["hours"], 7);
}

TEST(XmlParamCalls, StringParametersStayStringsWhateverTheyLookLike) {
  const json arguments = xml_arguments(weather_call(
      "<parameter=city>\n42\n</parameter>\n<parameter=note>\n\"quoted\"\n</parameter>\n"));
  EXPECT_EQ(arguments["city"], "42");
  EXPECT_EQ(arguments["note"], "\"quoted\"");
}

// Qwen3-Coder's and Qwen3.5's templates write booleans and null back as True, False and None.
TEST(XmlParamCalls, PythonsTrueFalseAndNoneAreBooleansAndNullWhereTheSchemaTakesThem) {
  EXPECT_EQ(xml_arguments(weather_call("<parameter=metric>\nTrue\n</parameter>\n"))["metric"], true);
  EXPECT_EQ(xml_arguments(weather_call("<parameter=metric>\nFalse\n</parameter>\n"))["metric"], false);
  EXPECT_EQ(xml_arguments(weather_call("<parameter=note>\nNone\n</parameter>\n"))["note"], nullptr);
  EXPECT_EQ(xml_arguments(weather_call("<parameter=city>\nTrue\n</parameter>\n"))["city"], "True");
  EXPECT_EQ(xml_arguments(weather_call("<parameter=days>\nNone\n</parameter>\n"))["days"], "None");
}

TEST(XmlParamCalls, WithoutTheToolsEveryValueIsAString) {
  const std::string output = weather_call("<parameter=days>\n3\n</parameter>\n<parameter=metric>\ntrue\n</parameter>\n");
  for (const ToolCallFormat& format : {ToolCallFormat(kXml), ToolCallFormat(kXml, ToolParamTypes(json()))}) {
    const ParsedOutput out = parse_tool_calls(output, format);
    ASSERT_EQ(out.calls.size(), 1u);
    EXPECT_EQ(out.calls[0].arguments_json, R"({"days":"3","metric":"true"})");
  }
  const ParsedOutput unknown = parse_tool_calls(
      "<tool_call>\n<function=other>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>", xml_format());
  ASSERT_EQ(unknown.calls.size(), 1u);
  EXPECT_EQ(unknown.calls[0].arguments_json, R"({"days":"3"})");
}

// Exactly one newline after the opening tag and one before the closing tag are the markup's.
TEST(XmlParamCalls, MultiLineValuesKeepTheirInnerNewlinesAndAngleBrackets) {
  const json arguments = xml_arguments(
      "<tool_call>\n<function=write_file>\n<parameter=content>\n\n#include <a.h>\nint main() { return 1 < 2; }\n\n"
      "</parameter>\n<parameter=path>x.cc</parameter>\n</function>\n</tool_call>");
  EXPECT_EQ(arguments["content"], "\n#include <a.h>\nint main() { return 1 < 2; }\n");
  EXPECT_EQ(arguments["path"], "x.cc");
  EXPECT_EQ(xml_arguments(weather_call("<parameter=city>\n\n</parameter>\n"))["city"], "");
  EXPECT_EQ(xml_arguments(weather_call("<parameter=city>\n  Paris \n</parameter>\n"))["city"], "  Paris ");
}

TEST(XmlParamCalls, SeveralCallsAndTheTextBeforeThem) {
  const ParsedOutput out = parse_tool_calls("I will check.\n\n" + std::string(kXmlTwoCalls), xml_format());
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].name, "get_weather");
  EXPECT_EQ(out.calls[1].name, "write_file");
  EXPECT_EQ(json::parse(out.calls[1].arguments_json)["content"], "if a < b:\n    print(\"</function>\")\n");
  EXPECT_EQ(out.content, "I will check.");
}

TEST(XmlParamCalls, OneBlockMayHoldSeveralFunctions) {
  std::vector<ParsedToolCall> calls;
  ASSERT_TRUE(parse_xml_function_calls(
      "\n<function=a>\n</function>\n<function=b>\n<parameter=x>\n1\n</parameter>\n</function>\n", {}, &calls));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].name, "a");
  EXPECT_EQ(calls[0].arguments_json, "{}");
  EXPECT_EQ(calls[1].arguments_json, R"({"x":"1"})");
}

// Models of this family sometimes leave out the <tool_call> around a function; vLLM reads such
// a function as a call, and so do we.
TEST(XmlParamCalls, AFunctionWithoutItsToolCallTagsIsACall) {
  const ParsedOutput out = parse_tool_calls(
      "Checking.\n<function=get_weather>\n<parameter=days>\n2\n</parameter>\n</function>\n", xml_format());
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].arguments_json, R"({"days":2})");
  EXPECT_EQ(out.content, "Checking.");
}

// Seed-OSS writes the functions in <seed:tool_call> blocks, values without the newlines around
// them; however the output streams, the calls come out and none of the block's tags is text.
TEST(XmlParamCalls, SeedOssBlocksAreCalls) {
  const std::string seed = "Checking.\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n"
                           "<parameter=days>3</parameter>\n</function>\n</seed:tool_call>";
  for (size_t n : {size_t{1}, size_t{4}, seed.size()}) {
    EXPECT_EQ(xml_released(seed, n), R"([get_weather {"city":"Paris","days":3}]Checking.)") << n;
  }
  // A block that holds no function is text, whole.
  EXPECT_EQ(xml_released("<seed:tool_call>\nhello\n</seed:tool_call>", 3), "<seed:tool_call>\nhello\n</seed:tool_call>");
}

TEST(XmlParamCalls, RejectsBodiesThatAreNotOnlyFunctions) {
  const std::string call = "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>";
  for (const std::string& body :
       {std::string(), std::string("\n"), "text " + call, call + " trailing", call.substr(0, call.size() - 3),
        std::string("<function=f>\n<parameter=a>\n1\n</function>"),             // parameter never closed
        std::string("<function=f>\n<parameter=a>\n1\n</parameter>\n"),          // function never closed
        std::string("<function=two words>\n</function>"), std::string("<function=>\n</function>"),
        std::string("<function=f>\nstray text\n</function>"), std::string("<function=f>\n<parameter=>\n1\n</parameter>\n</function>"),
        std::string("<function=f>\n<parameter=a\nb>\n1\n</parameter>\n</function>"), std::string("<function=f")}) {
    std::vector<ParsedToolCall> calls;
    EXPECT_FALSE(parse_xml_function_calls(body, {}, &calls)) << body;
    EXPECT_TRUE(calls.empty());
  }
}

// A forced call is constrained to a JSON <tool_call> block whatever the model's syntax, so this
// syntax reads those too; bare JSON stays text, and these calls are text for the other syntaxes.
TEST(XmlParamCalls, JsonBlocksAreCallsButBareJsonIsText) {
  const std::string hermes = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"days\": 1}}\n</tool_call>";
  const std::string bare = "{\"name\": \"f\", \"arguments\": {}}";
  ASSERT_EQ(parse_tool_calls(hermes, xml_format()).calls.size(), 1u);
  EXPECT_EQ(parse_tool_calls(hermes, xml_format()).calls[0].arguments_json, R"({"days":1})");
  EXPECT_TRUE(parse_tool_calls(bare, xml_format()).calls.empty());
  EXPECT_EQ(parse_tool_calls(bare, xml_format()).content, bare);
  for (ToolCallSyntax syntax : {ToolCallSyntax::kJson, ToolCallSyntax::kArgTags, ToolCallSyntax::kDeepSeekV31}) {
    EXPECT_TRUE(parse_tool_calls(std::string(kXmlTwoCalls), syntax).calls.empty());
  }
}

// A reply cut anywhere inside its call (max_tokens, a stop string) is text, every byte of it.
TEST(XmlParamCalls, AnOutputCutAnywhereInsideACallComesBackAsText) {
  const std::string output = "Checking.\n" + weather_call("<parameter=city>\nParis\n</parameter>\n");
  for (size_t n = 0; n < output.size(); ++n) {
    const ParsedOutput out = parse_tool_calls(output.substr(0, n), xml_format());
    EXPECT_TRUE(out.calls.empty()) << n;
    EXPECT_EQ(out.content, output.substr(0, n));
  }
  EXPECT_EQ(parse_tool_calls(output, xml_format()).calls.size(), 1u);
}

TEST(XmlParamCalls, MalformedBlocksComeBackAsText) {
  for (const std::string& output :
       {std::string("x <tool_call>oops</tool_call> y"), std::string("<tool_call>\n<function=f>\n</tool_call>"),
        std::string("<function=f>\n<parameter=a>\n1\n</function>"), std::string("a <function=f> b"),
        std::string("<tool_call>\n<function=f>\n</function>\ntext\n</tool_call>")}) {
    const ParsedOutput out = parse_tool_calls(output, xml_format());
    EXPECT_TRUE(out.calls.empty()) << output;
    EXPECT_EQ(out.content, output);
  }
}

TEST(XmlParamCalls, StreamingInAnyPiecesGivesTheSameAnswer) {
  const std::string output = "Checking.\n" + std::string(kXmlTwoCalls);
  for (size_t n : {1u, 2u, 3u, 7u, 13u, 64u, 1000u}) {
    EXPECT_EQ(xml_released(output, n), std::string(kXmlTwoCallsReleased) + "Checking.") << n;
  }
}

// Text streams on until an opener appears; a partial opener at the end is held back.
TEST(XmlParamCalls, TextBeforeACallIsReleasedBeforeTheCallCloses) {
  ToolCallParser parser(xml_format());
  std::vector<ToolCallPiece> pieces = parser.feed("Let me check. <tool");
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].text, "Let me check. ");
  EXPECT_TRUE(parser.feed("_call>\n<function=get_weather>\n").empty());
  pieces = parser.feed("</function>\n</tool_call>");
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_TRUE(pieces[0].is_call);
  EXPECT_EQ(parser.feed("<fun").size(), 0u);
  pieces = parser.finish();
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].text, "<fun");
}

// Random cuts of calls, tags and text, fed in random pieces: never a crash, the same calls and
// text whatever the pieces, and every byte back when there is no call.
TEST(XmlParamCalls, RandomOutputsInRandomPiecesKeepEveryByte) {
  const std::vector<std::string> parts = {"text ",        "<tool_call>", "</tool_call>",    "<function=get_weather>",
                                          "</function>",  "<parameter=days>", "</parameter>", "\n",
                                          "3",            "True",        "<",               "<function=",
                                          "<parameter=",  "{\"a\": 1}",  "get_weather>",    "</"};
  std::mt19937 rng(7);
  for (int round = 0; round < 1000; ++round) {
    std::string output;
    const int n_parts = static_cast<int>(rng() % 16);
    for (int i = 0; i < n_parts; ++i) output += parts[rng() % parts.size()];
    const std::string whole = xml_released(output, output.size() + 1);
    EXPECT_EQ(xml_released(output, 1 + rng() % 9), whole) << output;
    if (parse_tool_calls(output, xml_format()).calls.empty()) {
      EXPECT_EQ(whole, output);
    }
  }
}

}  // namespace
}  // namespace strata::server
