// Kimi K2's tool calls: a section alone (parse_kimi_calls), call ids (kimi_function_name), and
// whole outputs at once and streamed (ToolCallParser with kKimiK2).
#include "server/tool_call_kimi.h"

#include <gtest/gtest.h>

#include <random>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

constexpr ToolCallSyntax kKimi = ToolCallSyntax::kKimiK2;

// Two calls as K2 writes them, the second with nested arguments.
constexpr std::string_view kKimiTwoCalls =
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
    "{\"city\": \"Paris\", \"days\": 3}<|tool_call_end|><|tool_call_begin|>functions.plan:1"
    "<|tool_call_argument_begin|>{\"steps\": [{\"b\": [true, null], \"a\": \"x<y\"}], \"note\": {}}"
    "<|tool_call_end|><|tool_calls_section_end|>";
constexpr std::string_view kKimiTwoCallsReleased =
    R"([get_weather {"city":"Paris","days":3}][plan {"steps":[{"b":[true,null],"a":"x<y"}],"note":{}}])";

// The section between its opener and its closer.
std::string_view kimi_section_of(std::string_view output) {
  const size_t begin = output.find(kKimiCallsOpener) + kKimiCallsOpener.size();
  return output.substr(begin, output.rfind(kKimiCallsCloser) - begin);
}

// What the parser releases for output fed n_bytes at a time: its calls as "[name arguments]", then
// its text, trimmed when there are calls.
std::string kimi_released(std::string_view output, size_t n_bytes) {
  return testing::released_by_parser(kKimi, output, n_bytes);
}

TEST(KimiCalls, ASectionGivesEachCallByNameWithNestedArgumentsInTheModelsOrder) {
  std::vector<ParsedToolCall> calls;
  ASSERT_TRUE(parse_kimi_calls(kimi_section_of(kKimiTwoCalls), &calls));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].name, "get_weather");
  EXPECT_EQ(calls[0].arguments_json, R"({"city":"Paris","days":3})");
  EXPECT_FALSE(calls[0].arguments_raw);
  EXPECT_EQ(calls[1].name, "plan");
  EXPECT_EQ(calls[1].arguments_json, R"({"steps":[{"b":[true,null],"a":"x<y"}],"note":{}})");
}

TEST(KimiCalls, TheFunctionIsTheIdWithoutItsPrefixAndIndex) {
  EXPECT_EQ(kimi_function_name("functions.get_weather:0"), "get_weather");
  EXPECT_EQ(kimi_function_name(" functions.get_weather:12 \n"), "get_weather");
  EXPECT_EQ(kimi_function_name("functions.mcp.search:3"), "mcp.search");
  EXPECT_EQ(kimi_function_name("get_weather:0"), "get_weather");
  EXPECT_EQ(kimi_function_name("functions.get_weather"), "get_weather");
  EXPECT_EQ(kimi_function_name("functions.a:b"), "a:b");  // not an index: part of the name
  for (std::string_view id : {"", "functions.", "functions.:0", ":0", "functions.two words:0", "functions.<x>:0"}) {
    EXPECT_EQ(kimi_function_name(id), "") << id;
  }
}

// As llama.cpp reads them: whitespace between the parts, a call without its <|tool_call_end|>
// (closed by the next call or by the section's end).
TEST(KimiCalls, ToleratesWhitespaceAndAMissingCallEnd) {
  std::vector<ParsedToolCall> calls;
  ASSERT_TRUE(parse_kimi_calls("\n<|tool_call_begin|> functions.f:0 <|tool_call_argument_begin|> {\"a\": 1} \n"
                               "<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{}\n",
                               &calls));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].name, "f");
  EXPECT_EQ(calls[0].arguments_json, R"({"a":1})");
  EXPECT_EQ(calls[1].name, "g");
  EXPECT_EQ(calls[1].arguments_json, "{}");
}

TEST(KimiCalls, RejectsSectionsThatAreNotOnlyCalls) {
  const std::string call = "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>";
  for (const std::string& section :
       {std::string(), std::string(" \n"), "text " + call, call + " trailing", call + call + "x",
        std::string("functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>"),  // no call begin
        std::string("<|tool_call_begin|>functions.f:0{}<|tool_call_end|>"),           // no argument begin
        std::string("<|tool_call_begin|><|tool_call_argument_begin|>{}<|tool_call_end|>"),  // no name
        std::string("<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>[1]<|tool_call_end|>"),
        std::string("<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>\"{}\"<|tool_call_end|>"),
        std::string("<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\":<|tool_call_end|>")}) {
    std::vector<ParsedToolCall> calls;
    EXPECT_FALSE(parse_kimi_calls(section, &calls)) << section;
    EXPECT_TRUE(calls.empty()) << section;
  }
}

