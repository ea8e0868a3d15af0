// Cohere's tool calls: one action's body (parse_cohere_action) and whole outputs at once and
// streamed (ToolCallParser with kCohere).
#include "server/tool_call_cohere.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

// Two calls in one action as North's template writes them back (indented, one per line), the
// second's arguments nested, then a stray text closer North may write after an action (which the
// reasoning splitter, not this parser, leaves out).
constexpr std::string_view kCohereTwoCalls =
    "Checking.<|START_ACTION|>[\n"
    "    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", \"days\": 3}},\n"
    "    {\"tool_call_id\": \"1\", \"tool_name\": \"plan\", \"parameters\": {\"steps\": [{\"go\": true}], \"at\": null}}\n"
    "]<|END_ACTION|>";
constexpr std::string_view kCohereTwoCallsReleased =
    R"([get_weather {"city":"Paris","days":3}][plan {"steps":[{"go":true}],"at":null}]Checking.)";

std::vector<ParsedToolCall> action_calls(std::string_view body) {
  std::vector<ParsedToolCall> calls;
  if (!parse_cohere_action(body, &calls)) calls.clear();
  return calls;
}

TEST(CohereCalls, AnActionGivesEachCallsNameAndArgumentsAndNoModelId) {
  auto calls = action_calls(R"( [{"tool_call_id": "7", "tool_name": "get_weather", "parameters": {"b": 1, "a": [2]}}] )");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].name, "get_weather");
  EXPECT_EQ(calls[0].arguments_json, R"({"b":1,"a":[2]})");  // in the model's order
  EXPECT_FALSE(calls[0].arguments_raw);
  EXPECT_EQ(calls[0].id, "");  // the model's index is not an id: the response makes one up
  // Arguments absent or null: none; a string holding an object: that object; any other string: raw.
  calls = action_calls(R"([{"tool_name": "now"}, {"tool_name": "a", "parameters": null},
                       {"tool_name": "b", "parameters": "{\"x\": 1}"}, {"tool_name": "c", "parameters": "x=1"}])");
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].arguments_json, "{}");
  EXPECT_EQ(calls[1].arguments_json, "{}");
  EXPECT_EQ(calls[2].arguments_json, R"({"x":1})");
  EXPECT_TRUE(calls[3].arguments_raw);
  EXPECT_EQ(calls[3].arguments_json, "x=1");
}

TEST(CohereCalls, AnythingElseIsNoCall) {
  for (std::string_view body :
       {"", "[]", "{}", R"({"tool_name": "f"})", R"([{"tool_name": ""}])", R"([{"name": "f", "arguments": {}}])",
        R"([{"tool_name": 3}])", R"([{"tool_name": "f", "parameters": [1]}])", R"([{"tool_name": "f", "parameters": 2}])",
        R"([{"tool_name": "f"}, 5])", R"([{"tool_name": "f"})", R"([{"tool_name": "f"}] x)"}) {
    EXPECT_TRUE(action_calls(body).empty()) << body;
  }
}

TEST(CohereCalls, AnOutputGivesItsCallsAndItsTextWhateverHowItStreams) {
  for (size_t n : {size_t{1}, size_t{3}, size_t{7}, kCohereTwoCalls.size()}) {
    EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kCohere, kCohereTwoCalls, n), kCohereTwoCallsReleased) << n;
  }
  // An action that holds no calls is text, whole; a forced call's <tool_call> block is read too.
  constexpr std::string_view kBrokenAction = "<|START_ACTION|>[{\"tool_name\": }]<|END_ACTION|>";
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kCohere, kBrokenAction, 2), kBrokenAction);
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kCohere,
                                        R"(<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>)", 4),
            R"([f {"a":1}])");
  // Another family's parser leaves Cohere's markup as text.
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kGemma4, kCohereTwoCalls, 5), kCohereTwoCalls);
}

}  // namespace
}  // namespace strata::server
