#include "server/prompt_builder.h"

#include <gtest/gtest.h>

#include "server/testing/fake_model_text.h"

namespace strata::server {
namespace {

using testing::FakeModelText;

CompletionRequest text_request(std::string prompt, int max_tokens) {
  CompletionRequest r;
  r.prompt.kind = PromptInput::Kind::kText;
  r.prompt.text = std::move(prompt);
  r.max_tokens = max_tokens;
  return r;
}

TEST(BuildGenerateRequest, TokenizesTextWithBos) {
  FakeModelText text;
  Result<GenerateRequest> g = build_generate_request(text_request("ab", 5), text, 100, 42);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->prompt_tokens, (std::vector<int32_t>{1, 3 + 'a', 3 + 'b'}));
  EXPECT_EQ(g->max_tokens, 5);
  EXPECT_EQ(g->sampling.seed, 42u);  // no seed sent: the fresh one
}

TEST(BuildGenerateRequest, RendersChatsThroughTheTemplate) {
  FakeModelText text;
  CompletionRequest r;
  r.prompt.kind = PromptInput::Kind::kChat;
  r.prompt.messages = {{"user", "x", nullptr}};
  Result<GenerateRequest> g = build_generate_request(r, text, 100, 0);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(text.detokenize(g->prompt_tokens), "user: x\nassistant: ");
}

TEST(BuildGenerateRequest, KeepsAClientSeed) {
  FakeModelText text;
  CompletionRequest r = text_request("a", 1);
  r.generate.sampling.seed = 7;
  r.seed_given = true;
  EXPECT_EQ(build_generate_request(r, text, 100, 42)->sampling.seed, 7u);
}

TEST(BuildGenerateRequest, DefaultMaxTokensFillsTheContext) {
  FakeModelText text;
  Result<GenerateRequest> g = build_generate_request(text_request("abc", -1), text, 10, 0);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->max_tokens, 6);  // 10 - (BOS + 3 bytes)
}

TEST(BuildGenerateRequest, ContextOverflowIsOutOfRangeWithTheNumbers) {
  FakeModelText text;
  Result<GenerateRequest> g = build_generate_request(text_request("abc", 7), text, 10, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), Code::kOutOfRange);
  EXPECT_EQ(g.status().message(),
            "the prompt (4 tokens) plus max_tokens (7) exceeds the context (10 tokens)");
  Result<GenerateRequest> full = build_generate_request(text_request("abcdefghij", -1), text, 10, 0);
  EXPECT_EQ(full.status().code(), Code::kOutOfRange);
}

TEST(BuildGenerateRequest, RejectsTokenIdsOutsideTheVocab) {
  FakeModelText text;
  CompletionRequest r;
  r.prompt.kind = PromptInput::Kind::kTokens;
  r.prompt.tokens = {5, 9999};
  r.max_tokens = 1;
  Result<GenerateRequest> g = build_generate_request(r, text, 100, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "prompt[1] = 9999 is not a token id (vocab has 259)");
  CompletionRequest bias = text_request("a", 1);
  bias.generate.sampling.logit_bias = {{300, 1.0f}};
  EXPECT_EQ(build_generate_request(bias, text, 100, 0).status().code(), Code::kInvalidArgument);
}

TEST(BuildGenerateRequest, EmptyPromptIsRejected) {
  FakeModelText text;
  CompletionRequest r;
  r.prompt.kind = PromptInput::Kind::kTokens;
  EXPECT_EQ(build_generate_request(r, text, 100, 0).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace strata::server
