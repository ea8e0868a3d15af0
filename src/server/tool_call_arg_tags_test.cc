// GLM-4.5's tool calls (<tool_call>NAME + <arg_key>/<arg_value> pairs): the block body alone
// (parse_arg_tag_call) and whole outputs, at once and streamed (ToolCallParser with kArgTags).
#include "server/tool_call_arg_tags.h"

#include <gtest/gtest.h>

#include <random>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

constexpr ToolCallSyntax kGlm = ToolCallSyntax::kArgTags;

// What GLM-4.5 writes for one call (its template teaches this layout).
constexpr std::string_view kGlmWeatherCall =
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
    "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>";

// What a kArgTags parser releases for output fed n_bytes at a time: its calls as
// "[name arguments]", then its text, trimmed when there are calls (whitespace next to a call may
// come before or after it, or be dropped, depending on the pieces: tool_call_parser.h).
std::string glm_released(std::string_view output, size_t n_bytes) {
  return testing::released_by_parser(kGlm, output, n_bytes);
}

TEST(ArgTagCall, NameAndPairsBecomeAnArgumentsObject) {
  ParsedToolCall call;
  ASSERT_TRUE(parse_arg_tag_call("get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n", &call));
  EXPECT_EQ(call.name, "get_weather");
  EXPECT_EQ(call.arguments_json, R"({"city":"Beijing"})");
  EXPECT_FALSE(call.arguments_raw);
}

// Strings go in raw and other values as JSON (the template's rule), so a value that parses as JSON
// is that value and anything else is the string as written, spaces included.
TEST(ArgTagCall, ValuesThatParseAsJsonAreJsonAndOthersStrings) {
  ParsedToolCall call;
  ASSERT_TRUE(parse_arg_tag_call(
      "f<arg_key>n</arg_key><arg_value>3</arg_value><arg_key>x</arg_key><arg_value> -1.5 </arg_value>"
      "<arg_key>b</arg_key><arg_value>true</arg_value><arg_key>z</arg_key><arg_value>null</arg_value>"
      "<arg_key>o</arg_key><arg_value>{\"unit\": \"c\"}</arg_value><arg_key>a</arg_key><arg_value>[1, \"two\"]</arg_value>"
      "<arg_key>q</arg_key><arg_value>\"quoted\"</arg_value><arg_key>s</arg_key><arg_value> say \"hi\" </arg_value>"
      "<arg_key>bad</arg_key><arg_value>{not json</arg_value><arg_key>e</arg_key><arg_value></arg_value>",
      &call));
  EXPECT_EQ(call.arguments_json,
            R"({"n":3,"x":-1.5,"b":true,"z":null,"o":{"unit":"c"},"a":[1,"two"],"q":"quoted",)"
            R"("s":" say \"hi\" ","bad":"{not json","e":""})");
}

TEST(ArgTagCall, KeysKeepTheModelsOrderAndARepeatedKeyItsLastValue) {
  ParsedToolCall call;
  ASSERT_TRUE(parse_arg_tag_call(
      "f\n<arg_key>z</arg_key><arg_value>1</arg_value>\n<arg_key>a</arg_key><arg_value>2</arg_value>"
      "<arg_key>z</arg_key><arg_value>3</arg_value>",
      &call));
  EXPECT_EQ(call.arguments_json, R"({"z":3,"a":2})");
}

TEST(ArgTagCall, ANameWithoutArgumentsIsACallWithAnEmptyObject) {
  ParsedToolCall call;
  ASSERT_TRUE(parse_arg_tag_call("  list_files \n", &call));
  EXPECT_EQ(call.name, "list_files");
  EXPECT_EQ(call.arguments_json, "{}");
}

TEST(ArgTagCall, RejectsBodiesThatAreNotANameAndPairs) {
  for (std::string_view body : {"", "\n", "two words<arg_key>a</arg_key><arg_value>1</arg_value>",
                                "<arg_key>a</arg_key><arg_value>1</arg_value>",
                                "f<arg_key>a</arg_key>", "f<arg_key>a</arg_key>1",
                                "f<arg_key>a</arg_key><arg_value>1", "f<arg_key>a<arg_value>1</arg_value>",
                                "f<arg_key>a</arg_key><arg_value>1</arg_value> trailing",
                                "{\"name\": \"f\", \"arguments\": {}}"}) {
    ParsedToolCall call;
    call.name = "untouched";
    EXPECT_FALSE(parse_arg_tag_call(body, &call)) << body;
    EXPECT_EQ(call.name, "untouched");
  }
}

