// Property tests: decode(encode(s)) == s, byte for byte, for seeded random text mixing scripts,
// emoji, combining marks, whitespace runs and control characters; and StreamDecoder output equals
// decode() while never emitting broken UTF-8.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tokenizer/stream_decoder.h"
#include "tokenizer/test_vocab.h"
#include "tokenizer/utf8.h"

namespace strata {
namespace {

struct Range {
  char32_t first;
  char32_t last;
};

// Ranges the generator draws characters from, roughly equally often.
const std::vector<std::vector<Range>> kCharClasses = {
    {{'a', 'z'}, {'A', 'Z'}},                                  // ASCII letters
    {{'0', '9'}},                                              // digits
    {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}},          // ASCII punctuation ('\'' included)
    {{' ', ' '}, {'\t', '\n'}, {'\r', '\r'}, {0x0B, 0x0C}},    // whitespace runs
    {{0xA0, 0xA0}, {0x2000, 0x200B}, {0x3000, 0x3000}, {0x202F, 0x202F}},  // Unicode spaces
    {{0x4E00, 0x9FFF}, {0x3040, 0x30FF}, {0xAC00, 0xD7A3}},    // CJK, kana, Hangul
    {{0x1F300, 0x1FAFF}, {0x1F1E6, 0x1F1FF}, {0x1F3FB, 0x1F3FF}, {0x200D, 0x200D}, {0xFE0F, 0xFE0F}},  // emoji
    {{0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}},    // combining marks
    {{0x0400, 0x04FF}, {0x0370, 0x03FF}, {0x0600, 0x06FF}, {0x0900, 0x097F}, {0x0E00, 0x0E7F}},  // scripts
    {{0x00, 0x1F}, {0x7F, 0x9F}},                              // control characters, NUL included
    {{0x80, 0x2580}, {0x2582, 0xD7FF}, {0xE000, 0x10FFFF}},    // any scalar value but U+2581
};

// Random valid UTF-8. U+2581 is left out: SentencePiece stores spaces as U+2581, so a literal one
// in the text decodes as a space (in every SentencePiece implementation).
std::string random_text(std::mt19937& rng, size_t max_chars) {
  std::string text;
  const size_t n_chars = std::uniform_int_distribution<size_t>(0, max_chars)(rng);
  size_t class_index = 0;
  for (size_t i = 0; i < n_chars; ++i) {
    // Runs of one class (words, whitespace runs, emoji sequences) with occasional switches.
    if (i == 0 || rng() % 4 == 0) class_index = rng() % kCharClasses.size();
    const std::vector<Range>& ranges = kCharClasses[class_index];
    const Range& range = ranges[rng() % ranges.size()];
    char32_t cp = std::uniform_int_distribution<char32_t>(range.first, range.last)(rng);
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 'x';
    utf8_append(&text, cp);
  }
  return text;
}

void expect_exact(std::string_view got, std::string_view want, std::string_view what) {
  ASSERT_EQ(got.size(), want.size()) << what << ": " << escape_bytes(want) << " came back as " << escape_bytes(got);
  ASSERT_EQ(0, std::memcmp(got.data(), want.data(), want.size())) << what << ": " << escape_bytes(want)
                                                                  << " came back as " << escape_bytes(got);
}

void check_round_trips(const std::string& file, uint32_t seed) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer(file);
  ASSERT_NE(tokenizer, nullptr);
  std::mt19937 rng(seed);
  for (int i = 0; i < 400; ++i) {
    const std::string text = random_text(rng, i % 50 == 0 ? 2000 : 40);
    const std::vector<int32_t> ids = tokenizer->encode(text, /*add_special=*/true, /*parse_special=*/false);
    expect_exact(tokenizer->decode(ids, /*skip_special=*/true), text, file + " decode");

    StreamDecoder::Options options;
    options.skip_special = true;
    options.strip_space_prefix = true;
    StreamDecoder stream(*tokenizer, options);
    std::string streamed;
    for (int32_t id : ids) {
      const std::string piece = stream.push(id);
      ASSERT_TRUE(utf8_is_valid(piece)) << file << ": stream emitted broken UTF-8 for " << escape_bytes(text);
      streamed += piece;
    }
    streamed += stream.flush();
    expect_exact(streamed, text, file + " stream");
  }
}

TEST(TokenizerRoundTripTest, LlamaSentencePieceDecodesRandomTextExactly) {
  check_round_trips("ggml-vocab-llama-spm.gguf", 1234);
}

TEST(TokenizerRoundTripTest, Gpt2ByteLevelBpeDecodesRandomTextExactly) {
  check_round_trips("ggml-vocab-gpt-2.gguf", 5678);
}

TEST(TokenizerRoundTripTest, InvalidUtf8BytesSurviveEncodeAndDecode) {
  for (const char* file : {"ggml-vocab-llama-spm.gguf", "ggml-vocab-gpt-2.gguf"}) {
    std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer(file);
    ASSERT_NE(tokenizer, nullptr);
    std::mt19937 rng(99);
    for (int i = 0; i < 200; ++i) {
      std::string bytes(rng() % 30, '\0');
      for (char& c : bytes) c = static_cast<char>(rng() % 4 == 0 ? rng() % 256 : 'a' + rng() % 3);
      const std::vector<int32_t> ids = tokenizer->encode(bytes, false, false);
      expect_exact(tokenizer->decode(ids), bytes, std::string(file) + " invalid utf-8");
    }
  }
}

TEST(TokenizerRoundTripTest, SpecialTokenTextRoundTripsWithAndWithoutParsing) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer("ggml-vocab-gpt-2.gguf");
  ASSERT_NE(tokenizer, nullptr);
  const std::string text = "a<|endoftext|>b <|endoftext|><|endoftext|>";
  const std::vector<int32_t> parsed = tokenizer->encode(text, false, true);
  EXPECT_EQ(std::count(parsed.begin(), parsed.end(), 50256), 3);
  expect_exact(tokenizer->decode(parsed), text, "parsed");
  const std::vector<int32_t> plain = tokenizer->encode(text, false, false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 50256), 0);
  expect_exact(tokenizer->decode(plain), text, "plain");
}

}  // namespace
}  // namespace strata
