#include "tokenizer/bpe_encoder.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace strata {
namespace {

using Ids = std::vector<int32_t>;

// Byte-level vocabulary: "a", "b", "c", "Ġ" (space) and merged tokens; ids index the list.
struct TinyBpe {
  ByteUnicodeMap bytes;
  Vocab vocab;
  std::optional<BpeEncoder> encoder;
  TinyBpe(std::vector<std::string> merges, bool ignore_merges)
      //      0    1    2    3         4     5     6      7      8
      : vocab({"a", "b", "c", "\xC4\xA0", "ab", "bc", "abc", "aa", "\xC4\xA0" "a"}, {}, {}) {
    Result<BpeEncoder> created = BpeEncoder::Create(vocab, bytes, merges, ignore_merges, -1);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    if (created.ok()) encoder.emplace(std::move(created).value());
  }
  Ids encode(std::string_view piece) const {
    Ids ids;
    encoder->encode_piece(piece, &ids);
    return ids;
  }
};

TEST(BpeEncoderTest, AppliesTheLowestRankedMergeFirst) {
  EXPECT_EQ(TinyBpe({"b c", "a b"}, false).encode("abc"), (Ids{0, 5}));
  EXPECT_EQ(TinyBpe({"a b", "b c", "ab c"}, false).encode("abc"), (Ids{6}));
}

// A pair listed again keeps its first rank; merges naming unknown tokens are left out.
TEST(BpeEncoderTest, ARepeatedMergeKeepsItsFirstRank) {
  TinyBpe bpe({"b c", "a b", "x y", "b c"}, false);
  EXPECT_EQ(bpe.encoder->n_merges(), 2u);
  // "b c" at rank 0 goes before "a b" (rank 1); at rank 3 it would come after: ab, c.
  EXPECT_EQ(bpe.encode("abc"), (Ids{0, 5}));
}

TEST(BpeEncoderTest, MergesRepeatedPairsFromTheLeft) {
  EXPECT_EQ(TinyBpe({"a a"}, false).encode("aaa"), (Ids{7, 0}));
}

TEST(BpeEncoderTest, MapsBytesThroughTheByteAlphabet) {
  EXPECT_EQ(TinyBpe({"\xC4\xA0 a"}, false).encode(" a"), (Ids{8}));
}

TEST(BpeEncoderTest, IgnoreMergesEmitsAWholeTokenDirectly) {
  // "abc" is a token no merge reaches; only the Llama-3 rule finds it.
  EXPECT_EQ(TinyBpe({"a b"}, false).encode("abc"), (Ids{4, 2}));
  EXPECT_EQ(TinyBpe({"a b"}, true).encode("abc"), (Ids{6}));
}

TEST(BpeEncoderTest, DropsMergesWhosePartsAreNotTokens) {
  TinyBpe tiny({"x y", "a b"}, false);
  EXPECT_EQ(tiny.encoder->n_merges(), 1u);
  EXPECT_EQ(tiny.encode("ab"), (Ids{4}));
}

TEST(BpeEncoderTest, RejectsAMergeWithoutASpace) {
  ByteUnicodeMap bytes;
  Vocab vocab({"a", "b", "ab"}, {}, {});
  Result<BpeEncoder> created = BpeEncoder::Create(vocab, bytes, {"a b", "ab"}, false, -1);
  ASSERT_FALSE(created.ok());
  EXPECT_NE(created.status().message().find("tokenizer.ggml.merges[1]"), std::string::npos)
      << created.status().message();
}

TEST(BpeEncoderTest, SkipsBytesOutsideTheVocabularyWithoutUnknown) {
  EXPECT_EQ(TinyBpe({}, false).encode("a?b"), (Ids{0, 1}));
}

}  // namespace
}  // namespace strata