TEST(ToolCallParserGlm, CallsAfterTextComeOutInOrder) {
  const std::string output = "Let me check both.\n" + std::string(kGlmWeatherCall) + "\n" +
                             "<tool_call>get_time\n<arg_key>zone</arg_key>\n<arg_value>UTC+8</arg_value>\n</tool_call>";
  ParsedOutput out = parse_tool_calls(output, kGlm);
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].name, "get_weather");
  EXPECT_EQ(out.calls[0].arguments_json, R"({"city":"Beijing","days":3})");
  EXPECT_EQ(out.calls[1].name, "get_time");
  EXPECT_EQ(out.calls[1].arguments_json, R"({"zone":"UTC+8"})");
  EXPECT_EQ(out.content, "Let me check both.");
}

// A forced call is constrained to a JSON block whatever the model's syntax, so GLM reads those
// too; bare JSON stays text.
TEST(ToolCallParserGlm, JsonBlocksAreCallsButBareJsonIsText) {
  const std::string hermes = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>";
  ASSERT_EQ(parse_tool_calls(hermes, kGlm).calls.size(), 1u);
  EXPECT_EQ(parse_tool_calls(hermes, kGlm).calls[0].arguments_json, R"({"a":1})");
  const std::string bare = "{\"name\": \"f\", \"arguments\": {}}";
  EXPECT_TRUE(parse_tool_calls(bare, kGlm).calls.empty());
  EXPECT_EQ(parse_tool_calls(bare, kGlm).content, bare);
  EXPECT_TRUE(parse_tool_calls(std::string(kGlmWeatherCall)).calls.empty());  // and GLM's is text for Hermes
}

TEST(ToolCallParserGlm, MalformedOrUnterminatedBlocksComeBackAsText) {
  for (std::string_view output :
       {"Answer: <tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beij",
        "<tool_call>get weather now</tool_call> and more", "x <tool_call>f<arg_key>a</arg_key></tool_call>",
        "<tool_call>", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_"}) {
    ParsedOutput out = parse_tool_calls(output, kGlm);
    EXPECT_TRUE(out.calls.empty()) << output;
    EXPECT_EQ(out.content, output);
  }
}

TEST(ToolCallParserGlm, StreamingInAnyPiecesGivesTheSameAnswer) {
  const std::string output = "Checking.\n" + std::string(kGlmWeatherCall) + "\n" + std::string(kGlmWeatherCall);
  const std::string call = R"([get_weather {"city":"Beijing","days":3}])";
  for (size_t n : {1u, 2u, 3u, 7u, 13u, 64u, 1000u}) {
    EXPECT_EQ(glm_released(output, n), call + call + "Checking.") << n;
  }
}

// Random cuts of calls, tags and text, fed in random pieces: never a crash, the same calls and
// text whatever the pieces, and every byte back when there is no call.
TEST(ToolCallParserGlm, RandomOutputsInRandomPiecesKeepEveryByte) {
  const std::vector<std::string> parts = {"text ", "<tool_call>", "f\n", "<arg_key>k</arg_key>",
                                          "<arg_value>1</arg_value>", "</tool_call>", "<arg_", "</tool",
                                          "\n", "{\"a\": 1}", "</arg_value>", "<"};
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::string output;
    const int n_parts = static_cast<int>(rng() % 12);
    for (int i = 0; i < n_parts; ++i) output += parts[rng() % parts.size()];
    const std::string whole = glm_released(output, output.size() + 1);
    EXPECT_EQ(glm_released(output, 1 + rng() % 9), whole) << output;
    if (parse_tool_calls(output, kGlm).calls.empty()) {
      EXPECT_EQ(whole, output);
    }
  }
}

}  // namespace
}  // namespace strata::server
