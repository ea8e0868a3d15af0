// probe_tool_call_turn_form on real templates (testdata/): DeepSeek's want arguments as text
// (R1's also a null content for a call-only turn); those that write tojson or walk the
// arguments keep objects.
#include <gtest/gtest.h>

#include "chat/chat_template_probe.h"
#include "chat/chat_template_test_util.h"

namespace strata {
namespace {

TEST(ChatTemplateProbe, DeepseekR1TakesArgumentsAsTextAndACallOnlyTurnWithNullContent) {
  const ToolCallTurnForm form = probe_tool_call_turn_form(load_testdata_template("deepseek-r1.jinja"));
  EXPECT_TRUE(form.arguments_as_text);
  EXPECT_TRUE(form.null_content);
}

TEST(ChatTemplateProbe, DeepseekV31TakesArgumentsAsTextAndAnEmptyContent) {
  const ToolCallTurnForm form = probe_tool_call_turn_form(load_testdata_template("deepseek-v3.1.jinja"));
  EXPECT_TRUE(form.arguments_as_text);
  EXPECT_FALSE(form.null_content);
}

TEST(ChatTemplateProbe, TemplatesThatWriteArgumentsAsJsonKeepObjects) {
  for (const char* name : {"qwen3.jinja", "glm-4.6.jinja", "gpt-oss.jinja"}) {
    const ToolCallTurnForm form = probe_tool_call_turn_form(load_testdata_template(name));
    EXPECT_FALSE(form.arguments_as_text) << name;
    EXPECT_FALSE(form.null_content) << name;
  }
}

TEST(ChatTemplateProbe, TemplatesWithoutToolCallsAndChatMlChangeNothing) {
  for (const ChatTemplate& t : {load_testdata_template("llama3.jinja"), ChatTemplate::ChatML()}) {
    const ToolCallTurnForm form = probe_tool_call_turn_form(t);
    EXPECT_FALSE(form.arguments_as_text);
    EXPECT_FALSE(form.null_content);
  }
}

}  // namespace
}  // namespace strata
