// render_chat: parsed OpenAI / Anthropic tool requests through a real model template (Qwen3)
// and through the ChatML fallback; the tool-call syntax EngineModelText reads off a template
// (DeepSeek's renders: deepseek_render_test.cc; Qwen3-Coder's and Qwen3.5's: qwen_xml_render_test.cc;
// MiniMax-M2's: minimax_render_test.cc).
#include "server/engine_model.h"

#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/anthropic_request.h"
#include "server/openai_request.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/tokenizer.h"

namespace strata::server {
namespace {

using nlohmann::json;

ChatTemplate qwen3() { return load_testdata_template("qwen3.jinja"); }

const char* kOpenAiToolChat = R"({"messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}],
  "tools": [{"type": "function", "function": {"name": "get_weather",
      "parameters": {"type": "object"}}}]})";

const char* kAnthropicToolChat = R"({"max_tokens": 8, "messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]}],
  "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]})";

// Both APIs give the Qwen3 template the same tools, call and result.
TEST(RenderChat, ToolRequestsOfBothApisRenderThroughTheModelTemplate) {
  ChatTemplate t = qwen3();
  Result<CompletionRequest> openai = parse_chat_completion_request(RequestJson::parse(kOpenAiToolChat));
  Result<CompletionRequest> anthropic = parse_anthropic_messages_request(RequestJson::parse(kAnthropicToolChat));
  ASSERT_TRUE(openai.ok() && anthropic.ok());
  Result<std::string> a = render_chat(t, openai->prompt, "", "");
  Result<std::string> b = render_chat(t, anthropic->prompt, "", "");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(*a, *b);
  EXPECT_NE(a->find("<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": "
                    "{\"type\": \"object\"}}}\n</tools>"),
            std::string::npos) << *a;
  EXPECT_NE(a->find("<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
                    "{\"city\": \"Paris\"}}\n</tool_call><|im_end|>"),
            std::string::npos) << *a;
  EXPECT_NE(a->find("<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n"
                    "<|im_start|>assistant\n"),
            std::string::npos) << *a;
}

TEST(RenderChat, ChatMLFallbackWritesToolsAsHermesText) {
  Result<CompletionRequest> r = parse_chat_completion_request(RequestJson::parse(kOpenAiToolChat));
  ASSERT_TRUE(r.ok());
  Result<std::string> text = render_chat(ChatTemplate::ChatML(), r->prompt, "", "");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(text->rfind("<|im_start|>system\n# Tools\n", 0), 0u) << *text;
  EXPECT_NE(text->find("<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
                       "{\"city\":\"Paris\"}}\n</tool_call><|im_end|>"),
            std::string::npos) << *text;
  EXPECT_NE(text->find("<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>"),
            std::string::npos) << *text;
}

// chat_template_kwargs and Anthropic's thinking reach the template as enable_thinking.
TEST(RenderChat, ThinkingSwitchesReachTheTemplate) {
  ChatTemplate t = qwen3();
  Result<CompletionRequest> off = parse_chat_completion_request(RequestJson::parse(
      R"({"messages": [{"role": "user", "content": "Hi"}], "chat_template_kwargs": {"enable_thinking": false}})"));
  Result<CompletionRequest> on = parse_chat_completion_request(
      RequestJson::parse(R"({"messages": [{"role": "user", "content": "Hi"}]})"));
  Result<CompletionRequest> anthropic_off = parse_anthropic_messages_request(RequestJson::parse(
      R"({"max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}], "thinking": {"type": "disabled"}})"));
  ASSERT_TRUE(off.ok() && on.ok() && anthropic_off.ok());
  Result<std::string> a = render_chat(t, off->prompt, "", "");
  Result<std::string> b = render_chat(t, on->prompt, "", "");
  Result<std::string> c = render_chat(t, anthropic_off->prompt, "", "");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_TRUE(a->ends_with("<|im_start|>assistant\n<think>\n\n</think>\n\n")) << *a;
  EXPECT_TRUE(b->ends_with("<|im_start|>assistant\n")) << *b;
  EXPECT_EQ(*c, *a);
}