TEST(ToolCallParserKimi, TextThenASectionGivesTheCallsAndTheText) {
  const ParsedOutput out = parse_tool_calls("Let me check.\n" + std::string(kKimiTwoCalls), kKimi);
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].name, "get_weather");
  EXPECT_EQ(out.calls[1].name, "plan");
  EXPECT_EQ(out.content, "Let me check.");
}

// llama.cpp takes a call the model writes without opening a section; so do we.
TEST(ToolCallParserKimi, ACallOutsideASectionIsACall) {
  const ParsedOutput out = parse_tool_calls(
      "Sure. <|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{\"zone\": \"CET\"}<|tool_call_end|>",
      kKimi);
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].name, "get_time");
  EXPECT_EQ(out.calls[0].arguments_json, R"({"zone":"CET"})");
  EXPECT_EQ(out.content, "Sure.");
}

// A forced call is constrained to a JSON <tool_call> block whatever the model's syntax, so Kimi reads
// those too; bare JSON stays text, and Kimi's markup is text for the other syntaxes.
TEST(ToolCallParserKimi, JsonBlocksAreCallsButBareJsonIsText) {
  const std::string hermes = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>";
  const std::string bare = "{\"name\": \"f\", \"arguments\": {}}";
  ASSERT_EQ(parse_tool_calls(hermes, kKimi).calls.size(), 1u);
  EXPECT_EQ(parse_tool_calls(hermes, kKimi).calls[0].arguments_json, R"({"a":1})");
  EXPECT_TRUE(parse_tool_calls(bare, kKimi).calls.empty());
  EXPECT_EQ(parse_tool_calls(bare, kKimi).content, bare);
  for (ToolCallSyntax syntax : {ToolCallSyntax::kJson, ToolCallSyntax::kArgTags, ToolCallSyntax::kDeepSeekV31}) {
    EXPECT_TRUE(parse_tool_calls(std::string(kKimiTwoCalls), syntax).calls.empty());
  }
}

// Cut off (max_tokens) or malformed: the section, or the lone call, comes back as text, whole.
TEST(ToolCallParserKimi, TruncatedOrMalformedMarkupComesBackAsText) {
  const std::string whole(kKimiTwoCalls);
  for (const std::string& output :
       {"Answer: " + whole.substr(0, whole.size() - 5), whole.substr(0, 60), std::string(kKimiCallsOpener),
        whole.substr(0, whole.find("<|tool_calls_section_end|>")), std::string("<|tool_call_begin|>functions.f:0"),
        std::string("x <|tool_calls_section_begin|>oops<|tool_calls_section_end|> y"),
        std::string("<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": <|tool_call_end|>")}) {
    const ParsedOutput out = parse_tool_calls(output, kKimi);
    EXPECT_TRUE(out.calls.empty()) << output;
    EXPECT_EQ(out.content, output);
  }
}

TEST(ToolCallParserKimi, StreamingInAnyPiecesGivesTheSameAnswer) {
  const std::string output = "Checking.\n" + std::string(kKimiTwoCalls);
  for (size_t n : {1u, 2u, 3u, 7u, 13u, 64u, 1000u}) {
    EXPECT_EQ(kimi_released(output, n), std::string(kKimiTwoCallsReleased) + "Checking.") << n;
  }
}

// Random cuts of sections, calls, tags and text, fed in random pieces: never a crash, the same
// calls and text whatever the pieces, and every byte back when there is no call.
TEST(ToolCallParserKimi, RandomOutputsInRandomPiecesKeepEveryByte) {
  const std::vector<std::string> parts = {
      "text ", "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "functions.f:0", "<|tool_call_argument_begin|>",
      "{\"a\": [1, {}]}", "<|tool_call_end|>", "<|tool_calls_section_end|>", "<|tool_call", "\n", "<tool_call>",
      "</tool_call>", "<|", "{", "}"};
  std::mt19937 rng(17);
  for (int round = 0; round < 1000; ++round) {
    std::string output;
    const int n_parts = static_cast<int>(rng() % 14);
    for (int i = 0; i < n_parts; ++i) output += parts[rng() % parts.size()];
    const std::string whole = kimi_released(output, output.size() + 1);
    EXPECT_EQ(kimi_released(output, 1 + rng() % 9), whole) << output;
    if (parse_tool_calls(output, kKimi).calls.empty()) {
      EXPECT_EQ(whole, output);
    }
  }
}

}  // namespace
}  // namespace strata::server
