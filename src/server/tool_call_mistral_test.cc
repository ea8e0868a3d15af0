// Mistral's tool calls (`[TOOL_CALLS]NAME[ARGS]JSON`, with `[CALL_ID]ID` from Small 3.2, and the
// older `[TOOL_CALLS][{...}]`): one call after its opener (scan_mistral_call) and whole outputs, at
// once and streamed (ToolCallParser with kMistral).
#include "server/tool_call_mistral.h"

#include <gtest/gtest.h>

#include <random>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

constexpr ToolCallSyntax kMistral = ToolCallSyntax::kMistral;

// Two calls as Devstral, Magistral and Ministral 3 write them (their templates write calls back so).
constexpr std::string_view kTwoCalls =
    R"([TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}[TOOL_CALLS]get_time[ARGS]{"zone": "CET"})";
// The same two calls as Mistral Small 3.2 writes them, each with its id.
constexpr std::string_view kTwoCallsWithIds =
    R"([TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris", "days": 3})"
    R"([TOOL_CALLS]get_time[CALL_ID]Z9y8X7w6V[ARGS]{"zone": "CET"})";
constexpr std::string_view kMistralTwoCallsReleased = R"([get_weather {"city":"Paris","days":3}][get_time {"zone":"CET"}])";

// What a kMistral parser releases for output fed n_bytes at a time: its calls as
// "[name arguments]" (with " #id" when the model wrote one), then its text, trimmed when there are calls.
std::string mistral_released(std::string_view output, size_t n_bytes) {
  return testing::released_by_parser(kMistral, output, n_bytes);
}

TEST(MistralCalls, ACallEndsWhereItsArgumentsObjectEnds) {
  std::vector<ParsedToolCall> calls;
  size_t consumed = 0;
  const std::string_view rest = R"(f[ARGS]{"a": "}{", "b": [1, {"c": "\"]"}]} and text)";
  ASSERT_EQ(scan_mistral_call(rest, &calls, &consumed), MistralCallScan::kCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].name, "f");
  EXPECT_EQ(calls[0].arguments_json, R"({"a":"}{","b":[1,{"c":"\"]"}]})");
  EXPECT_TRUE(calls[0].id.empty());
  EXPECT_EQ(rest.substr(consumed), " and text");
}

TEST(MistralCalls, ReadsTheIdSmall32WritesAndWhitespaceAroundTheParts) {
  std::vector<ParsedToolCall> calls;
  size_t consumed = 0;
  ASSERT_EQ(scan_mistral_call(" get_time [CALL_ID] a1B2c3D4e [ARGS]\n{\"zone\": \"CET\", \"z\": 1}", &calls, &consumed),
            MistralCallScan::kCall);
  EXPECT_EQ(calls[0].name, "get_time");
  EXPECT_EQ(calls[0].id, "a1B2c3D4e");
  EXPECT_EQ(calls[0].arguments_json, R"({"zone":"CET","z":1})");  // the model's key order
}

TEST(MistralCalls, WaitsWhileTheCallMayStillComplete) {
  std::vector<ParsedToolCall> calls;
  size_t consumed = 0;
  for (std::string_view rest : {"", "  ", "get_weather", "get_weather[AR", "get_weather[CALL_ID]ab", "f[ARGS]",
                                "f[ARGS] ", R"(f[ARGS]{"a": "}")", "[", "[{\"name\": \"f\""}) {
    EXPECT_EQ(scan_mistral_call(rest, &calls, &consumed), MistralCallScan::kNeedMore) << rest;
  }
  EXPECT_TRUE(calls.empty());
}

TEST(MistralCalls, WhatCannotBecomeACallIsNotOne) {
  std::vector<ParsedToolCall> calls;
  size_t consumed = 0;
  for (std::string_view rest : {"get weather", "Sure, here it is", "[ARGS]{}", "f[ARGS]\"a\"", "f[ARGS][1]",
                                "f[ARGS]{\"a\": }", "f[CALL_ID]a b[ARGS]{}", "f[AB]", "{\"no\": \"name\"}",
                                "f\"[ARGS]{}"}) {
    EXPECT_EQ(scan_mistral_call(rest, &calls, &consumed), MistralCallScan::kNotACall) << rest;
  }
  EXPECT_EQ(scan_mistral_call(std::string(300, 'x'), &calls, &consumed), MistralCallScan::kNotACall);
  EXPECT_TRUE(calls.empty());
}

TEST(MistralCalls, JsonContainerLengthCountsBracketsOutsideStrings) {
  EXPECT_EQ(json_container_length(R"({"a": "}\"{"} tail)"), 13u);
  EXPECT_EQ(json_container_length(R"([{"a": [1, 2]}, {}])"), 19u);
  EXPECT_EQ(json_container_length(R"({"a": "\)"), std::string_view::npos);
  EXPECT_EQ(json_container_length("x{}"), 0u);
}

TEST(ToolCallParserMistral, TextThenCallsGivesTheCallsAndTheText) {
  for (std::string_view calls : {kTwoCalls, kTwoCallsWithIds}) {
    ParsedOutput out = parse_tool_calls("Let me check.\n\n" + std::string(calls), kMistral);
    ASSERT_EQ(out.calls.size(), 2u) << calls;
    EXPECT_EQ(out.calls[0].name, "get_weather");
    EXPECT_EQ(out.calls[1].arguments_json, R"({"zone":"CET"})");
    EXPECT_EQ(out.content, "Let me check.");
  }
  const ParsedOutput with_ids = parse_tool_calls(kTwoCallsWithIds, kMistral);
  EXPECT_EQ(with_ids.calls[0].id, "a1B2c3D4e");
  EXPECT_EQ(with_ids.calls[1].id, "Z9y8X7w6V");
  EXPECT_TRUE(parse_tool_calls(kTwoCalls, kMistral).calls[0].id.empty());
}