// A byte-level BPE vocabulary: enough for an EngineModelText whose template is under test.
std::unique_ptr<Tokenizer> byte_level_tokenizer() {
  TokenizerSpec spec;
  spec.model = "gpt2";
  spec.pre = "glm4";
  ByteUnicodeMap bytes;
  for (int b = 0; b < 256; ++b) spec.tokens.push_back(bytes.encode_byte(static_cast<uint8_t>(b)));
  spec.tokens.push_back("ab");
  spec.token_types.assign(spec.tokens.size(), static_cast<int32_t>(TokenType::kNormal));
  spec.merges = {"a b"};
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromSpec(std::move(spec));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

// GLM-4.5's template teaches <arg_key>/<arg_value> calls and opens no <think> in its prompt: its
// replies are read with that syntax and split as a thinking model's.
TEST(EngineModelText, ATemplateWritingArgKeysMakesGlmToolCallsAndThinking) {
  std::unique_ptr<Tokenizer> tokenizer = byte_level_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  const EngineModelText glm_text(*tokenizer, load_testdata_template("glm-4.6.jinja"));
  EXPECT_EQ(glm_text.tool_call_syntax(), ToolCallSyntax::kArgTags);
  EXPECT_TRUE(glm_text.is_thinking_model());
  EXPECT_FALSE(glm_text.writes_harmony());
  EXPECT_EQ(EngineModelText(*tokenizer, qwen3()).tool_call_syntax(), ToolCallSyntax::kJson);
  EXPECT_EQ(EngineModelText(*tokenizer, ChatTemplate::ChatML()).tool_call_syntax(), ToolCallSyntax::kJson);
}

// Mistral's newer templates write [TOOL_CALLS]NAME[ARGS]: those replies are read as kMistral.
// Ministral 3 Reasoning's shows [THINK]: a thinking model with Mistral's tags. Nemo's writes the
// older JSON array, which kJson reads.
TEST(EngineModelText, MistralTemplatesMakeTheirToolCallSyntaxAndThinkTags) {
  std::unique_ptr<Tokenizer> tokenizer = byte_level_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  for (const char* name : {"mistral-small-3.2.jinja", "devstral-small-2507.jinja"}) {
    const EngineModelText text(*tokenizer, load_testdata_template(name));
    EXPECT_EQ(text.tool_call_syntax(), ToolCallSyntax::kMistral) << name;
    EXPECT_FALSE(text.is_thinking_model()) << name;
  }
  const EngineModelText ministral(*tokenizer, load_testdata_template("ministral-3-reasoning.jinja"));
  EXPECT_EQ(ministral.tool_call_syntax(), ToolCallSyntax::kMistral);
  EXPECT_TRUE(ministral.is_thinking_model());
  EXPECT_EQ(ministral.reasoning_tags().open, "[THINK]");
  EXPECT_EQ(ministral.reasoning_tags().close, "[/THINK]");
  EXPECT_EQ(EngineModelText(*tokenizer, qwen3()).reasoning_tags().open, "<think>");
  EXPECT_EQ(EngineModelText(*tokenizer, load_testdata_template("mistral-nemo.jinja")).tool_call_syntax(),
            ToolCallSyntax::kJson);
}

// Cohere's templates write <|START_ACTION|> calls and <|START_THINKING|> blocks: thinking models
// with Cohere's calls, North's answer in <|START_TEXT|>, Command R7B's in <|START_RESPONSE|>.
TEST(EngineModelText, CohereTemplatesMakeTheirToolCallSyntaxThinkingAndAnswerMarkers) {
  std::unique_ptr<Tokenizer> tokenizer = byte_level_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  const EngineModelText north(*tokenizer, load_testdata_template("north-mini-code.jinja"));
  EXPECT_EQ(north.tool_call_syntax(), ToolCallSyntax::kCohere);
  EXPECT_TRUE(north.is_thinking_model());
  EXPECT_EQ(north.reasoning_tags().open, "<|START_THINKING|>");
  EXPECT_EQ(north.reasoning_tags().close, "<|END_THINKING|>");
  EXPECT_EQ(north.reasoning_tags().answer_open, "<|START_TEXT|>");
  EXPECT_EQ(north.reasoning_tags().call_open, "<|START_ACTION|>");
  const EngineModelText r7b(*tokenizer, load_testdata_template("command-r7b.jinja"));
  EXPECT_EQ(r7b.tool_call_syntax(), ToolCallSyntax::kCohere);
  EXPECT_TRUE(r7b.is_thinking_model());
  EXPECT_EQ(r7b.reasoning_tags().answer_open, "<|START_RESPONSE|>");
  EXPECT_EQ(r7b.reasoning_tags().answer_close, "<|END_RESPONSE|>");
  EXPECT_EQ(EngineModelText(*tokenizer, qwen3()).reasoning_tags().answer_open, "");
}

// Seed-OSS's template teaches <function=NAME> calls in <seed:tool_call> blocks and thinks in
// <seed:think>; Step 3.5's teaches the same functions in <tool_call> and thinks in <think>.
TEST(EngineModelText, SeedOssAndStep35TemplatesMakeXmlParamCallsAndTheirThinking) {
  std::unique_ptr<Tokenizer> tokenizer = byte_level_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  const EngineModelText seed(*tokenizer, load_testdata_template("seed-oss.jinja"));
  EXPECT_EQ(seed.tool_call_syntax(), ToolCallSyntax::kXmlParams);
  EXPECT_TRUE(seed.is_thinking_model());
  EXPECT_EQ(seed.reasoning_tags().open, "<seed:think>");
  EXPECT_EQ(seed.reasoning_tags().close, "</seed:think>");
  const EngineModelText step(*tokenizer, load_testdata_template("step-3.5-flash.jinja"));
  EXPECT_EQ(step.tool_call_syntax(), ToolCallSyntax::kXmlParams);
  EXPECT_TRUE(step.is_thinking_model());
  EXPECT_EQ(step.reasoning_tags().open, "<think>");
}

// DeepSeek's templates write <｜tool▁calls▁begin｜> sections: R1's with ```json fences, V3.1's
// without. Both are thinking models (they know <think>).
TEST(EngineModelText, DeepseekTemplatesMakeTheirToolCallSyntaxAndThinking) {
  std::unique_ptr<Tokenizer> tokenizer = byte_level_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  const EngineModelText r1(*tokenizer, load_testdata_template("deepseek-r1.jinja"));
  EXPECT_EQ(r1.tool_call_syntax(), ToolCallSyntax::kDeepSeekR1);
  EXPECT_TRUE(r1.is_thinking_model());
  const EngineModelText v31(*tokenizer, load_testdata_template("deepseek-v3.1.jinja"));
  EXPECT_EQ(v31.tool_call_syntax(), ToolCallSyntax::kDeepSeekV31);
  EXPECT_TRUE(v31.is_thinking_model());
  EXPECT_TRUE(template_traits(load_testdata_template("deepseek-v3.1.jinja")).thinking_from_enable_thinking);
  EXPECT_FALSE(template_traits(qwen3()).thinking_from_enable_thinking);
}

// Qwen3-Coder's and Qwen3.5's templates teach <function=NAME> / <parameter=KEY> calls; both show
// the tools they are offered and walk call arguments as an object. Qwen3.5's knows <think>.
TEST(EngineModelText, QwenTemplatesWritingFunctionTagsMakeXmlParamCalls) {
  std::unique_ptr<Tokenizer> tokenizer = byte_level_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  for (const char* name : {"qwen3-coder.jinja", "qwen3.5.jinja"}) {
    const ChatTemplate t = load_testdata_template(name);
    EXPECT_EQ(EngineModelText(*tokenizer, t).tool_call_syntax(), ToolCallSyntax::kXmlParams) << name;
    const TemplateTraits traits = template_traits(t);
    EXPECT_FALSE(traits.call_turns.arguments_as_text) << name;
    EXPECT_FALSE(traits.tools_in_system_turn) << name;
  }
  EXPECT_TRUE(EngineModelText(*tokenizer, load_testdata_template("qwen3.5.jinja")).is_thinking_model());
  EXPECT_FALSE(EngineModelText(*tokenizer, load_testdata_template("qwen3-coder.jinja")).is_thinking_model());
}

// Kimi K2's templates write <|tool_calls_section_begin|> sections; K2-Thinking's knows <think>,
// the Instruct ones do not (with a vocabulary that has no <think> token).
TEST(EngineModelText, KimiTemplatesMakeKimiToolCallsAndThinkingForThinkingOnly) {
  std::unique_ptr<Tokenizer> tokenizer = byte_level_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  const EngineModelText thinking(*tokenizer, load_testdata_template("kimi-k2-thinking.jinja"));
  EXPECT_EQ(thinking.tool_call_syntax(), ToolCallSyntax::kKimiK2);
  EXPECT_TRUE(thinking.is_thinking_model());
  for (const char* file : {"kimi-k2.jinja", "kimi-k2-instruct.jinja"}) {
    const EngineModelText instruct(*tokenizer, load_testdata_template(file));
    EXPECT_EQ(instruct.tool_call_syntax(), ToolCallSyntax::kKimiK2) << file;
    EXPECT_FALSE(instruct.is_thinking_model()) << file;
  }
}

}  // namespace
}  // namespace strata::server
