// What `strata run --chat` prints of a reply: reasoning set apart by the style's markers (gpt-oss's
// analysis channel as a <think> block is), the answer plainly, no harmony markup; and a model that
// does not split printed byte for byte.
#include "cli/chat_reply_printer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata::cli {
namespace {

const ChatReplyPrinter::Style kTestStyle{"<dim>", "</dim>\n"};

// Feeds the reply a byte at a time, as tokens may split markers, and joins what is printed.
std::string printed(const server::ReasoningMode& mode, const std::string& reply,
                    const ChatReplyPrinter::Style& style = kTestStyle) {
  ChatReplyPrinter printer(mode, style);
  std::string out;
  for (char c : reply) out += printer.feed(std::string(1, c));
  return out + printer.finish();
}

constexpr server::ReasoningMode kHarmony{/*split=*/true, /*starts_open=*/false, /*harmony=*/true};
constexpr server::ReasoningMode kThink{/*split=*/true, /*starts_open=*/false, /*harmony=*/false};

TEST(ChatReplyPrinter, HarmonyAnalysisIsSetApartAndTheFinalAnswerPrintedPlainly) {
  const std::string reply =
      "<|channel|>analysis<|message|>User greets.\nAnswer briefly.<|end|>"
      "<|start|>assistant<|channel|>final<|message|>Hello!";
  EXPECT_EQ(printed(kHarmony, reply), "<dim>User greets.\nAnswer briefly.</dim>\nHello!");
  EXPECT_EQ(printed(kHarmony, reply + "<|return|>"), "<dim>User greets.\nAnswer briefly.</dim>\nHello!");
}

TEST(ChatReplyPrinter, ThinkBlockIsSetApartLikeHarmonyAnalysis) {
  EXPECT_EQ(printed(kThink, "<think>\nUser greets.\n</think>\n\nHello!"), "<dim>User greets.</dim>\nHello!");
  const server::ReasoningMode opened{true, /*starts_open=*/true, false};
  EXPECT_EQ(printed(opened, "\nUser greets.\n</think>\n\nHello!"), "<dim>User greets.</dim>\nHello!");
}

TEST(ChatReplyPrinter, EmptyReasoningPrintsNoMarkers) {
  EXPECT_EQ(printed(kThink, "<think>\n\n</think>\n\nHello!"), "Hello!");
  EXPECT_EQ(printed(kHarmony, "<|channel|>final<|message|>Hello!"), "Hello!");
}

TEST(ChatReplyPrinter, ReasoningCutOffByTheTokenLimitIsStillClosed) {
  EXPECT_EQ(printed(kHarmony, "<|channel|>analysis<|message|>Still thinking  "), "<dim>Still thinking</dim>\n");
}

TEST(ChatReplyPrinter, ReplyOfAModelThatDoesNotSplitIsPrintedAsItIs) {
  for (const std::string& reply : {std::string("<think>x</think> y"), std::string("<|channel|>final<|message|>z"),
                                  std::string(" plain\n")}) {
    EXPECT_EQ(printed(server::ReasoningMode{}, reply), reply);
  }
}

TEST(ChatReplyPrinter, TerminalsGetDimmedReasoningAndPipesAPrefix) {
  const std::string reply = "<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>final<|message|>Done.";
  EXPECT_EQ(printed(kHarmony, reply, ChatReplyPrinter::StyleFor(/*terminal=*/true)), "\x1b[2mPlan.\x1b[0m\n\nDone.");
  EXPECT_EQ(printed(kHarmony, reply, ChatReplyPrinter::StyleFor(/*terminal=*/false)), "Reasoning: Plan.\n\nDone.");
}

}  // namespace
}  // namespace strata::cli