// Mistral Nemo and Small 3.1 write a JSON array after the same opener, with the call's id.
TEST(ToolCallParserMistral, ReadsTheOlderJsonArrayWithItsIds) {
  const std::string output =
      R"([TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1B2c3D4e"}, )"
      R"({"name": "get_time", "arguments": {}}])";
  const ParsedOutput out = parse_tool_calls(output, kMistral);
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].id, "a1B2c3D4e");
  EXPECT_EQ(out.calls[0].arguments_json, R"({"city":"Paris"})");
  EXPECT_TRUE(out.calls[1].id.empty());
  EXPECT_EQ(out.content, "");
  // The kJson syntax (Nemo's template) reads the same output, ids included.
  EXPECT_EQ(parse_tool_calls(output, ToolCallSyntax::kJson).calls[0].id, "a1B2c3D4e");
}

// A forced call is constrained to a JSON <tool_call> block whatever the model's syntax; bare JSON
// stays text, and Mistral's markup is text for the other syntaxes.
TEST(ToolCallParserMistral, JsonBlocksAreCallsButBareJsonIsText) {
  const std::string hermes = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>";
  const std::string bare = "{\"name\": \"f\", \"arguments\": {}}";
  ASSERT_EQ(parse_tool_calls(hermes, kMistral).calls.size(), 1u);
  EXPECT_EQ(parse_tool_calls(hermes, kMistral).calls[0].arguments_json, R"({"a":1})");
  EXPECT_TRUE(parse_tool_calls(bare, kMistral).calls.empty());
  EXPECT_EQ(parse_tool_calls(bare, kMistral).content, bare);
  for (ToolCallSyntax syntax : {ToolCallSyntax::kJson, ToolCallSyntax::kArgTags, ToolCallSyntax::kDeepSeekV31}) {
    EXPECT_TRUE(parse_tool_calls("Hi " + std::string(kTwoCalls), syntax).calls.empty());
  }
}

// An opener that no call follows, a call cut off, arguments that are no object: every byte comes
// back as text.
TEST(ToolCallParserMistral, TruncatedOrMalformedCallsComeBackAsText) {
  for (const std::string& output :
       {std::string(kTwoCalls.substr(0, 30)), std::string(kTwoCalls.substr(0, 50)),
        std::string("[TOOL_CALLS]"), std::string("[TOOL_CALLS]get_weather"), std::string("[TOOL_CALLS]f[CALL_ID]x"),
        std::string("I use [TOOL_CALLS] to call tools."), std::string("[TOOL_CALLS]f[ARGS]\"text\" after"),
        std::string("[TOOL_CALLS][{\"name\": 1}]"), std::string("a [TOOL_CALLS]f[ARGS]{\"x\":}")}) {
    ParsedOutput out = parse_tool_calls(output, kMistral);
    EXPECT_TRUE(out.calls.empty()) << output;
    EXPECT_EQ(out.content, output);
  }
}

TEST(ToolCallParserMistral, AFinishedCallKeepsItsPlaceWhenTheNextIsCutOff) {
  const std::string output = std::string(kTwoCalls.substr(0, kTwoCalls.size() - 4));
  ParsedOutput out = parse_tool_calls(output, kMistral);
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].name, "get_weather");
  EXPECT_EQ(out.content, R"([TOOL_CALLS]get_time[ARGS]{"zone": "C)");
}

TEST(ToolCallParserMistral, StreamingInAnyPiecesGivesTheSameAnswer) {
  for (size_t n : {1u, 2u, 3u, 7u, 13u, 64u, 1000u}) {
    EXPECT_EQ(mistral_released("Checking.\n" + std::string(kTwoCalls), n), std::string(kMistralTwoCallsReleased) + "Checking.")
        << n;
    EXPECT_EQ(mistral_released(kTwoCallsWithIds, n),
              R"([get_weather {"city":"Paris","days":3} #a1B2c3D4e][get_time {"zone":"CET"} #Z9y8X7w6V])")
        << n;
  }
}

// Random cuts of calls, tags, JSON and text, fed in random pieces: never a crash, the same calls
// and text whatever the pieces, and every byte back when there is no call.
TEST(ToolCallParserMistral, RandomOutputsInRandomPiecesKeepEveryByte) {
  const std::vector<std::string> parts = {"text ", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "f", "abc123XYZ",
                                          "{\"a\": 1}", "{\"a\": \"}\"", "}", "{", "[", "]", "\"", "\\", "\n",
                                          " ", "[TOOL", "[AR", "[{\"name\": \"g\", \"arguments\": {}}]",
                                          "<tool_call>", "</tool_call>"};
  std::mt19937 rng(12);
  for (int round = 0; round < 1500; ++round) {
    std::string output;
    const int n_parts = static_cast<int>(rng() % 14);
    for (int i = 0; i < n_parts; ++i) output += parts[rng() % parts.size()];
    const std::string whole = mistral_released(output, output.size() + 1);
    EXPECT_EQ(mistral_released(output, 1 + rng() % 9), whole) << output;
    if (parse_tool_calls(output, kMistral).calls.empty()) {
      EXPECT_EQ(whole, output);
    }
  }
}

}  // namespace
}  // namespace strata::server
