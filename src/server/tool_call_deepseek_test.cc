// DeepSeek's tool calls (`<｜tool▁calls▁begin｜>` sections): a section alone
// (parse_deepseek_calls) and whole outputs, at once and streamed (ToolCallParser with
// kDeepSeekR1 / kDeepSeekV31).
#include "server/tool_call_deepseek.h"

#include <gtest/gtest.h>

#include <random>

#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

constexpr ToolCallSyntax kR1 = ToolCallSyntax::kDeepSeekR1;
constexpr ToolCallSyntax kV31 = ToolCallSyntax::kDeepSeekV31;

// What R1 writes for two calls (its template writes calls back so, a newline between them).
constexpr std::string_view kR1TwoCalls =
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
    "{\"city\": \"Paris\", \"days\": 3}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n"
    "```json\n{\"zone\": \"CET\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
// The same two calls as V3.1 writes them.
constexpr std::string_view kV31TwoCalls =
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\", \"days\": 3}"
    "<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{\"zone\": \"CET\"}<｜tool▁call▁end｜>"
    "<｜tool▁calls▁end｜>";
constexpr std::string_view kTwoCallsReleased = R"([get_weather {"city":"Paris","days":3}][get_time {"zone":"CET"}])";

// The section between the opener and the closer.
std::string_view deepseek_section_of(std::string_view output) {
  const size_t begin = output.find("｜>") + std::string_view("｜>").size();
  return output.substr(begin, output.rfind("<｜tool▁calls▁end｜>") - begin);
}

// What a parser of this syntax releases for output fed n_bytes at a time: its calls as
// "[name arguments]", then its text, trimmed when there are calls.
std::string deepseek_released(ToolCallSyntax syntax, std::string_view output, size_t n_bytes) {
  return testing::released_by_parser(syntax, output, n_bytes);
}

TEST(DeepseekCalls, R1SectionGivesEachCallWithItsArgumentsInTheModelsOrder) {
  std::vector<ParsedToolCall> calls;
  ASSERT_TRUE(parse_deepseek_calls(deepseek_section_of(kR1TwoCalls), kR1, &calls));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].name, "get_weather");
  EXPECT_EQ(calls[0].arguments_json, R"({"city":"Paris","days":3})");
  EXPECT_FALSE(calls[0].arguments_raw);
  EXPECT_EQ(calls[1].name, "get_time");
  EXPECT_EQ(calls[1].arguments_json, R"({"zone":"CET"})");
}

TEST(DeepseekCalls, V31SectionGivesEachCallWithItsArgumentsInTheModelsOrder) {
  std::vector<ParsedToolCall> calls;
  ASSERT_TRUE(parse_deepseek_calls(deepseek_section_of(kV31TwoCalls), kV31, &calls));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].name, "get_weather");
  EXPECT_EQ(calls[0].arguments_json, R"({"city":"Paris","days":3})");
  EXPECT_EQ(calls[1].name, "get_time");
}

// As llama.cpp reads them: whitespace between and inside the parts, a fence closed right after
// the JSON, a call without its <｜tool▁call▁begin｜>.
TEST(DeepseekCalls, ToleratesWhitespaceAFenceRightAfterTheJsonAndAMissingCallBegin) {
  std::vector<ParsedToolCall> calls;
  ASSERT_TRUE(parse_deepseek_calls(
      "\n<｜tool▁call▁begin｜>\nfunction<｜tool▁sep｜>f\n```json\n{\"a\": 1}```\n<｜tool▁call▁end｜>\n"
      "function<｜tool▁sep｜> g \n```\n{}\n```<｜tool▁call▁end｜>\n",
      kR1, &calls));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].arguments_json, R"({"a":1})");
  EXPECT_EQ(calls[1].name, "g");
  EXPECT_EQ(calls[1].arguments_json, "{}");
  ASSERT_TRUE(parse_deepseek_calls(" get_time <｜tool▁sep｜> {} \n<｜tool▁call▁end｜>", kV31, &calls));
  EXPECT_EQ(calls.back().name, "get_time");
}

TEST(DeepseekCalls, RejectsSectionsThatAreNotOnlyCallsOfTheSyntax) {
  const std::string r1_call = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜>";
  const std::string v31_call = "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>";
  for (const std::string& section :
       {std::string(), std::string("\n"), r1_call + " trailing", "text " + r1_call,
        r1_call.substr(0, r1_call.size() - 5),                                    // call never ended
        std::string("<｜tool▁call▁begin｜>tool<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜>"),  // not "function"
        std::string("<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n[1]\n```<｜tool▁call▁end｜>"),
        std::string("<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\":\n```<｜tool▁call▁end｜>"),
        std::string("<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n{}<｜tool▁call▁end｜>"),  // no fence
        std::string("<｜tool▁call▁begin｜>function<｜tool▁sep｜>two words\n```json\n{}\n```<｜tool▁call▁end｜>"),
        v31_call}) {
    std::vector<ParsedToolCall> calls;
    EXPECT_FALSE(parse_deepseek_calls(section, kR1, &calls)) << section;
    EXPECT_TRUE(calls.empty());
  }
  for (const std::string& section :
       {r1_call, std::string("<｜tool▁call▁begin｜>f<｜tool▁sep｜>\"text\"<｜tool▁call▁end｜>"),
        std::string("<｜tool▁call▁begin｜><｜tool▁sep｜>{}<｜tool▁call▁end｜>"), v31_call + "x",
        std::string("<｜tool▁call▁begin｜>f{}<｜tool▁call▁end｜>")}) {
    std::vector<ParsedToolCall> calls;
    EXPECT_FALSE(parse_deepseek_calls(section, kV31, &calls)) << section;
  }
  std::vector<ParsedToolCall> calls;
  EXPECT_FALSE(parse_deepseek_calls(deepseek_section_of(kV31TwoCalls), ToolCallSyntax::kJson, &calls));
}

