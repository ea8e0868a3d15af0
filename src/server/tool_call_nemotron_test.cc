// Nemotron Nano 2's tool calls: one block's body (parse_nemotron_calls) and whole outputs at once
// and streamed (ToolCallParser with kNemotron).
#include "server/tool_call_nemotron.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

// Two calls in one block as the model's template writes them back (", " between calls), the
// second's arguments nested, after some text.
constexpr std::string_view kNemotronTwoCalls =
    "Checking.\n\n<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}, "
    "{\"name\": \"plan\", \"arguments\": {\"steps\": [{\"go\": true}], \"at\": null}}]</TOOLCALL>";
constexpr std::string_view kNemotronTwoCallsReleased =
    R"([get_weather {"city":"Paris","days":3}][plan {"steps":[{"go":true}],"at":null}]Checking.)";

std::vector<ParsedToolCall> block_calls(std::string_view body) {
  std::vector<ParsedToolCall> calls;
  if (!parse_nemotron_calls(body, &calls)) calls.clear();
  return calls;
}

TEST(NemotronCalls, ABlockGivesEachCallsNameAndArguments) {
  auto calls = block_calls(R"( [{"name": "get_weather", "arguments": {"b": 1, "a": [2]}}] )");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].name, "get_weather");
  EXPECT_EQ(calls[0].arguments_json, R"({"b":1,"a":[2]})");  // in the model's order
  EXPECT_FALSE(calls[0].arguments_raw);
  EXPECT_EQ(calls[0].id, "");
  // Arguments absent or null: none; a string holding an object: that object; any other string: raw.
  calls = block_calls(R"([{"name": "now"}, {"name": "a", "arguments": null},
                      {"name": "b", "arguments": "{\"x\": 1}"}, {"name": "c", "arguments": "x=1"}])");
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].arguments_json, "{}");
  EXPECT_EQ(calls[1].arguments_json, "{}");
  EXPECT_EQ(calls[2].arguments_json, R"({"x":1})");
  EXPECT_TRUE(calls[3].arguments_raw);
  EXPECT_EQ(calls[3].arguments_json, "x=1");
}

TEST(NemotronCalls, AnythingElseIsNoCall) {
  for (std::string_view body :
       {"", "[]", "{}", R"({"name": "f"})", R"([{"name": ""}])", R"([{"tool_name": "f", "parameters": {}}])",
        R"([{"name": 3}])", R"([{"name": "f", "arguments": [1]}])", R"([{"name": "f", "arguments": 2}])",
        R"([{"name": "f"}, 5])", R"([{"name": "f"})", R"([{"name": "f"}] x)"}) {
    EXPECT_TRUE(block_calls(body).empty()) << body;
  }
}

TEST(NemotronCalls, AnOutputGivesItsCallsAndItsTextWhateverHowItStreams) {
  for (size_t n : {size_t{1}, size_t{3}, size_t{7}, kNemotronTwoCalls.size()}) {
    EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kNemotron, kNemotronTwoCalls, n), kNemotronTwoCallsReleased)
        << n;
  }
  // A block that holds no calls is text, whole; a forced call's <tool_call> block is read too.
  constexpr std::string_view kBroken = "<TOOLCALL>[{\"name\": }]</TOOLCALL>";
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kNemotron, kBroken, 2), kBroken);
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kNemotron,
                                        R"(<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>)", 4),
            R"([f {"a":1}])");
  // Another family's parser leaves Nemotron's markup as text.
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kCohere, kNemotronTwoCalls, 5), kNemotronTwoCalls);
}

}  // namespace
}  // namespace strata::server
