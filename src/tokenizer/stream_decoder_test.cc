#include "tokenizer/stream_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenizer/test_vocab.h"
#include "tokenizer/utf8.h"

namespace strata {
namespace {

// In the Llama SentencePiece vocab, byte token <0xNN> has id 3 + NN.
int32_t byte_token(uint8_t byte) { return 3 + byte; }

TEST(StreamDecoderTest, HoldsBackACharacterSplitAcrossByteTokens) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer("ggml-vocab-llama-spm.gguf");
  ASSERT_NE(tokenizer, nullptr);
  ASSERT_EQ(tokenizer->token_text(byte_token(0xF0)), "<0xF0>");
  StreamDecoder stream(*tokenizer);
  // 🚀 is U+1F680: F0 9F 9A 80, one byte token each.
  EXPECT_EQ(stream.push(byte_token(0xF0)), "");
  EXPECT_EQ(stream.push(byte_token(0x9F)), "");
  EXPECT_EQ(stream.push(byte_token(0x9A)), "");
  EXPECT_EQ(stream.n_pending_bytes(), 3u);
  EXPECT_EQ(stream.push(byte_token(0x80)), "\xF0\x9F\x9A\x80");
  EXPECT_EQ(stream.n_pending_bytes(), 0u);
  EXPECT_EQ(stream.flush(), "");
}

TEST(StreamDecoderTest, EmitsTextBeforeAnIncompleteTail) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer("ggml-vocab-llama-spm.gguf");
  ASSERT_NE(tokenizer, nullptr);
  StreamDecoder stream(*tokenizer);
  const int32_t hello = tokenizer->find_token("\xE2\x96\x81Hello");  // "▁Hello"
  ASSERT_GE(hello, 0);
  EXPECT_EQ(stream.push(hello), " Hello");
  EXPECT_EQ(stream.push(byte_token(0xE2)), "");
  EXPECT_EQ(stream.push(byte_token(0x82)), "");
  EXPECT_EQ(stream.push(byte_token(0xAC)), "\xE2\x82\xAC");  // €
}

TEST(StreamDecoderTest, ReplacesBytesThatCannotFormACharacter) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer("ggml-vocab-llama-spm.gguf");
  ASSERT_NE(tokenizer, nullptr);
  StreamDecoder stream(*tokenizer);
  EXPECT_EQ(stream.push(byte_token(0xFF)), "\xEF\xBF\xBD");
  EXPECT_EQ(stream.push(byte_token(0xE2)), "");
  // A letter where a continuation byte should be: the lead becomes U+FFFD, the letter survives.
  const int32_t a = tokenizer->find_token("a");
  ASSERT_GE(a, 0);
  EXPECT_EQ(stream.push(a), "\xEF\xBF\xBD" "a");
}

TEST(StreamDecoderTest, FlushReplacesAnUnfinishedCharacterAndResets) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer("ggml-vocab-llama-spm.gguf");
  ASSERT_NE(tokenizer, nullptr);
  StreamDecoder stream(*tokenizer);
  EXPECT_EQ(stream.push(byte_token(0xF0)), "");
  EXPECT_EQ(stream.push(byte_token(0x9F)), "");
  EXPECT_EQ(stream.flush(), "\xEF\xBF\xBD");
  EXPECT_EQ(stream.n_pending_bytes(), 0u);
  EXPECT_EQ(stream.push(byte_token('x')), "x");
}

TEST(StreamDecoderTest, ByteLevelTokensThatSplitCharactersStreamWhole) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer("ggml-vocab-gpt-2.gguf");
  ASSERT_NE(tokenizer, nullptr);
  const std::string text = "日本語のテキスト 🚀🎉 naïve";
  const std::vector<int32_t> ids = tokenizer->encode(text, false, false);
  StreamDecoder stream(*tokenizer);
  std::string streamed;
  int n_empty = 0;
  for (int32_t id : ids) {
    const std::string piece = stream.push(id);
    EXPECT_TRUE(utf8_is_valid(piece)) << escape_bytes(piece);
    n_empty += piece.empty() ? 1 : 0;
    streamed += piece;
  }
  streamed += stream.flush();
  EXPECT_EQ(streamed, text);
  EXPECT_GT(n_empty, 0) << "expected some tokens to end inside a character";
}

TEST(StreamDecoderTest, KeepsTheLeadingSpaceOfAContinuationByDefault) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer("ggml-vocab-llama-spm.gguf");
  ASSERT_NE(tokenizer, nullptr);
  const std::vector<int32_t> ids = tokenizer->encode("Once upon", false, false);
  StreamDecoder continuation(*tokenizer);
  std::string text;
  for (int32_t id : ids) text += continuation.push(id);
  EXPECT_EQ(text, " Once upon");
  StreamDecoder::Options options;
  options.strip_space_prefix = true;
  StreamDecoder from_start(*tokenizer, options);
  text.clear();
  for (int32_t id : ids) text += from_start.push(id);
  EXPECT_EQ(text, "Once upon");
}

}  // namespace
}  // namespace strata
