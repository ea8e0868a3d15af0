// MiniMax-M2's chat side at load and render time, through the stand-in template
// src/chat/testdata/minimax-m2.jinja (written for these tests; not MiniMax's file): the template's
// `<minimax:tool_call>` makes the server read MiniMax-M2's calls, its tool-call histories render
// from parsed OpenAI and Anthropic requests, and its generation prompt ("]~b]ai\n<think>\n")
// starts the reply inside its reasoning. The expected prompts are Python jinja2's renderings
// (3.1.6, with transformers' tojson) of the messages as Strata hands them over: tools with
// sorted keys, a call's arguments as an object.
#include <gtest/gtest.h>

#include "chat/chat_template.h"
#include "chat/chat_template_test_util.h"
#include "server/anthropic_request.h"
#include "server/engine_model.h"
#include "server/openai_request.h"
#include "server/reasoning_splitter.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/tokenizer.h"

namespace strata::server {
namespace {

using nlohmann::json;

ChatTemplate minimax_template() { return load_testdata_template("minimax-m2.jinja"); }

const char* kMiniMaxOpenAiToolChat = R"({"messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\", \"days\": 3}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}],
  "tools": [{"type": "function", "function": {"name": "get_weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]})";

const char* kMiniMaxAnthropicToolChat = R"({"max_tokens": 8, "messages": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris", "days": 3}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]}],
  "tools": [{"name": "get_weather", "input_schema": {"type": "object",
      "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}]})";

// The stand-in's rendering of both histories; reasoning: what the call turn's think block shows.
std::string minimax_tool_prompt(const std::string& reasoning) {
  return "]~!b[]~b]system\nYou are a helpful assistant.\n\n# Tools\nYou may call one or more tools to assist with "
         "the user query.\nHere are the tools available in JSONSchema format:\n\n<tools>\n<tool>{\"name\": "
         "\"get_weather\", \"parameters\": {\"properties\": {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": "
         "\"integer\"}}, \"type\": \"object\"}}</tool>\n</tools>\n\nWhen making tool calls, use XML format to invoke "
         "tools and pass parameters:\n\n<minimax:tool_call>\n<invoke name=\"tool-name-1\">\n<parameter "
         "name=\"param-key-1\">param-value-1</parameter>\n<parameter name=\"param-key-2\">param-value-2</parameter>\n"
         "...\n</invoke>\n</minimax:tool_call>[e~[\n]~b]user\nWeather in Paris?[e~[\n]~b]ai\n" +
         (reasoning.empty() ? "" : "<think>\n" + reasoning + "\n</think>\n\n") +
         "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n"
         "<parameter name=\"days\">3</parameter>\n</invoke>\n</minimax:tool_call>[e~[\n]~b]tool\n"
         "<response>sunny</response>[e~[\n]~b]ai\n<think>\n";
}

std::string minimax_render(const Result<CompletionRequest>& request) {
  EXPECT_TRUE(request.ok()) << request.status().ToString();
  if (!request.ok()) return "";
  Result<std::string> text = render_chat(minimax_template(), request->prompt, "]~!b[", "[e~[");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

// A byte-level BPE vocabulary with MiniMax-M2's turn markers and think tags as control tokens
// (as its own vocabulary has them): enough for an EngineModelText whose template is under test.
std::unique_ptr<Tokenizer> minimax_test_tokenizer() {
  TokenizerSpec spec;
  spec.model = "gpt2";
  spec.pre = "minimax-m2";
  ByteUnicodeMap bytes;
  for (int b = 0; b < 256; ++b) spec.tokens.push_back(bytes.encode_byte(static_cast<uint8_t>(b)));
  spec.tokens.push_back("ab");
  spec.token_types.assign(spec.tokens.size(), static_cast<int32_t>(TokenType::kNormal));
  for (const char* special : {"]~!b[", "]~b]", "[e~[", "<think>", "</think>"}) {
    spec.tokens.push_back(special);
    spec.token_types.push_back(static_cast<int32_t>(TokenType::kControl));
  }
  spec.merges = {"a b"};
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromSpec(std::move(spec));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

// The template writes <minimax:tool_call>: MiniMax-M2's calls are read; it knows <think>, shows
// the tools it is offered and walks call arguments as an object.
TEST(MiniMaxRender, ATemplateWritingMiniMaxToolCallsMakesItsSyntax) {
  std::unique_ptr<Tokenizer> tokenizer = minimax_test_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  const EngineModelText text(*tokenizer, minimax_template());
  EXPECT_EQ(text.tool_call_syntax(), ToolCallSyntax::kMiniMaxM2);
  EXPECT_TRUE(text.is_thinking_model());
  EXPECT_FALSE(text.writes_harmony());
  const TemplateTraits traits = template_traits(minimax_template());
  EXPECT_FALSE(traits.call_turns.arguments_as_text);
  EXPECT_FALSE(traits.tools_in_system_turn);
  EXPECT_FALSE(traits.thinking_from_enable_thinking);
  // Nothing else in it decides: any template that writes the tag is read so.
  Result<ChatTemplate> bare = ChatTemplate::Parse("{{ '<minimax:tool_call>' }}{{ messages[0].content }}");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(template_traits(*bare).tool_syntax, ToolCallSyntax::kMiniMaxM2);
  Result<ChatTemplate> other = ChatTemplate::Parse("{{ '<invoke name=' }}{{ messages[0].content }}");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(template_traits(*other).tool_syntax, ToolCallSyntax::kJson);
}

// Its generation prompt opens <think>, so a chat reply starts in reasoning: text up to </think>
// is reasoning_content / thinking.
TEST(MiniMaxRender, TheGenerationPromptStartsTheReplyInsideItsReasoning) {
  std::unique_ptr<Tokenizer> tokenizer = minimax_test_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  const EngineModelText text(*tokenizer, minimax_template());
  Result<CompletionRequest> request = parse_chat_completion_request(json::parse(kMiniMaxOpenAiToolChat));
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  Result<std::vector<int32_t>> prompt = text.chat_prompt(request->prompt);
  ASSERT_TRUE(prompt.ok()) << prompt.status().ToString();
  EXPECT_TRUE(text.detokenize(*prompt).ends_with("[e~[\n]~b]ai\n<think>\n"));
  const ReasoningMode mode = chat_reasoning_mode(text, *prompt);
  EXPECT_TRUE(mode.split);
  EXPECT_TRUE(mode.starts_open);
  EXPECT_FALSE(mode.starts_closed);
  const SplitOutput split = split_reasoning("The user asks.\n</think>\n\nSunny.", mode);
  EXPECT_EQ(split.reasoning, "The user asks.\n");
  EXPECT_EQ(split.content, "Sunny.");
}

// The template opens <think> whatever enable_thinking says. With thinking switched off (a forced
// call, Anthropic's thinking disabled) the server closes the block, as llama.cpp does, so the
// reply (a forced call's JSON <tool_call> block) is answer, not reasoning.
TEST(MiniMaxRender, ThinkingSwitchedOffClosesTheBlockTheGenerationPromptOpens) {
  std::unique_ptr<Tokenizer> tokenizer = minimax_test_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  const EngineModelText text(*tokenizer, minimax_template());
  json forced = json::parse(kMiniMaxOpenAiToolChat);
  forced["tool_choice"] = {{"type", "function"}, {"function", {{"name", "get_weather"}}}};
  const json disabled = json::parse(R"({"max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}],
      "thinking": {"type": "disabled"}})");
  const Result<CompletionRequest> requests[] = {parse_chat_completion_request(forced),
                                                parse_anthropic_messages_request(disabled)};
  for (const Result<CompletionRequest>& request : requests) {
    ASSERT_TRUE(request.ok()) << request.status().ToString();
    Result<std::vector<int32_t>> prompt = text.chat_prompt(request->prompt);
    ASSERT_TRUE(prompt.ok()) << prompt.status().ToString();
    EXPECT_TRUE(text.detokenize(*prompt).ends_with("]~b]ai\n<think>\n</think>\n\n")) << text.detokenize(*prompt);
    const ReasoningMode mode = chat_reasoning_mode(text, *prompt);
    EXPECT_FALSE(mode.starts_open);
    EXPECT_TRUE(mode.starts_closed);
    const SplitOutput split = split_reasoning("<tool_call>\n{}\n</tool_call>", mode);
    EXPECT_EQ(split.content, "<tool_call>\n{}\n</tool_call>");
    EXPECT_TRUE(minimax_render(request).ends_with("]~b]ai\n<think>\n</think>\n\n"));
  }
  json on = forced;
  on["chat_template_kwargs"] = {{"enable_thinking", true}};
  EXPECT_TRUE(minimax_render(parse_chat_completion_request(on)).ends_with("]~b]ai\n<think>\n"));
}

TEST(MiniMaxRender, ToolHistoriesOfBothApisRenderAsJinja2Does) {
  EXPECT_EQ(minimax_render(parse_chat_completion_request(json::parse(kMiniMaxOpenAiToolChat))),
            minimax_tool_prompt(""));
  EXPECT_EQ(minimax_render(parse_anthropic_messages_request(json::parse(kMiniMaxAnthropicToolChat))),
            minimax_tool_prompt(""));
}

// The reasoning a client sends back with a call (OpenAI reasoning_content, Anthropic thinking)
// reaches the think block of that turn.
TEST(MiniMaxRender, TheReasoningSentBackWithACallIsShown) {
  json openai = json::parse(kMiniMaxOpenAiToolChat);
  openai["messages"][1]["reasoning_content"] = "I should check.";
  EXPECT_EQ(minimax_render(parse_chat_completion_request(openai)), minimax_tool_prompt("I should check."));
  json anthropic = json::parse(kMiniMaxAnthropicToolChat);
  json& blocks = anthropic["messages"][1]["content"];
  blocks.insert(blocks.begin(), json{{"type", "thinking"}, {"thinking", "I should check."}, {"signature", ""}});
  EXPECT_EQ(minimax_render(parse_anthropic_messages_request(anthropic)), minimax_tool_prompt("I should check."));
}

}  // namespace
}  // namespace strata::server
