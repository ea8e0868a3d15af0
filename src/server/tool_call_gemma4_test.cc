// Gemma 4's tool calls: one call's body (parse_gemma4_call) and whole outputs at once and
// streamed (ToolCallParser with kGemma4).
#include "server/tool_call_gemma4.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

// Two calls as the template writes them back, the second with nested arguments, quoted keys and
// a string holding the notation's own punctuation.
constexpr std::string_view kGemma4TwoCalls =
    "I will look.<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>"
    "<|tool_call>call:plan{steps:[{b:[true,null],a:<|\"|>x<y, {z}: w<|\"|>}],<|\"|>note<|\"|>:{},ratio:-0.5e2}"
    "<tool_call|>";
constexpr std::string_view kGemma4TwoCallsReleased =
    R"([get_weather {"city":"Paris","days":3}][plan {"steps":[{"b":[true,null],"a":"x<y, {z}: w"}],"note":{},"ratio":-50.0}]I will look.)";

std::vector<ParsedToolCall> calls_of(std::string_view body) {
  std::vector<ParsedToolCall> calls(1);
  if (!parse_gemma4_call(body, &calls[0])) calls.clear();
  return calls;
}

TEST(Gemma4Calls, ACallGivesItsNameAndItsArgumentsAsJsonInTheModelsOrder) {
  auto calls = calls_of("call:get_weather{city:<|\"|>Paris<|\"|>,days:3,metric:true,unit:celsius}");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].name, "get_weather");
  // A bare word is the string it spells.
  EXPECT_EQ(calls[0].arguments_json, R"({"city":"Paris","days":3,"metric":true,"unit":"celsius"})");
  EXPECT_FALSE(calls[0].arguments_raw);
  calls = calls_of(" call:now ");  // no arguments
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].arguments_json, "{}");
  calls = calls_of("call:f{a:{b:{}},c:[],d:[1,[2]],e:null}");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].arguments_json, R"({"a":{"b":{}},"c":[],"d":[1,[2]],"e":null})");
}

TEST(Gemma4Calls, AnythingElseIsNoCall) {
  for (std::string_view body : {"", "get_weather{}", "call:{a:1}", "call:two words{}", "call:f{a:1}x", "call:f{a:1",
                                "call:f{a:<|\"|>open}", "call:f{a 1}", "call:f{:1}", "call:f{a:[1,2}", "call:f{a:1,}",
                                "call:f[1]"}) {
    EXPECT_TRUE(calls_of(body).empty()) << body;
  }
  std::string deep = "call:f{a:";
  for (int i = 0; i < 100; ++i) deep += "[";
  EXPECT_TRUE(calls_of(deep).empty());
}

TEST(Gemma4Calls, AnOutputGivesItsCallsAndItsTextWhateverHowItStreams) {
  for (size_t n : {size_t{1}, size_t{3}, size_t{7}, kGemma4TwoCalls.size()}) {
    EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kGemma4, kGemma4TwoCalls, n), kGemma4TwoCallsReleased) << n;
  }
  // A block that is no call is text, whole; another family's markup is text too.
  constexpr std::string_view kBroken = "<|tool_call>call:f{a:<tool_call|>";
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kGemma4, kBroken, 2), kBroken);
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kJson, kGemma4TwoCalls, 5), kGemma4TwoCalls);
}

}  // namespace
}  // namespace strata::server
