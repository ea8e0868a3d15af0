#include "tokenizer/pre_tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata {
namespace {

std::vector<std::string> pre_split(PreTokenizerKind kind, std::string_view text) {
  Result<PreTokenizer> pre = PreTokenizer::Create(kind);
  EXPECT_TRUE(pre.ok()) << pre.status().ToString();
  std::vector<std::string_view> pieces;
  EXPECT_TRUE(pre->split(text, &pieces).ok());
  return std::vector<std::string>(pieces.begin(), pieces.end());
}

using Pieces = std::vector<std::string>;

TEST(PreTokenizerTest, Gpt2KeepsOneSpaceWithTheNextWord) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt2, "Hello world's  test 123"),
            (Pieces{"Hello", " world", "'s", " ", " test", " 123"}));
}

TEST(PreTokenizerTest, Gpt2ContractionsAreCaseSensitive) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt2, "WE'RE we're"), (Pieces{"WE", "'", "RE", " we", "'re"}));
}

TEST(PreTokenizerTest, Llama3ContractionsIgnoreCase) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kLlama3, "WE'RE we're"), (Pieces{"WE", "'RE", " we", "'re"}));
}

TEST(PreTokenizerTest, DigitsGroupByFamily) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt2, "12345"), (Pieces{"12345"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kLlama3, "12345"), (Pieces{"123", "45"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kQwen2, "12345"), (Pieces{"1", "2", "3", "4", "5"}));
}

TEST(PreTokenizerTest, Llama3AttachesOnePunctuationOrTabToAWord) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kLlama3, "\tfoo"), (Pieces{"\tfoo"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt2, "\tfoo"), (Pieces{"\t", "foo"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kLlama3, "x!!\n\ny"), (Pieces{"x", "!!\n\n", "y"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kQwen2, "a \n\n b"), (Pieces{"a", " \n\n", " b"}));
}

TEST(PreTokenizerTest, UnicodeLettersAndNumbersUseProperties) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt2, "Привет мир ٣٤"), (Pieces{"Привет", " мир", " ٣٤"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kQwen2, "你好,世界"), (Pieces{"你好", ",世界"}));
}

TEST(PreTokenizerTest, Gpt4oSplitsWordsAtCaseChangesAndKeepsContractions) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt4o, "CamelCase HTTPServer WE'RE we'Re"),
            (Pieces{"Camel", "Case", " HTTPServer", " WE'RE", " we'Re"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt4o, "12345 x!!\n\n// y"), (Pieces{"123", "45", " x", "!!\n\n//", " y"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt4o, "\tfoo  bar\n\n"), (Pieces{"\tfoo", " ", " bar", "\n\n"}));
}

TEST(PreTokenizerTest, PiecesTileTextEvenWithInvalidUtf8) {
  const std::string text = "ab\xFF\xFE" "cd \xE4\xB8 x\xC3";
  for (PreTokenizerKind kind : {PreTokenizerKind::kGpt2, PreTokenizerKind::kLlama3, PreTokenizerKind::kQwen2,
                                PreTokenizerKind::kGpt4o}) {
    const Pieces pieces = pre_split(kind, text);
    std::string joined;
    for (const std::string& piece : pieces) {
      EXPECT_FALSE(piece.empty());
      joined += piece;
    }
    EXPECT_EQ(joined, text) << pre_tokenizer_kind_name(kind);
  }
}

TEST(PreTokenizerTest, SplitsALongWhitespaceRunWithoutError) {
  const std::string text = std::string(200000, ' ') + "x";
  const Pieces pieces = pre_split(PreTokenizerKind::kLlama3, text);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].size(), 199999u);
  EXPECT_EQ(pieces[1], " x");
}

TEST(PreTokenizerTest, ChoosesTheFamilyByGgufName) {
  EXPECT_EQ(choose_pre_tokenizer("gpt-2").kind, PreTokenizerKind::kGpt2);
  EXPECT_EQ(choose_pre_tokenizer("").kind, PreTokenizerKind::kGpt2);
  EXPECT_EQ(choose_pre_tokenizer("qwen2").kind, PreTokenizerKind::kQwen2);
  const PreTokenizerChoice llama = choose_pre_tokenizer("llama-bpe");
  EXPECT_EQ(llama.kind, PreTokenizerKind::kLlama3);
  EXPECT_TRUE(llama.ignore_merges);
  EXPECT_TRUE(llama.exact);
  EXPECT_EQ(choose_pre_tokenizer("smaug-bpe").kind, PreTokenizerKind::kLlama3);
  EXPECT_FALSE(choose_pre_tokenizer("smaug-bpe").ignore_merges);
  for (const char* glm : {"glm4", "chatglm-bpe"}) {  // GLM-4.5 / GLM-4: Llama 3's split, merges kept
    EXPECT_EQ(choose_pre_tokenizer(glm).kind, PreTokenizerKind::kLlama3) << glm;
    EXPECT_FALSE(choose_pre_tokenizer(glm).ignore_merges) << glm;
    EXPECT_TRUE(choose_pre_tokenizer(glm).exact) << glm;
  }
  const PreTokenizerChoice gpt4o = choose_pre_tokenizer("gpt-4o");  // gpt-oss
  EXPECT_EQ(gpt4o.kind, PreTokenizerKind::kGpt4o);
  EXPECT_TRUE(gpt4o.ignore_merges);
  EXPECT_EQ(choose_pre_tokenizer("llama4").kind, PreTokenizerKind::kGpt4o);
  const PreTokenizerChoice unknown = choose_pre_tokenizer("something-new");
  EXPECT_EQ(unknown.kind, PreTokenizerKind::kGpt2);
  EXPECT_FALSE(unknown.exact);
}

}  // namespace
}  // namespace strata
