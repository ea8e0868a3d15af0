// Hunyuan-A13B's tool calls: whole outputs at once and streamed (ToolCallParser with kHunyuan), its
// "<answer>" wrapper left out of the content (ReasoningSplitter with kHunyuanTags), and both picked
// from a template that asks for `<tool_calls>` (the system prompt Hunyuan's template writes).
#include "server/tool_call_hunyuan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/engine_model.h"
#include "server/reasoning_splitter.h"
#include "server/testing/tool_call_released.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

// Two calls in one block, as Hunyuan's agent documentation shows the model writing them.
constexpr std::string_view kHunyuanTwoCalls =
    "\n<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Beijing\"}}, "
    "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Shanghai\", \"days\": [1, 2]}}]</tool_calls>\n";
constexpr std::string_view kHunyuanTwoCallsReleased =
    R"([get_weather {"city":"Beijing"}][get_weather {"city":"Shanghai","days":[1,2]}])";

TEST(HunyuanCalls, AnOutputGivesItsCallsWhateverHowItStreams) {
  for (size_t n : {size_t{1}, size_t{4}, size_t{11}, kHunyuanTwoCalls.size()}) {
    EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kHunyuan, kHunyuanTwoCalls, n), kHunyuanTwoCallsReleased)
        << n;
  }
  // Text beside a block stays; a block that is no call, or never closes, is text, whole.
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kHunyuan,
                                        "Checking. <tool_calls>[{\"name\": \"f\"}]</tool_calls>", 3),
            "[f {}]Checking.");
  for (std::string_view broken : {"<tool_calls>[{\"tool\": \"f\"}]</tool_calls>", "<tool_calls>[{\"name\": \"f\"}]"}) {
    EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kHunyuan, broken, 2), broken);
  }
  // Other syntaxes leave Hunyuan's tags alone, and Hunyuan's Nemotron's.
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kNemotron, "<tool_calls>[{\"name\": \"f\"}]</tool_calls>", 5),
            "<tool_calls>[{\"name\": \"f\"}]</tool_calls>");
  EXPECT_EQ(testing::released_by_parser(ToolCallSyntax::kHunyuan, "<TOOLCALL>[{\"name\": \"f\"}]</TOOLCALL>", 5),
            "<TOOLCALL>[{\"name\": \"f\"}]</TOOLCALL>");
}

std::string split(std::string_view output, size_t n) {
  ReasoningSplitter splitter(ReasoningMode{true, false, false, false, kHunyuanTags});
  std::string reasoning, content;
  auto take = [&](const std::vector<ReasoningPiece>& pieces) {
    for (const ReasoningPiece& p : pieces) (p.reasoning ? reasoning : content) += p.text;
  };
  for (size_t at = 0; at < output.size(); at += n) take(splitter.feed(output.substr(at, n)));
  take(splitter.finish());
  return "R[" + reasoning + "] C[" + content + "]";
}

// The model thinks, then wraps its reply (text, or its calls) in <answer>...</answer>: the markers
// and the whitespace just inside and after them are left out of the content, whatever how the
// output streams; whitespace within the reply stays.
TEST(HunyuanCalls, TheAnswerWrapperIsLeftOutOfTheContent) {
  const std::string calls(kHunyuanTwoCalls);
  const std::string trimmed = calls.substr(1, calls.size() - 2);
  for (size_t n : {size_t{1}, size_t{3}, size_t{1000}}) {
    EXPECT_EQ(split("<think>\nSunny?\n</think>\n<answer>\nIt is  sunny.\n\nYes.\n</answer>\n", n),
              "R[\nSunny?\n] C[It is  sunny.\n\nYes.]") << n;
    EXPECT_EQ(split("<think>\n\n</think>\n<answer>" + calls + "</answer>", n), "R[\n\n] C[" + trimmed + "]") << n;
    // No closer: the reply's end is the wrapper's.
    EXPECT_EQ(split("<think>a</think><answer> Hi there \n", n), "R[a] C[Hi there]") << n;
    // A call straight from the reasoning ends it (the newline before it is the reasoning's).
    EXPECT_EQ(split("<think>Need it." + calls, n), "R[Need it.\n] C[" + trimmed + "]") << n;
  }
}

TEST(HunyuanCalls, ATemplateAskingForToolCallsTagsPicksHunyuansSyntaxAndTags) {
  auto hunyuan = ChatTemplate::Parse(
      "{% if tools %}Format calls as <tool_calls>[{\"name\": ..., \"arguments\": {...}}]</tool_calls>.{% endif %}"
      "{% for m in messages %}{{ m['content'] }}{% endfor %}");
  ASSERT_TRUE(hunyuan.ok()) << hunyuan.status().ToString();
  EXPECT_EQ(template_traits(*hunyuan).tool_syntax, ToolCallSyntax::kHunyuan);
  EXPECT_EQ(reasoning_tags_of(*hunyuan).answer_open, "<answer>");
  EXPECT_EQ(reasoning_tags_of(*hunyuan).call_open, kHunyuanCallsOpener);
  auto plain = ChatTemplate::Parse("{% for m in messages %}<think>{{ m['content'] }}{% endfor %}");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(template_traits(*plain).tool_syntax, ToolCallSyntax::kJson);
  EXPECT_TRUE(reasoning_tags_of(*plain).answer_open.empty());
}

}  // namespace
}  // namespace strata::server
