// close_reasoning_switched_off: the "</think>" the server writes after a template that opens its
// reasoning block whatever enable_thinking says (MiniMax-M2's), only when thinking is off.
#include "chat/chat_prompt.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

using nlohmann::json;

TEST(CloseReasoningSwitchedOff, ClosesAnOpenThinkBlockOnlyWhenThinkingIsOff) {
  const std::string open = "]~b]user\nHi[e~[\n]~b]ai\n<think>\n";
  EXPECT_EQ(close_reasoning_switched_off(open, {{"enable_thinking", false}}), open + "</think>\n\n");
  EXPECT_EQ(close_reasoning_switched_off(open, {{"enable_thinking", true}}), open);
  EXPECT_EQ(close_reasoning_switched_off(open, json::object()), open);
  EXPECT_EQ(close_reasoning_switched_off(open, nullptr), open);
  EXPECT_EQ(close_reasoning_switched_off(open, {{"enable_thinking", "no"}}), open);  // not a boolean: not off
}

// A template that honoured the switch closed the block itself, or never opened one.
TEST(CloseReasoningSwitchedOff, LeavesPromptsThatDoNotEndInsideAThinkBlock) {
  const json off = {{"enable_thinking", false}};
  for (const std::string& text : {std::string("<think>\n\n</think>\n\n"), std::string("<|im_start|>assistant\n"),
                                  std::string("<think>"), std::string()}) {
    EXPECT_EQ(close_reasoning_switched_off(text, off), text) << text;
  }
}

}  // namespace
}  // namespace strata
