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
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekLlm, "x12345"), (Pieces{"x", "12345"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekCoder, "x123"), (Pieces{"x", "1", "2", "3"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekV3, "x12345"), (Pieces{"x", "123", "45"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kKimiK2, "x12345"), (Pieces{"x", "123", "45"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "x12345"), (Pieces{"x", "1", "2", "3", "4", "5"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kStarcoder, "x 12345"), (Pieces{"x", " ", "1", "2", "3", "4", "5"}));
}

// Command R's, StarCoder's and SmolLM's digits stand alone; the rest splits as GPT-2 splits it.
TEST(PreTokenizerTest, StarcoderSplitsDigitsThenAsGpt2) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kStarcoder, "Hello world's  test 2024a"),
            (Pieces{"Hello", " world", "'s", " ", " test", " ", "2", "0", "2", "4", "a"}));
  for (const char* name : {"command-r", "cohere2_moe", "starcoder", "smollm", "refact", "codeshell"}) {
    EXPECT_EQ(choose_pre_tokenizer(name).kind, PreTokenizerKind::kStarcoder) << name;
    EXPECT_TRUE(choose_pre_tokenizer(name).exact) << name;
    EXPECT_FALSE(choose_pre_tokenizer(name).ignore_merges) << name;
  }
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

TEST(PreTokenizerTest, Qwen35CountsCombiningMarksAsLetters) {
  // Devanagari vowel signs and the virama are marks (Mc, Mn): Qwen2's pattern breaks the word
  // at each of them; Qwen3.5's keeps it whole, and a decomposed accent stays in its word.
  EXPECT_EQ(pre_split(PreTokenizerKind::kQwen35, "नमस्ते cafe\u0301s 123"),
            (Pieces{"नमस्ते", " cafe\u0301s", " ", "1", "2", "3"}));
  EXPECT_NE(pre_split(PreTokenizerKind::kQwen2, "नमस्ते"), (Pieces{"नमस्ते"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kQwen2, "cafe\u0301s"), (Pieces{"cafe", "\u0301s"}));
  EXPECT_EQ(choose_pre_tokenizer("qwen35").kind, PreTokenizerKind::kQwen35);
  EXPECT_TRUE(choose_pre_tokenizer("qwen35").exact);
}

TEST(PreTokenizerTest, Gpt4oSplitsWordsAtCaseChangesAndKeepsContractions) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt4o, "CamelCase HTTPServer WE'RE we'Re"),
            (Pieces{"Camel", "Case", " HTTPServer", " WE'RE", " we'Re"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt4o, "12345 x!!\n\n// y"),
            (Pieces{"123", "45", " x", "!!\n\n//", " y"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt4o, "\tfoo  bar\n\n"), (Pieces{"\tfoo", " ", " bar", "\n\n"}));
}

// Mistral's tekken. The expected splits are those of the original pattern (tekken.json's) under
// JavaScript's regex engine (`new RegExp(pattern, "gu")`).
TEST(PreTokenizerTest, TekkenSplitsWordsAtCaseChangesInEveryScript) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "HelloWorld iPhone MacBookPro HTTPServer"),
            (Pieces{"Hello", "World", " i", "Phone", " Mac", "Book", "Pro", " HTTPServer"}));
  // Not only between ASCII letters, where llama.cpp's rewrite of the pattern looks.
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "Привет Мир ПриветМир ÉcoleNormale"),
            (Pieces{"Привет", " Мир", " Привет", "Мир", " École", "Normale"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "ǅemal e\u0301t\u00e9 naïve"),
            (Pieces{"ǅemal", " e\u0301t\u00e9", " naïve"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt4o, "ПриветМир"), (Pieces{"Привет", "Мир"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kLlama3, "ПриветМир"), (Pieces{"ПриветМир"}));
}

TEST(PreTokenizerTest, TekkenHasNoContractions) {
  // o200k attaches "'RE" to the word before it; tekken's apostrophe leads the next word.
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "WE'RE we're don't"),
            (Pieces{"WE", "'RE", " we", "'re", " don", "'t"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt4o, "WE'RE we're"), (Pieces{"WE'RE", " we're"}));
}

TEST(PreTokenizerTest, TekkenPunctuationTakesTheNewlinesAndSlashesAfterIt) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "foo!!\n\n// bar/baz\n"),
            (Pieces{"foo", "!!\n\n//", " bar", "/baz", "\n"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "a/b: c,d;\n\t e"),
            (Pieces{"a", "/b", ":", " c", ",d", ";\n", "\t", " e"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "x = 3.14;"),
            (Pieces{"x", " =", " ", "3", ".", "1", "4", ";"}));
}

TEST(PreTokenizerTest, TekkenKeepsOtherScriptsAndSpacesAsO200kDoes) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "日本語のテキスト 中文 한국어 مرحبا بالعالم"),
            (Pieces{"日本語のテキスト", " 中文", " 한국어", " مرحبا", " بالعالم"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "   leading  and trailing   "),
            (Pieces{"  ", " leading", " ", " and", " trailing", "   "}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kTekken, "\tfoo  bar\n\n"), (Pieces{"\tfoo", " ", " bar", "\n\n"}));
}

