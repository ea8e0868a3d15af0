// LFM2's tool calls: one block's body (parse_lfm2_calls) and whole outputs at once and streamed
// (ToolCallParser with kLfm2), split anywhere.
#include "server/tool_call_lfm2.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

// Text, two calls in one block as LFM2.5's template writes them back (", " between calls, strings
// in single quotes), the second's values nested, then more text.
constexpr std::string_view kLfm2TwoCalls =
    "Let me check.\n<|tool_call_start|>[get_weather(city='Paris', days=3), "
    "other(x=[1, 2], y={\"a\": None}, z=\"it's \\\"ok\\\"\", w=-0.5)]<|tool_call_end|>\nDone.";
constexpr std::string_view kLfm2TwoCallsReleased =
    R"([get_weather {"city":"Paris","days":3}][other {"x":[1,2],"y":{"a":null},"z":"it's \"ok\"","w":-0.5}])"
    "Let me check.\n\nDone.";

// The calls of a body as "[name arguments]...", or "no call".
std::string lfm2_block_calls(std::string_view body) {
  std::vector<ParsedToolCall> calls;
  if (!parse_lfm2_calls(body, &calls)) return "no call";
  std::string out;
  for (const ParsedToolCall& call : calls) {
    EXPECT_FALSE(call.arguments_raw);
    EXPECT_EQ(call.id, "");
    out += "[" + call.name + " " + call.arguments_json + "]";
  }
  return out;
}

TEST(Lfm2Calls, ABlockGivesEachCallsNameAndArgumentsInTheirOrder) {
  EXPECT_EQ(lfm2_block_calls(R"([get_weather(city="Paris", days=3), other(x=[1, 2], y={"a": None})])"),
            R"([get_weather {"city":"Paris","days":3}][other {"x":[1,2],"y":{"a":null}}])");
  EXPECT_EQ(lfm2_block_calls("[f(b=True, a=False, c=None, d=1.5e1, e=(1, 'two'))]"),
            R"([f {"b":true,"a":false,"c":null,"d":15.0,"e":[1,"two"]}])");
  EXPECT_EQ(lfm2_block_calls("[now()]"), "[now {}]");
  EXPECT_EQ(lfm2_block_calls("[mcp.search-docs(q='x')]"), R"([mcp.search-docs {"q":"x"}])");
}

// The calls as LFM2.5's template writes a history's calls back (jinja2's render of
// lfm2_render_test.cc's tool loop) read as the calls the client sent.
TEST(Lfm2Calls, WhatTheTemplateWritesBackReadsAsTheSameCalls) {
  EXPECT_EQ(lfm2_block_calls("[get_weather(city='Paris', days=3, metric=True, hours=[9, 12], at={\"lat\": 48.9}), "
                        "plan(stops=['Paris', 'Lyon'], budget=1.5, note=None)]"),
            R"([get_weather {"city":"Paris","days":3,"metric":true,"hours":[9,12],"at":{"lat":48.9}}])"
            R"([plan {"stops":["Paris","Lyon"],"budget":1.5,"note":null}])");
}

TEST(Lfm2Calls, WhitespaceAndTrailingCommasGoWherePythonAllowsThem) {
  EXPECT_EQ(lfm2_block_calls(" \n[ f( a = 1 ,\n b = 'x' , ) ,\tg( ) , ]\n "), R"([f {"a":1,"b":"x"}][g {}])");
  EXPECT_EQ(lfm2_block_calls("f(a=1), g(b=[\n  2,\n])"), R"([f {"a":1}][g {"b":[2]}])");  // brackets left out
}

// llama.cpp's own LFM2 template writes the history's calls as JSON in the same markers.
TEST(Lfm2Calls, AJsonArrayOfCallsIsReadToo) {
  EXPECT_EQ(lfm2_block_calls(R"([{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": "{\"b\": 2}"}])"),
            R"([f {"a":1}][g {"b":2}])");
}

TEST(Lfm2Calls, AnythingElseIsNoCall) {
  for (std::string_view body :
       {"", "[]", " [ ] ", "[f('Paris')]", "[f(x)]", "[f(a=1, 'x')]", "[f(a=1, a=2)]", "[f(a=Paris)]",
        "[f(a='open)]", "[f(a=\"mixed')]", "[f(a=1)", "[f(a=1)] x", "[f(a=1) g(b=2)]", "[(a=1)]", "[f a=1]",
        "f(a=1),", "[f(**{'a': 1})]", "[f(a=g(1))]", "[f(a=1,,)]", "[f(,)]", "[f(a=)]", "[f(a=1]", "[f(a==1)]",
        "[f(a={'k' 1})]", "[f(a=1e999)]", "{\"name\": \"f\"}", "[{\"name\": \"\"}]"}) {
    EXPECT_EQ(lfm2_block_calls(body), "no call") << body;
  }
}

// Fed in two pieces split at every byte, and in pieces of every size.
TEST(Lfm2Calls, AnOutputGivesItsCallsAndItsTextWhereverItIsSplit) {
  for (size_t at = 0; at <= kLfm2TwoCalls.size(); ++at) {
    ToolCallParser parser(ToolCallSyntax::kLfm2);
    std::vector<ToolCallPiece> pieces = parser.feed(kLfm2TwoCalls.substr(0, at));
    for (std::vector<ToolCallPiece> more : {parser.feed(kLfm2TwoCalls.substr(at)), parser.finish()}) {
      for (ToolCallPiece& piece : more) pieces.push_back(std::move(piece));
    }
    std::string calls, text;
    for (const ToolCallPiece& piece : pieces) {
      if (piece.is_call) calls += "[" + piece.call.name + " " + piece.call.arguments_json + "]";
      if (!piece.is_call) text += piece.text;
    }
    EXPECT_EQ(calls + text, kLfm2TwoCallsReleased) << at;
  }
  for (size_t n = 1; n <= kLfm2TwoCalls.size(); ++n) {
    EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kLfm2, kLfm2TwoCalls, n), kLfm2TwoCallsReleased) << n;
  }
}

TEST(Lfm2Calls, TextBeforeABlockIsReleasedAsItArrives) {
  ToolCallParser parser(ToolCallSyntax::kLfm2);
  const std::vector<ToolCallPiece> pieces = parser.feed("Let me check. <|tool_ca");
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].text, "Let me check. ");
  EXPECT_TRUE(parser.feed("ll_start|>[f(a=1)").empty());
  const std::vector<ToolCallPiece> call = parser.feed("]<|tool_call_end|>");
  ASSERT_EQ(call.size(), 1u);
  EXPECT_TRUE(call[0].is_call);
  EXPECT_EQ(call[0].call.arguments_json, R"({"a":1})");
}

TEST(Lfm2Calls, AMalformedOrUnclosedBlockIsTextWhole) {
  for (std::string_view output : {"<|tool_call_start|>[get_weather('Paris')]<|tool_call_end|>",
                                  "Hi <|tool_call_start|>[f(a='open)]<|tool_call_end|> there",
                                  "<|tool_call_start|>[]<|tool_call_end|>", "Cut off <|tool_call_start|>[f(a=1"}) {
    EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kLfm2, output, 3), output);
    EXPECT_EQ(parse_tool_calls(output, ToolCallSyntax::kLfm2).content, output);
  }
  // A forced call's <tool_call> block is read too; another family's parser leaves LFM2's markup as text.
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kLfm2,
                                        R"(<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>)", 4),
            R"([f {"a":1}])");
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kNemotron, kLfm2TwoCalls, 5), kLfm2TwoCalls);
}

}  // namespace
}  // namespace strata::server