TEST(ToolCallParserDeepseek, TextThenASectionGivesTheCallsAndTheText) {
  for (auto [syntax, output] : {std::pair{kR1, kR1TwoCalls}, std::pair{kV31, kV31TwoCalls}}) {
    ParsedOutput out = parse_tool_calls("Let me check.\n\n" + std::string(output), syntax);
    ASSERT_EQ(out.calls.size(), 2u) << output;
    EXPECT_EQ(out.calls[1].name, "get_time");
    EXPECT_EQ(out.content, "Let me check.");
  }
}

// R1's distilled models misspell the opener; llama.cpp takes these spellings, and so do we.
TEST(ToolCallParserDeepseek, OtherSpellingsOfTheOpenerOpenASection) {
  const std::string calls(deepseek_section_of(kR1TwoCalls));
  for (std::string_view opener : kDeepSeekCallsOpeners) {
    const std::string output = std::string(opener) + calls + std::string(kDeepSeekCallsCloser);
    EXPECT_EQ(parse_tool_calls(output, kR1).calls.size(), 2u) << opener;
  }
}

// A forced call is constrained to a JSON <tool_call> block whatever the model's syntax, so DeepSeek
// reads those too; bare JSON stays text, and DeepSeek's markup is text for the other syntaxes.
TEST(ToolCallParserDeepseek, JsonBlocksAreCallsButBareJsonIsText) {
  const std::string hermes = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>";
  const std::string bare = "{\"name\": \"f\", \"arguments\": {}}";
  for (ToolCallSyntax syntax : {kR1, kV31}) {
    ASSERT_EQ(parse_tool_calls(hermes, syntax).calls.size(), 1u);
    EXPECT_EQ(parse_tool_calls(hermes, syntax).calls[0].arguments_json, R"({"a":1})");
    EXPECT_TRUE(parse_tool_calls(bare, syntax).calls.empty());
    EXPECT_EQ(parse_tool_calls(bare, syntax).content, bare);
  }
  for (ToolCallSyntax syntax : {ToolCallSyntax::kJson, ToolCallSyntax::kArgTags}) {
    EXPECT_TRUE(parse_tool_calls(std::string(kV31TwoCalls), syntax).calls.empty());
  }
  EXPECT_TRUE(parse_tool_calls(std::string(kV31TwoCalls), kR1).calls.empty());  // each reads its own form
  EXPECT_TRUE(parse_tool_calls(std::string(kR1TwoCalls), kV31).calls.empty());
}

TEST(ToolCallParserDeepseek, UnterminatedOrMalformedSectionsComeBackAsText) {
  const std::string unclosed(kV31TwoCalls.substr(0, kV31TwoCalls.size() - 3));
  for (const std::string& output :
       {"Answer: " + unclosed, std::string(kV31TwoCalls.substr(0, 40)),
        std::string("<｜tool▁calls▁begin｜>"), std::string("x <｜tool▁calls▁begin｜>oops<｜tool▁calls▁end｜> y"),
        std::string("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\":<｜tool▁call▁end｜>"
                    "<｜tool▁calls▁end｜>")}) {
    ParsedOutput out = parse_tool_calls(output, kV31);
    EXPECT_TRUE(out.calls.empty()) << output;
    EXPECT_EQ(out.content, output);
  }
}

TEST(ToolCallParserDeepseek, StreamingInAnyPiecesGivesTheSameAnswer) {
  for (auto [syntax, section] : {std::pair{kR1, kR1TwoCalls}, std::pair{kV31, kV31TwoCalls}}) {
    const std::string output = "Checking.\n" + std::string(section);
    for (size_t n : {1u, 2u, 3u, 7u, 13u, 64u, 1000u}) {
      EXPECT_EQ(deepseek_released(syntax, output, n), std::string(kTwoCallsReleased) + "Checking.") << n;
    }
  }
}

// Random cuts of sections, calls, tags and text, fed in random pieces: never a crash, the same
// calls and text whatever the pieces, and every byte back when there is no call.
TEST(ToolCallParserDeepseek, RandomOutputsInRandomPiecesKeepEveryByte) {
  const std::vector<std::string> parts = {"text ", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "f",
                                          "<｜tool▁sep｜>", "{\"a\": 1}", "<｜tool▁call▁end｜>",
                                          "<｜tool▁calls▁end｜>", "<｜tool", "\n", "function", "\n```json\n",
                                          "```", "<tool_call>", "</tool_call>", "<", "｜"};
  std::mt19937 rng(11);
  for (ToolCallSyntax syntax : {kR1, kV31}) {
    for (int round = 0; round < 500; ++round) {
      std::string output;
      const int n_parts = static_cast<int>(rng() % 14);
      for (int i = 0; i < n_parts; ++i) output += parts[rng() % parts.size()];
      const std::string whole = deepseek_released(syntax, output, output.size() + 1);
      EXPECT_EQ(deepseek_released(syntax, output, 1 + rng() % 9), whole) << output;
      if (parse_tool_calls(output, syntax).calls.empty()) {
        EXPECT_EQ(whole, output);
      }
    }
  }
}

}  // namespace
}  // namespace strata::server