// DeepSeek's sequences: each pattern splits the pieces of the one before.
TEST(PreTokenizerTest, DeepseekLlmAndCoderKeepEachNewlineAlone) {
  for (PreTokenizerKind kind : {PreTokenizerKind::kDeepseekLlm, PreTokenizerKind::kDeepseekCoder}) {
    EXPECT_EQ(pre_split(kind, "a\n\n b\r\n"), (Pieces{"a", "\n", "\n", " b", "\r", "\n"}))
        << pre_tokenizer_kind_name(kind);
  }
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekV3, "a\n\n b\r\n"), (Pieces{"a", "\n\n", " b", "\r\n"}));
}

TEST(PreTokenizerTest, DeepseekLlmWordsAreCasedLettersOnly) {
  // Hebrew letters (Lo) are no word of deepseek-llm's: they and their spaces stay one piece until
  // the trailing-whitespace pattern cuts the spaces at the end off. deepseek-coder takes any letter.
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekLlm, " Hello мир שלום עולם  "),
            (Pieces{" Hello", " мир", " שלום עולם", "  "}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekCoder, " Hello мир שלום עולם  "),
            (Pieces{" Hello", " мир", " שלום", " עולם", "  "}));
}

TEST(PreTokenizerTest, DeepseekSplitsCjkRunsFromTheSpaceBeforeThem) {
  // A CJK pattern isolates the run within whatever piece holds it, so the space before it is a
  // piece of its own, also in deepseek-coder, whose letters (\p{L}) took it first. Qwen2 joins them.
  for (PreTokenizerKind kind : {PreTokenizerKind::kDeepseekLlm, PreTokenizerKind::kDeepseekCoder,
                                PreTokenizerKind::kDeepseekV3}) {
    EXPECT_EQ(pre_split(kind, " 你好，世界 ok"), (Pieces{" ", "你好", "，", "世界", " ok"}))
        << pre_tokenizer_kind_name(kind);
  }
  EXPECT_EQ(pre_split(PreTokenizerKind::kQwen2, " 你好，世界 ok"), (Pieces{" 你好", "，世界", " ok"}));
  // Kana join the ideographs everywhere; Hangul is CJK to deepseek-llm and deepseek-coder only,
  // and a word (which takes the space) to deepseek-v3.
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekCoder, "日本語のテキスト 한국어"),
            (Pieces{"日本語のテキスト", " ", "한국어"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekV3, "日本語のテキスト 한국어"),
            (Pieces{"日本語のテキスト", " 한국어"}));
}

TEST(PreTokenizerTest, DeepseekV3JoinsAsciiPunctuationToTheAsciiWordAfterIt) {
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekV3, "foo.bar(x) .été"),
            (Pieces{"foo", ".bar", "(x", ")", " .", "été"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekLlm, "foo.bar(x)"), (Pieces{"foo", ".", "bar", "(", "x", ")"}));
  // Marks stay with their letter; a symbol run takes one space before it.
  EXPECT_EQ(pre_split(PreTokenizerKind::kDeepseekV3, "e\u0301t\u00e9 += 1"),
            (Pieces{"e\u0301t\u00e9", " +=", " ", "1"}));
}

TEST(PreTokenizerTest, KimiK2KeepsHanApartFromOtherLetters) {
  // The ideographic full stop is no Han character (Script=Common), so it is a piece of its own.
  EXPECT_EQ(pre_split(PreTokenizerKind::kKimiK2, "abc中文def 你好。世界"),
            (Pieces{"abc", "中文", "def", " ", "你好", "。", "世界"}));
  EXPECT_EQ(pre_split(PreTokenizerKind::kGpt4o, "abc中文def"), (Pieces{"abc中文def"}));
  // Elsewhere it splits as o200k, but a punctuation run takes no "/" after its newlines.
  EXPECT_EQ(pre_split(PreTokenizerKind::kKimiK2, "CamelCase WE'RE x!!\n/"),
            (Pieces{"Camel", "Case", " WE'RE", " x", "!!\n", "/"}));
}

TEST(PreTokenizerTest, SplitAppendsAfterThePiecesAlreadyThere) {
  Result<PreTokenizer> pre = PreTokenizer::Create(PreTokenizerKind::kDeepseekV3);
  ASSERT_TRUE(pre.ok()) << pre.status().ToString();
  std::vector<std::string_view> pieces = {"kept"};
  ASSERT_TRUE(pre->split("a1234", &pieces).ok());
  ASSERT_TRUE(pre->split("x.y", &pieces).ok());
  EXPECT_EQ(std::vector<std::string>(pieces.begin(), pieces.end()), (Pieces{"kept", "a", "123", "4", "x", ".y"}));
}

