// Gemma 4's tokenizer (tokenizer.ggml.model "gemma4"): spaces as "▁" without a prefix, text cut
// into runs of newlines and of other characters, ranked merges over UTF-8 characters, <0xNN>
// byte fallback, BOS always first, and decode giving the text back byte for byte.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace strata {
namespace character_bpe_test {

using Ids = std::vector<int32_t>;

constexpr int32_t kNormalType = static_cast<int32_t>(TokenType::kNormal);
constexpr int32_t kControlType = static_cast<int32_t>(TokenType::kControl);
constexpr int32_t kByteType = static_cast<int32_t>(TokenType::kByte);

// <pad> <eos> <bos> <unk>, the 256 byte tokens (4..259), then characters and merged pieces.
TokenizerSpec character_bpe_spec() {
  TokenizerSpec spec;
  spec.model = "gemma4";
  spec.pre = "gemma4";
  spec.tokens = {"<pad>", "<eos>", "<bos>", "<unk>"};
  spec.token_types = {kControlType, kControlType, kControlType, static_cast<int32_t>(TokenType::kUnknown)};
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    spec.tokens.push_back(std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">");
    spec.token_types.push_back(kByteType);
  }
  for (const char* t : {"h", "e", "l", "o", "w", "r", "d", "\xE2\x96\x81", "\n", "\n\n", "he", "ll", "hell", "hello",
                        "\xE2\x96\x81w", "or", "\xE2\x96\x81wor", "ld", "\xE2\x96\x81world", "lo", "\xC3\xA9"}) {
    spec.tokens.push_back(t);
    spec.token_types.push_back(kNormalType);
  }
  // "l o" ranks last: "hello" merges through "he ll" and "hell o", where taking "l o" first (as
  // an order that ignored ranks might) would leave "he l lo".
  // Gemma 4's turn closer (control) and the tool-response opener its files make user-defined.
  for (const char* t : {"<turn|>", "<|tool_response>", "<|tool_call>"}) {
    spec.tokens.push_back(t);
    spec.token_types.push_back(std::string(t) == "<turn|>" ? kControlType
                                                           : static_cast<int32_t>(TokenType::kUserDefined));
  }
  spec.merges = {"h e", "l l", "he ll", "hell o", "\xE2\x96\x81 w", "o r", "\xE2\x96\x81w or", "l d",
                 "\xE2\x96\x81wor ld", "l o"};
  spec.bos_id = 2;
  spec.eos_id = 1;
  spec.unk_id = 3;
  spec.add_bos = false;  // Gemma 4's files may say so; BOS leads all the same
  return spec;
}

int32_t id_of(const TokenizerSpec& spec, const std::string& text) {
  for (size_t i = 0; i < spec.tokens.size(); ++i) {
    if (spec.tokens[i] == text) return static_cast<int32_t>(i);
  }
  return -1;
}

TEST(CharacterBpeTokenizer, MergesCharactersByRankAndKeepsNewlineRunsWhole) {
  const TokenizerSpec spec = character_bpe_spec();
  auto tokenizer = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  const Tokenizer& t = **tokenizer;
  const Ids ids = t.encode("hello world\n\nhello\n\n\nlo", true, false);
  const Ids want = {2,
                    id_of(spec, "hello"),
                    id_of(spec, "\xE2\x96\x81world"),
                    id_of(spec, "\n\n"),
                    id_of(spec, "hello"),
                    id_of(spec, "\n"),  // "\n\n\n" is no token: merged over its characters
                    id_of(spec, "\n"),
                    id_of(spec, "\n"),
                    id_of(spec, "lo")};
  EXPECT_EQ(ids, want);
  EXPECT_EQ(t.decode(ids, true), "hello world\n\nhello\n\n\nlo");
}

TEST(CharacterBpeTokenizer, CharactersThatAreNoTokensFallBackToTheirBytes) {
  const TokenizerSpec spec = character_bpe_spec();
  auto tokenizer = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  const Tokenizer& t = **tokenizer;
  // "é" is a token; "ü" (C3 BC) is not, nor is the 4-byte emoji.
  const std::string text = "\xC3\xA9h\xC3\xBC \xF0\x9F\x98\x80";
  const Ids ids = t.encode(text, false, false);
  const Ids want = {id_of(spec, "\xC3\xA9"), id_of(spec, "h"), 4 + 0xC3, 4 + 0xBC, id_of(spec, "\xE2\x96\x81"),
                    4 + 0xF0, 4 + 0x9F, 4 + 0x98, 4 + 0x80};
  EXPECT_EQ(ids, want);
  EXPECT_EQ(t.decode(ids), text);
  // No space prefix: a leading space is the text's own, and decode keeps it.
  EXPECT_EQ(t.encode(" w", false, false), (Ids{id_of(spec, "\xE2\x96\x81w")}));
  EXPECT_EQ(t.decode(t.encode(" hello", true, false), true), " hello");
}

// A reply ends at the turn's close, or where the model opens a tool response for the caller to
// write; the tool call's own opener ends nothing. A byte-level vocabulary with the same tokens
// does not stop at <|tool_response>.
TEST(CharacterBpeTokenizer, TurnCloseAndToolResponseEndGeneration) {
  const TokenizerSpec spec = character_bpe_spec();
  auto tokenizer = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  EXPECT_TRUE((*tokenizer)->is_eog(id_of(spec, "<turn|>")));
  EXPECT_TRUE((*tokenizer)->is_eog(id_of(spec, "<|tool_response>")));
  EXPECT_TRUE((*tokenizer)->is_eog(1));
  EXPECT_FALSE((*tokenizer)->is_eog(id_of(spec, "<|tool_call>")));
  EXPECT_EQ((*tokenizer)->encode("a<|tool_call>", false, false).back(), id_of(spec, "<|tool_call>"));
}

TEST(CharacterBpeTokenizer, RefusesAVocabularyWithoutMerges) {
  TokenizerSpec spec = character_bpe_spec();
  spec.merges.clear();
  auto tokenizer = Tokenizer::FromSpec(spec);
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_NE(tokenizer.status().message().find("tokenizer.ggml.merges is missing or empty (needed by gemma4 BPE)"),
            std::string::npos)
      << tokenizer.status().ToString();
}

}  // namespace character_bpe_test
}  // namespace strata
