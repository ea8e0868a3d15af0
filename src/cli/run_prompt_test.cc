// `strata run --chat` and the server's chat endpoints turn the same one-message conversation
// into the same prompt tokens (chat/chat_prompt.h's rule), whatever the vocabulary and template:
// a model without a template (the ChatML fallback), a template that renders BOS itself, and a
// vocabulary that adds no BOS; and --chat splits the reply's reasoning as the server does.
#include "cli/run_prompt.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "gguf/gguf_file.h"
#include "server/engine_model.h"
#include "tokenizer/tokenizer.h"

namespace strata::cli {
namespace {

std::unique_ptr<Tokenizer> load_tokenizer(const std::string& shared_file) {
  Result<GgufFile> gguf = GgufFile::Open(std::string(STRATA_SHARED_DIR) + "/" + shared_file);
  EXPECT_TRUE(gguf.ok()) << gguf.status().ToString();
  if (!gguf.ok()) return nullptr;
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromGguf(*gguf);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

ChatTemplate test_template(const std::string& name) {
  std::ifstream in(std::string(STRATA_SOURCE_DIR) + "/src/chat/testdata/" + name);
  std::stringstream source;
  source << in.rdbuf();
  Result<ChatTemplate> parsed = ChatTemplate::Parse(source.str());
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? std::move(parsed).value() : ChatTemplate::ChatML();
}

// The server's path: a parsed chat request's prompt through the loader's ModelText.
std::vector<int32_t> server_tokens(const Tokenizer& tokenizer, const ChatTemplate& chat_template,
                                   const std::string& text) {
  server::PromptInput prompt;
  prompt.kind = server::PromptInput::Kind::kChat;
  prompt.messages.push_back({"user", text, nullptr});
  Result<std::vector<int32_t>> tokens = server::EngineModelText(tokenizer, chat_template).chat_prompt(prompt);
  EXPECT_TRUE(tokens.ok()) << tokens.status().ToString();
  return tokens.ok() ? *tokens : std::vector<int32_t>{};
}

std::vector<int32_t> run_tokens(const Tokenizer& tokenizer, const ChatTemplate& chat_template,
                                const std::string& text) {
  Result<std::vector<int32_t>> tokens = run_chat_prompt(tokenizer, chat_template, text);
  EXPECT_TRUE(tokens.ok()) << tokens.status().ToString();
  return tokens.ok() ? *tokens : std::vector<int32_t>{};
}

int leading_bos(const Tokenizer& tokenizer, const std::vector<int32_t>& tokens) {
  int n = 0;
  while (n < static_cast<int>(tokens.size()) && tokens[static_cast<size_t>(n)] == tokenizer.bos()) ++n;
  return n;
}

constexpr const char* kText = "Once upon a time, a cat";

TEST(ChatPrompt, RunAndServerAgreeOnAModelWithoutTemplate) {
  std::unique_ptr<Tokenizer> tok = load_tokenizer("models/stories260K.gguf");
  ASSERT_TRUE(tok);
  ASSERT_TRUE(tok->add_bos());
  const ChatTemplate chatml = ChatTemplate::ChatML();
  const std::vector<int32_t> run = run_tokens(*tok, chatml, kText);
  EXPECT_EQ(run, server_tokens(*tok, chatml, kText));
  EXPECT_EQ(leading_bos(*tok, run), 1);
}

TEST(ChatPrompt, RunAndServerAgreeWhenTheTemplateRendersBos) {
  std::unique_ptr<Tokenizer> tok = load_tokenizer("vocab/ggml-vocab-llama-spm.gguf");
  ASSERT_TRUE(tok);
  ASSERT_TRUE(tok->add_bos());
  const ChatTemplate llama2 = test_template("llama2.jinja");
  const std::vector<int32_t> run = run_tokens(*tok, llama2, kText);
  EXPECT_EQ(run, server_tokens(*tok, llama2, kText));
  EXPECT_EQ(leading_bos(*tok, run), 1);
}

TEST(ChatPrompt, RunAndServerAgreeWhenTheVocabularyAddsNoBos) {
  std::unique_ptr<Tokenizer> tok = load_tokenizer("vocab/ggml-vocab-gpt-2.gguf");
  ASSERT_TRUE(tok);
  ASSERT_FALSE(tok->add_bos());
  const ChatTemplate qwen3 = test_template("qwen3.jinja");
  const std::vector<int32_t> run = run_tokens(*tok, qwen3, kText);
  EXPECT_EQ(run, server_tokens(*tok, qwen3, kText));
  EXPECT_EQ(run, tok->encode("<|im_start|>user\n" + std::string(kText) + "<|im_end|>\n<|im_start|>assistant\n",
                             /*add_special=*/false, /*parse_special=*/true));
}

// DeepSeek-V3.1's template thinks only when `thinking` is set, which the server sets (as llama.cpp
// does) when the client does not switch thinking off: --chat thinks too, and starts in reasoning.
TEST(ChatPrompt, RunAndServerAgreeOnDeepseekV31AndBothThink) {
  std::unique_ptr<Tokenizer> tok = load_tokenizer("vocab/ggml-vocab-gpt-2.gguf");
  ASSERT_TRUE(tok);
  const ChatTemplate v31 = test_template("deepseek-v3.1.jinja");
  const std::vector<int32_t> run = run_tokens(*tok, v31, kText);
  EXPECT_EQ(run, server_tokens(*tok, v31, kText));
  EXPECT_TRUE(tok->decode(run).ends_with("<｜Assistant｜><think>")) << tok->decode(run);
  EXPECT_TRUE(run_reasoning_mode(*tok, v31, run).starts_open);
}

// --chat splits a reply as the server would: harmony channels for gpt-oss's template, <think>
// blocks for Qwen3's, nothing for a template that knows neither.
TEST(RunReasoningMode, FollowsTheTemplateAsTheServerDoes) {
  std::unique_ptr<Tokenizer> gpt2 = load_tokenizer("vocab/ggml-vocab-gpt-2.gguf");
  std::unique_ptr<Tokenizer> spm = load_tokenizer("vocab/ggml-vocab-llama-spm.gguf");
  ASSERT_TRUE(gpt2 && spm);
  const ChatTemplate gpt_oss = test_template("gpt-oss.jinja");
  const server::ReasoningMode harmony = run_reasoning_mode(*gpt2, gpt_oss, run_tokens(*gpt2, gpt_oss, kText));
  EXPECT_TRUE(harmony.split && harmony.harmony && !harmony.starts_open);
  const ChatTemplate qwen3 = test_template("qwen3.jinja");
  const server::ReasoningMode think = run_reasoning_mode(*gpt2, qwen3, run_tokens(*gpt2, qwen3, kText));
  EXPECT_TRUE(think.split && !think.harmony && !think.starts_open);
  const ChatTemplate llama2 = test_template("llama2.jinja");
  EXPECT_FALSE(run_reasoning_mode(*spm, llama2, run_tokens(*spm, llama2, kText)).split);
  // A prompt whose text ends inside "<think>" starts the reply in reasoning.
  const std::vector<int32_t> opened = gpt2->encode("<|im_start|>assistant\n<think>\n", false, true);
  EXPECT_TRUE(run_reasoning_mode(*gpt2, qwen3, opened).starts_open);
}

}  // namespace
}  // namespace strata::cli
