#include "server/tool_prompt.h"

#include <gtest/gtest.h>

#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

using nlohmann::json;

const json kWeatherTools = json::parse(R"([{"type": "function", "function": {"name": "get_weather",
    "description": "Weather for a city", "parameters": {"type": "object"}}}])");

TEST(ToolsAsText, ToolsGoIntoANewSystemTurn) {
  std::vector<ChatTurn> out = tools_as_text({{"user", "Weather in Paris?", nullptr}}, kWeatherTools);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].role, "system");
  EXPECT_NE(out[0].content.find("<tools>\n" + kWeatherTools[0].dump() + "\n</tools>"), std::string::npos);
  EXPECT_NE(out[0].content.find("<tool_call>"), std::string::npos);
  EXPECT_EQ(out[1].content, "Weather in Paris?");
}

TEST(ToolsAsText, ToolsAreAppendedToAnExistingSystemTurn) {
  std::vector<ChatTurn> out =
      tools_as_text({{"system", "Be brief.", nullptr}, {"user", "Hi", nullptr}}, kWeatherTools);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].content.rfind("Be brief.\n\n# Tools", 0), 0u);
}

TEST(ToolsAsText, CallsAndResultsBecomeBlocksTheParserReads) {
  json calls = json::parse(R"([{"id": "c1", "type": "function",
      "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}])");
  std::vector<ChatTurn> turns = {{"user", "Weather?", nullptr},
                                 {"assistant", "", {{"tool_calls", calls}}},
                                 {"tool", "sunny", {{"tool_call_id", "c1"}}},
                                 {"tool", "warm", {{"tool_call_id", "c2"}}}};
  std::vector<ChatTurn> out = tools_as_text(turns, nullptr);  // no tools: no system turn
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].role, "assistant");
  ParsedOutput parsed = parse_tool_calls(out[1].content);
  ASSERT_EQ(parsed.calls.size(), 1u);
  EXPECT_EQ(parsed.calls[0].name, "get_weather");
  EXPECT_EQ(parsed.calls[0].arguments_json, R"({"city":"Paris"})");
  EXPECT_EQ(out[2].role, "user");  // both results in one user turn
  EXPECT_EQ(out[2].content,
            "<tool_response>\nsunny\n</tool_response>\n<tool_response>\nwarm\n</tool_response>");
  for (const ChatTurn& turn : out) EXPECT_TRUE(turn.extra.is_null());
}

constexpr char kWeatherToolsIndented[] =
    "[\n  {\n    \"function\": {\n      \"description\": \"Weather for a city\",\n      \"name\": \"get_weather\",\n"
    "      \"parameters\": {\n        \"type\": \"object\"\n      }\n    },\n    \"type\": \"function\"\n  }\n]";

TEST(ToolsInSystemTurn, ToolsAndTheExampleBecomeANewSystemTurnInFront) {
  std::vector<ChatTurn> out = tools_in_system_turn({{"user", "Hi", nullptr}}, kWeatherTools, "CALL");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].role, "system");
  EXPECT_EQ(out[0].content, std::string("You can call any of the following tools to satisfy the user's requests: ") +
                                kWeatherToolsIndented + "\n\nExample tool call syntax:\n\nCALL\n\n");
  EXPECT_EQ(out[1].content, "Hi");
}

TEST(ToolsInSystemTurn, ToolsEndAnExistingSystemTurnAndAnEmptyExampleIsLeftOut) {
  std::vector<ChatTurn> out =
      tools_in_system_turn({{"system", "Be brief.", nullptr}, {"user", "Hi", nullptr}}, kWeatherTools, "");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].content, std::string("Be brief.\n\nYou can call any of the following tools to satisfy the "
                                        "user's requests: ") + kWeatherToolsIndented);
}

TEST(ToolsInSystemTurn, NoToolsLeaveTheTurnsAlone) {
  const std::vector<ChatTurn> turns = {{"user", "Hi", nullptr}};
  EXPECT_EQ(tools_in_system_turn(turns, nullptr, "CALL").size(), 1u);
  EXPECT_EQ(tools_in_system_turn(turns, json::array(), "CALL").size(), 1u);
}

}  // namespace
}  // namespace strata::server