TEST(PreTokenizerTest, PiecesTileTextEvenWithInvalidUtf8) {
  const std::string text = "ab\xFF\xFE" "cd \xE4\xB8 x\xC3\n\xE4\xBD 12\xA0";
  for (PreTokenizerKind kind : {PreTokenizerKind::kGpt2, PreTokenizerKind::kLlama3, PreTokenizerKind::kQwen2,
                                PreTokenizerKind::kGpt4o, PreTokenizerKind::kDeepseekLlm,
                                PreTokenizerKind::kDeepseekCoder, PreTokenizerKind::kDeepseekV3,
                                PreTokenizerKind::kKimiK2, PreTokenizerKind::kTekken,
                                PreTokenizerKind::kStarcoder}) {
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
  // DeepSeek's sequences, merges kept; Kimi K2's tiktoken vocabulary takes a piece that is a token whole.
  const PreTokenizerChoice deepseek_v3 = choose_pre_tokenizer("deepseek-v3");
  EXPECT_EQ(deepseek_v3.kind, PreTokenizerKind::kDeepseekV3);
  EXPECT_FALSE(deepseek_v3.ignore_merges);
  EXPECT_TRUE(deepseek_v3.exact);
  EXPECT_EQ(choose_pre_tokenizer("deepseek-llm").kind, PreTokenizerKind::kDeepseekLlm);
  EXPECT_EQ(choose_pre_tokenizer("deepseek-coder").kind, PreTokenizerKind::kDeepseekCoder);
  EXPECT_EQ(choose_pre_tokenizer("joyai-llm").kind, PreTokenizerKind::kDeepseekV3);
  EXPECT_EQ(choose_pre_tokenizer("deepseek-r1-qwen").kind, PreTokenizerKind::kQwen2);  // R1's Qwen distills
  EXPECT_EQ(choose_pre_tokenizer("hunyuan").kind, PreTokenizerKind::kQwen2);  // Hunyuan-A13B
  EXPECT_EQ(choose_pre_tokenizer("hunyuan-dense").kind, PreTokenizerKind::kDeepseekV3);
  const PreTokenizerChoice kimi = choose_pre_tokenizer("kimi-k2");
  EXPECT_EQ(kimi.kind, PreTokenizerKind::kKimiK2);
  EXPECT_TRUE(kimi.ignore_merges);
  // Mistral's: tekken's own pattern, pixtral Llama 3's; both take pieces whole and add BOS.
  const PreTokenizerChoice tekken = choose_pre_tokenizer("tekken");
  EXPECT_EQ(tekken.kind, PreTokenizerKind::kTekken);
  EXPECT_TRUE(tekken.ignore_merges);
  EXPECT_TRUE(tekken.exact);
  EXPECT_TRUE(tekken.add_bos);
  const PreTokenizerChoice pixtral = choose_pre_tokenizer("pixtral");
  EXPECT_EQ(pixtral.kind, PreTokenizerKind::kLlama3);
  EXPECT_TRUE(pixtral.ignore_merges);
  EXPECT_TRUE(pixtral.add_bos);
  const PreTokenizerChoice laguna = choose_pre_tokenizer("laguna");  // Poolside Laguna: as pixtral
  EXPECT_EQ(laguna.kind, PreTokenizerKind::kLlama3);
  EXPECT_TRUE(laguna.ignore_merges && laguna.add_bos);
  const PreTokenizerChoice lfm2 = choose_pre_tokenizer("lfm2");  // Liquid LFM2: as Llama 3's
  EXPECT_EQ(lfm2.kind, PreTokenizerKind::kLlama3);
  EXPECT_TRUE(lfm2.ignore_merges && lfm2.add_bos && lfm2.exact);
  const PreTokenizerChoice granite4 = choose_pre_tokenizer("granite-docling");  // Granite 4.0: GPT-2's
  EXPECT_EQ(granite4.kind, PreTokenizerKind::kGpt2);
  EXPECT_TRUE(granite4.exact);
  for (const char* name : {"falcon3", "falcon-h1", "midm-2.0"}) {  // as Llama 3's, as llama.cpp groups them
    const PreTokenizerChoice c = choose_pre_tokenizer(name);
    EXPECT_EQ(c.kind, PreTokenizerKind::kLlama3) << name;
    EXPECT_TRUE(c.ignore_merges && c.add_bos && c.exact) << name;
  }
  const PreTokenizerChoice exaone4 = choose_pre_tokenizer("exaone4");  // EXAONE 4.0: GPT-2's, as llama.cpp
  EXPECT_EQ(exaone4.kind, PreTokenizerKind::kGpt2);
  EXPECT_TRUE(exaone4.exact);
  EXPECT_TRUE(llama.add_bos);
  EXPECT_FALSE(gpt4o.add_bos);
  EXPECT_FALSE(choose_pre_tokenizer("qwen2").add_bos);
  EXPECT_FALSE(choose_pre_tokenizer("glm4").add_bos);
  const PreTokenizerChoice unknown = choose_pre_tokenizer("something-new");
  EXPECT_EQ(unknown.kind, PreTokenizerKind::kGpt2);
  EXPECT_FALSE(unknown.exact);
}

}  // namespace
}  // namespace strata
