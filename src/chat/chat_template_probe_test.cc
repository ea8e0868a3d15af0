// probe_tool_call_turn_form on real templates (testdata/): DeepSeek's want arguments as text
// (R1's also a null content for a call-only turn); those that write tojson or walk the
// arguments keep objects. requires_nine_character_call_ids: Mistral Small 3.2's and Nemo's. renders_offered_tools and probe_tool_call_example: DeepSeek's leave
// tools out and write calls as minja's example derivation finds them (the expected examples are
// that derivation run on Python jinja2's renderings).
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

// Mistral's templates write arguments with tojson; Small 3.2's and Nemo's demand ids of 9
// characters, so the probes' calls carry such an id.
TEST(ChatTemplateProbe, MistralTemplatesKeepObjectsAndAnEmptyContent) {
  for (const char* name : {"mistral-small-3.2.jinja", "devstral-small-2507.jinja", "ministral-3-reasoning.jinja",
                           "mistral-nemo.jinja"}) {
    const ToolCallTurnForm form = probe_tool_call_turn_form(load_testdata_template(name));
    EXPECT_FALSE(form.arguments_as_text) << name;
    EXPECT_FALSE(form.null_content) << name;
    EXPECT_TRUE(renders_offered_tools(load_testdata_template(name))) << name;
  }
}

TEST(ChatTemplateProbe, MistralSmall32AndNemoRequireNineCharacterCallIds) {
  for (const char* name : {"mistral-small-3.2.jinja", "mistral-nemo.jinja"}) {
    EXPECT_TRUE(requires_nine_character_call_ids(load_testdata_template(name))) << name;
  }
  for (const char* name : {"devstral-small-2507.jinja", "ministral-3-reasoning.jinja", "qwen3.jinja",
                           "deepseek-v3.1.jinja", "llama3.jinja"}) {
    EXPECT_FALSE(requires_nine_character_call_ids(load_testdata_template(name))) << name;
  }
  EXPECT_FALSE(requires_nine_character_call_ids(ChatTemplate::ChatML()));
}

TEST(ChatTemplateProbe, OnlyMinistral3TakesReasoningAsAThinkingChunk) {
  EXPECT_TRUE(renders_thinking_chunks(load_testdata_template("ministral-3-reasoning.jinja")));
  for (const char* name : {"mistral-small-3.2.jinja", "devstral-small-2507.jinja", "qwen3.jinja", "gpt-oss.jinja",
                           "deepseek-r1.jinja", "glm-4.6.jinja"}) {
    EXPECT_FALSE(renders_thinking_chunks(load_testdata_template(name))) << name;
  }
  EXPECT_FALSE(renders_thinking_chunks(ChatTemplate::ChatML()));
}

TEST(ChatTemplateProbe, TemplatesThatShowToolsAreToldApartFromThoseThatLeaveThemOut) {
  for (const char* name : {"qwen3.jinja", "glm-4.6.jinja", "gpt-oss.jinja"}) {
    EXPECT_TRUE(renders_offered_tools(load_testdata_template(name))) << name;
  }
  // Llama 3.0's, Gemma 3's and Mistral's templates know no tools either.
  for (const char* name :
       {"deepseek-r1.jinja", "deepseek-v3.1.jinja", "llama3.jinja", "gemma3.jinja", "mistral.jinja"}) {
    EXPECT_FALSE(renders_offered_tools(load_testdata_template(name))) << name;
  }
  EXPECT_FALSE(renders_offered_tools(ChatTemplate::ChatML()));
}

constexpr char kProbeBos[] = "<｜begin▁of▁sentence｜>";
constexpr char kProbeEos[] = "<｜end▁of▁sentence｜>";

TEST(ChatTemplateProbe, DeepseekR1CallExampleIsItsCallWithoutTheThinkOpener) {
  const ChatTemplate t = load_testdata_template("deepseek-r1.jinja");
  EXPECT_EQ(probe_tool_call_example(t, probe_tool_call_turn_form(t), kProbeBos, kProbeEos),
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>tool_name\n```json\n"
            "{\"arg1\": \"some_value\"}\n```<｜tool▁call▁end｜>");
}

TEST(ChatTemplateProbe, DeepseekV31CallExampleKeepsItsEndOfSentence) {
  const ChatTemplate t = load_testdata_template("deepseek-v3.1.jinja");
  EXPECT_EQ(probe_tool_call_example(t, probe_tool_call_turn_form(t), kProbeBos, kProbeEos),
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_name<｜tool▁sep｜>{\"arg1\": \"some_value\"}"
            "<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>");
}

TEST(ChatTemplateProbe, ChatMlHasNoCallExample) {
  const ChatTemplate t = ChatTemplate::ChatML();
  EXPECT_EQ(probe_tool_call_example(t, probe_tool_call_turn_form(t), "", ""), "");
}

// DeepSeek-R1's template and the MiniMax-M2 stand-in open "<think>\n" whatever enable_thinking
// says; Qwen3's and Qwen3.5's close their block when it is false, V3.1's follows `thinking`, and
// templates without reasoning never open one.
TEST(ChatTemplateProbe, TemplatesThatKeepReasoningOpenWhenSwitchedOffAreFound) {
  for (const char* name : {"deepseek-r1.jinja", "minimax-m2.jinja"}) {
    EXPECT_TRUE(opens_reasoning_switched_off(load_testdata_template(name))) << name;
  }
  for (const char* name : {"qwen3.jinja", "qwen3.5.jinja", "deepseek-v3.1.jinja", "gpt-oss.jinja", "llama3.jinja",
                           "kimi-k2-thinking.jinja", "glm-4.6.jinja", "ministral-3-reasoning.jinja"}) {
    EXPECT_FALSE(opens_reasoning_switched_off(load_testdata_template(name))) << name;
  }
  EXPECT_FALSE(opens_reasoning_switched_off(ChatTemplate::ChatML()));
}

}  // namespace
}  // namespace strata
