#include "tokenizer/tokenizer.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "tokenizer/test_vocab.h"

namespace strata {
namespace {

using Ids = std::vector<int32_t>;

constexpr int32_t kNormal = static_cast<int32_t>(TokenType::kNormal);
constexpr int32_t kControl = static_cast<int32_t>(TokenType::kControl);

// A byte-level BPE spec: the 256 byte characters, "ab", and control tokens.
TokenizerSpec tiny_bpe_spec() {
  TokenizerSpec spec;
  spec.model = "gpt2";
  spec.pre = "qwen2";
  ByteUnicodeMap bytes;
  for (int b = 0; b < 256; ++b) spec.tokens.push_back(bytes.encode_byte(static_cast<uint8_t>(b)));
  spec.tokens.push_back("ab");            // 256
  spec.tokens.push_back("<|im_end|>");    // 257
  spec.tokens.push_back("<|im_start|>");  // 258
  spec.tokens.push_back("<|endoftext|>"); // 259
  spec.token_types.assign(256, kNormal);
  spec.token_types.insert(spec.token_types.end(), {kNormal, kControl, kControl, kControl});
  spec.merges = {"a b"};
  spec.eos_id = 259;
  return spec;
}

Status load_error(TokenizerSpec spec) {
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromSpec(std::move(spec));
  EXPECT_FALSE(tokenizer.ok());
  return tokenizer.ok() ? Status::Ok() : tokenizer.status();
}

TEST(TokenizerTest, RejectsUnsupportedModels) {
  TokenizerSpec spec = tiny_bpe_spec();
  spec.model = "bert";
  const Status status = load_error(spec);
  EXPECT_EQ(status.code(), Code::kUnsupported);
  EXPECT_NE(status.message().find("\"bert\""), std::string::npos) << status.message();
}

TEST(TokenizerTest, RejectsInconsistentTables) {
  TokenizerSpec scores = tiny_bpe_spec();
  scores.scores = {1.0f, 2.0f};
  EXPECT_NE(load_error(scores).message().find("tokenizer.ggml.scores has 2 entries"), std::string::npos);
  TokenizerSpec types = tiny_bpe_spec();
  types.token_types[3] = 9;
  EXPECT_NE(load_error(types).message().find("token_type[3]"), std::string::npos);
  TokenizerSpec eos = tiny_bpe_spec();
  eos.eos_id = 5000;
  EXPECT_NE(load_error(eos).message().find("eos_token_id 5000 is out of range"), std::string::npos);
  TokenizerSpec bos = tiny_bpe_spec();
  bos.add_bos = true;
  EXPECT_NE(load_error(bos).message().find("add_bos_token"), std::string::npos);
  TokenizerSpec merges = tiny_bpe_spec();
  merges.merges.clear();
  EXPECT_NE(load_error(merges).message().find("tokenizer.ggml.merges"), std::string::npos);
  TokenizerSpec empty;
  empty.model = "llama";
  EXPECT_NE(load_error(empty).message().find("tokenizer.ggml.tokens"), std::string::npos);
}

TEST(TokenizerTest, EndOfGenerationCoversEosAndEndOfTurnControlTokens) {
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromSpec(tiny_bpe_spec());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  const Tokenizer& t = **tokenizer;
  EXPECT_TRUE(t.is_eog(259));   // EOS
  EXPECT_TRUE(t.is_eog(257));   // <|im_end|>
  EXPECT_FALSE(t.is_eog(258));  // <|im_start|>
  EXPECT_FALSE(t.is_eog(256));
  EXPECT_FALSE(t.is_eog(-1));
  EXPECT_EQ(t.eog_ids(), (Ids{257, 259}));
  EXPECT_TRUE(t.is_special(258));
  EXPECT_FALSE(t.is_special(256));
}

// gpt-oss: <|return|> and <|call|> end a reply; <|end|> ends only one of its messages (the
// analysis before the final answer), so it is no end of generation there, where a vocabulary
// without them (Phi-3's <|end|>) keeps it.
TEST(TokenizerTest, HarmonyEndsAtReturnAndCallButNotAtEndOfMessage) {
  TokenizerSpec spec = tiny_bpe_spec();
  spec.pre = "gpt-4o";
  for (const char* text : {"<|return|>", "<|call|>", "<|end|>", "<|channel|>"}) {  // 260..263
    spec.tokens.push_back(text);
    spec.token_types.push_back(kControl);
  }
  spec.eos_id = 260;
  Result<std::unique_ptr<Tokenizer>> harmony = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(harmony.ok()) << harmony.status().ToString();
  EXPECT_EQ((*harmony)->eog_ids(), (Ids{257, 259, 260, 261}));
  EXPECT_FALSE((*harmony)->add_bos());

  spec.tokens[261] = "<|reserved_1|>";  // no <|call|>: <|end|> ends generation again
  Result<std::unique_ptr<Tokenizer>> phi = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(phi.ok()) << phi.status().ToString();
  EXPECT_EQ((*phi)->eog_ids(), (Ids{257, 259, 260, 262}));
}

// Llama 4: <|eot|> ends a reply and <|eom|> a tool call's turn, whichever id the file names;
// <|header_start|> does not.
TEST(TokenizerTest, Llama4EndsAtEotAndEom) {
  TokenizerSpec spec = tiny_bpe_spec();
  spec.pre = "llama4";
  for (const char* text : {"<|eot|>", "<|eom|>", "<|header_start|>"}) {  // 260..262
    spec.tokens.push_back(text);
    spec.token_types.push_back(kControl);
  }
  Result<std::unique_ptr<Tokenizer>> t = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE((*t)->is_eog(260));
  EXPECT_TRUE((*t)->is_eog(261));
  EXPECT_FALSE((*t)->is_eog(262));
}

// Cohere's files: a reply ends at <|END_OF_TURN_TOKEN|> whichever EOS the file names; not at the
// end of its thinking, its answer or its calls, which more of the reply follows.
TEST(TokenizerTest, CohereEndsAtEndOfTurnOnly) {
  TokenizerSpec spec = tiny_bpe_spec();
  spec.pre = "command-r";
  for (const char* text : {"<|END_OF_TURN_TOKEN|>", "<|END_THINKING|>", "<|END_TEXT|>", "<|END_ACTION|>",
                           "<|END_RESPONSE|>"}) {  // 260..264
    spec.tokens.push_back(text);
    spec.token_types.push_back(kControl);
  }
  Result<std::unique_ptr<Tokenizer>> t = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE((*t)->is_eog(260));
  for (int32_t id : {261, 262, 263, 264}) EXPECT_FALSE((*t)->is_eog(id)) << id;
}

// DeepSeek-V3 / R1: a reply ends at <｜end▁of▁sentence｜>, the EOS its files name, and at that
// token even where a file names another; not at <｜EOT｜>, a turn opener or the tool-call markup.
TEST(TokenizerTest, DeepseekEndsAtEndOfSentenceOnly) {
  TokenizerSpec spec = tiny_bpe_spec();
  spec.pre = "deepseek-v3";
  for (const char* text : {"<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>",
                           "<｜EOT｜>", "<｜tool▁calls▁end｜>"}) {  // 260..265
    spec.tokens.push_back(text);
    spec.token_types.push_back(kControl);
  }
  spec.bos_id = 260;
  spec.eos_id = 261;
  Result<std::unique_ptr<Tokenizer>> deepseek = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(deepseek.ok()) << deepseek.status().ToString();
  EXPECT_EQ((*deepseek)->eog_ids(), (Ids{257, 259, 261}));

  spec.eos_id = 259;  // another EOS named: <｜end▁of▁sentence｜> still ends the reply
  Result<std::unique_ptr<Tokenizer>> other_eos = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(other_eos.ok()) << other_eos.status().ToString();
  EXPECT_EQ((*other_eos)->eog_ids(), (Ids{257, 259, 261}));
  for (int32_t id : {260, 262, 263, 264, 265}) EXPECT_FALSE((*other_eos)->is_eog(id)) << id;
}

// Kimi K2's vocabulary (llama.cpp's converter makes every tiktoken special token a control token):
// a reply ends at <|im_end|>, and at [EOS] and [EOT], whichever of them the file names its EOS;
// not at the turn openers, <|im_middle|>, the tool-call markup or the think tags.
TEST(TokenizerTest, KimiK2EndsAtImEndEosAndEotOnly) {
  TokenizerSpec spec = tiny_bpe_spec();  // 257 <|im_end|>, 259 <|endoftext|>: control tokens
  spec.pre = "kimi-k2";
  for (const char* text : {"[BOS]", "[EOS]", "[EOT]", "<|im_user|>", "<|im_assistant|>", "<|im_system|>",
                           "<|im_middle|>", "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>",
                           "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<think>",
                           "</think>"}) {  // 260..273
    spec.tokens.push_back(text);
    spec.token_types.push_back(kControl);
  }
  spec.bos_id = 260;
  for (int32_t eos : {261, 257}) {  // [EOS] (the tokenizer config's), or <|im_end|> named instead
    spec.eos_id = eos;
    Result<std::unique_ptr<Tokenizer>> kimi = Tokenizer::FromSpec(spec);
    ASSERT_TRUE(kimi.ok()) << kimi.status().ToString();
    EXPECT_EQ((*kimi)->eog_ids(), (Ids{257, 259, 261, 262})) << eos;
    for (int32_t id = 263; id <= 273; ++id) EXPECT_FALSE((*kimi)->is_eog(id)) << id;
    EXPECT_FALSE((*kimi)->is_eog(260));
  }
}

// MiniMax-M2: a reply ends at [e~[, the end of every turn and the EOS its files name, and at that
// token even where a file names another; not at the turn openers ]~!b[ (the BOS) and ]~b], nor
// at the tool-call or think tags.
TEST(TokenizerTest, MiniMaxEndsAtItsEndOfTurnOnly) {
  TokenizerSpec spec = tiny_bpe_spec();
  spec.pre = "minimax-m2";
  for (const char* text : {"]~!b[", "]~b]", "[e~[", "<minimax:tool_call>", "</minimax:tool_call>", "<think>",
                           "</think>"}) {  // 260..266
    spec.tokens.push_back(text);
    spec.token_types.push_back(kControl);
  }
  spec.bos_id = 260;
  spec.eos_id = 262;
  Result<std::unique_ptr<Tokenizer>> minimax = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(minimax.ok()) << minimax.status().ToString();
  EXPECT_EQ((*minimax)->eog_ids(), (Ids{257, 259, 262}));

  spec.eos_id = 259;  // another EOS named: [e~[ still ends the reply
  Result<std::unique_ptr<Tokenizer>> other_eos = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(other_eos.ok()) << other_eos.status().ToString();
  EXPECT_EQ((*other_eos)->eog_ids(), (Ids{257, 259, 262}));
  for (int32_t id : {260, 261, 263, 264, 265, 266}) EXPECT_FALSE((*other_eos)->is_eog(id)) << id;
}

// GLM-4.5's files as llama.cpp's converter writes them: <|endoftext|> the EOS, [gMASK] the BOS,
// <|user|> the EOT and <|observation|> the EOM. The template writes "[gMASK]<sop>" itself, so
// no BOS is added even where the file asks for one; the reply ends at either turn opener.
TokenizerSpec glm_spec() {
  TokenizerSpec spec = tiny_bpe_spec();
  spec.pre = "glm4";
  for (const char* text : {"[gMASK]", "<sop>", "<|user|>", "<|observation|>", "<|assistant|>"}) {  // 260..264
    spec.tokens.push_back(text);
    spec.token_types.push_back(kControl);
  }
  spec.bos_id = 260;
  spec.eot_id = 262;
  spec.eom_id = 263;
  spec.add_bos = true;
  return spec;
}

TEST(TokenizerTest, GlmAddsNoBosAndEndsAtUserOrObservation) {
  Result<std::unique_ptr<Tokenizer>> glm = Tokenizer::FromSpec(glm_spec());
  ASSERT_TRUE(glm.ok()) << glm.status().ToString();
  EXPECT_FALSE((*glm)->add_bos());
  EXPECT_EQ((*glm)->pre_tokenizer(), PreTokenizerKind::kLlama3);
  EXPECT_EQ((*glm)->encode("ab", /*add_special=*/true, false), (Ids{256}));
  EXPECT_EQ((*glm)->eog_ids(), (Ids{257, 259, 262, 263}));
  EXPECT_FALSE((*glm)->is_eog(264));  // <|assistant|>
}

TEST(TokenizerTest, OlderGlmFilesWithoutEotOrEomStillEndAtUserOrObservation) {
  TokenizerSpec spec = glm_spec();
  spec.pre = "chatglm-bpe";
  spec.eot_id = spec.eom_id = -1;
  Result<std::unique_ptr<Tokenizer>> glm = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(glm.ok()) << glm.status().ToString();
  EXPECT_FALSE((*glm)->add_bos());
  EXPECT_EQ((*glm)->eog_ids(), (Ids{257, 259, 262, 263}));

  spec.pre = "llama-bpe";  // the same tokens in another family's vocabulary end nothing
  Result<std::unique_ptr<Tokenizer>> other = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_TRUE((*other)->add_bos());
  EXPECT_EQ((*other)->eog_ids(), (Ids{257, 259}));
}

// Mistral's vocabularies add BOS when the file does not say (llama.cpp's default for tekken and
// pixtral); the file's add_bos_token still wins.
TEST(TokenizerTest, MistralVocabulariesAddBosUnlessTheFileSaysNot) {
  for (const char* pre : {"tekken", "pixtral"}) {
    TokenizerSpec spec = tiny_bpe_spec();
    spec.pre = pre;
    spec.bos_id = 258;
    Result<std::unique_ptr<Tokenizer>> mistral = Tokenizer::FromSpec(spec);
    ASSERT_TRUE(mistral.ok()) << mistral.status().ToString();
    EXPECT_TRUE((*mistral)->add_bos()) << pre;
    EXPECT_EQ((*mistral)->encode("ab", /*add_special=*/true, false), (Ids{258, 256})) << pre;
    spec.add_bos = false;
    Result<std::unique_ptr<Tokenizer>> told = Tokenizer::FromSpec(spec);
    ASSERT_TRUE(told.ok()) << told.status().ToString();
    EXPECT_FALSE((*told)->add_bos()) << pre;
  }
  TokenizerSpec qwen = tiny_bpe_spec();
  qwen.bos_id = 258;
  Result<std::unique_ptr<Tokenizer>> other = Tokenizer::FromSpec(qwen);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_FALSE((*other)->add_bos());
}

TEST(TokenizerTest, DeepseekLlmEncodesEachNewlineApart) {
  TokenizerSpec spec = tiny_bpe_spec();
  ByteUnicodeMap bytes;
  const std::string newline = bytes.encode_byte('\n');
  spec.tokens.push_back(newline + newline);  // 260
  spec.token_types.push_back(kNormal);
  spec.merges.push_back(newline + " " + newline);
  Result<std::unique_ptr<Tokenizer>> qwen = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(qwen.ok()) << qwen.status().ToString();
  EXPECT_EQ((*qwen)->encode("\n\nab", false, false), (Ids{260, 256}));

  spec.pre = "deepseek-llm";  // its first pattern makes every newline a piece of its own
  Result<std::unique_ptr<Tokenizer>> deepseek = Tokenizer::FromSpec(spec);
  ASSERT_TRUE(deepseek.ok()) << deepseek.status().ToString();
  EXPECT_EQ((*deepseek)->pre_tokenizer(), PreTokenizerKind::kDeepseekLlm);
  EXPECT_EQ((*deepseek)->encode("\n\nab", false, false), (Ids{'\n', '\n', 256}));
}

TEST(TokenizerTest, ParsesControlTokensOnlyWhenAsked) {
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromSpec(tiny_bpe_spec());
  ASSERT_TRUE(tokenizer.ok());
  const Tokenizer& t = **tokenizer;
  EXPECT_EQ(t.encode("ab<|im_end|>", false, true), (Ids{256, 257}));
  const Ids plain = t.encode("ab<|im_end|>", false, false);
  EXPECT_EQ(plain.size(), 11u);  // "ab" + ten single-byte tokens
  EXPECT_EQ(t.decode(plain), "ab<|im_end|>");
  EXPECT_EQ(t.decode(Ids{256, 257, 256}, /*skip_special=*/true), "abab");
}

TEST(TokenizerTest, LoadsTheSameTokenizerFromAWrittenGguf) {
  const std::string path = "/tmp/strata_tokenizer_test_" + std::to_string(getpid()) + ".gguf";
  GgufWriter writer;
  add_tokenizer_spec(tiny_bpe_spec(), &writer);
  ASSERT_TRUE(writer.write(path).ok());
  Result<GgufFile> gguf = GgufFile::Open(path);
  ASSERT_TRUE(gguf.ok()) << gguf.status().ToString();
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromGguf(*gguf);
  std::remove(path.c_str());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  EXPECT_EQ((*tokenizer)->encode("abab<|im_end|>", false, true), (Ids{256, 256, 257}));
  EXPECT_EQ((*tokenizer)->eos(), 259);
  EXPECT_EQ((*tokenizer)->pre_tokenizer(), PreTokenizerKind::kQwen2);
}

TEST(TokenizerTest, ReportsAFileWithoutTokenizer) {
  const std::string path = "/tmp/strata_tokenizer_none_" + std::to_string(getpid()) + ".gguf";
  GgufWriter writer;
  writer.set("general.architecture", GgufValue::String("llama"));
  ASSERT_TRUE(writer.write(path).ok());
  Result<GgufFile> gguf = GgufFile::Open(path);
  ASSERT_TRUE(gguf.ok());
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromGguf(*gguf);
  std::remove(path.c_str());
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_EQ(tokenizer.status().code(), Code::kNotFound);
  EXPECT_NE(tokenizer.status().message().find("tokenizer.ggml.model"), std::string::npos);
}

TEST(TokenizerTest, LlamaAddsBosAndASpacePrefixThatDecodeRemoves) {
  std::unique_ptr<Tokenizer> t = load_shared_tokenizer("ggml-vocab-llama-spm.gguf");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->add_bos());
  EXPECT_FALSE(t->add_eos());
  EXPECT_TRUE(t->add_space_prefix());
  EXPECT_EQ(t->bos(), 1);
  EXPECT_EQ(t->eos(), 2);
  const Ids ids = t->encode("Hello world", true, false);
  EXPECT_EQ(ids, (Ids{1, 15043, 3186}));
  EXPECT_EQ(t->decode(ids, /*skip_special=*/true), "Hello world");
  EXPECT_EQ(t->decode(ids), "<s>Hello world");
  DecodeOptions keep;
  keep.skip_special = true;
  keep.strip_space_prefix = false;
  EXPECT_EQ(t->decode(ids, keep), " Hello world");
  EXPECT_TRUE(t->is_eog(2));
  EXPECT_FALSE(t->is_eog(1));
}

TEST(TokenizerTest, LlamaPrefixesTextAfterAParsedSpecialToken) {
  std::unique_ptr<Tokenizer> t = load_shared_tokenizer("ggml-vocab-llama-spm.gguf");
  ASSERT_NE(t, nullptr);
  const Ids ids = t->encode("Hello</s>world", false, true);
  EXPECT_EQ(ids, (Ids{15043, 2, 3186}));
  EXPECT_EQ(t->decode(ids), "Hello</s>world");
  EXPECT_EQ(t->encode("<s>", false, false).front(), t->find_token("\xE2\x96\x81<"));
}

TEST(TokenizerTest, PiecesAreTheBytesTokensStandFor) {
  std::unique_ptr<Tokenizer> llama = load_shared_tokenizer("ggml-vocab-llama-spm.gguf");
  ASSERT_NE(llama, nullptr);
  EXPECT_EQ(llama->token_to_piece(15043), " Hello");
  EXPECT_EQ(llama->token_to_piece(13), "\n");  // <0x0A>
  EXPECT_EQ(llama->token_text(13), "<0x0A>");
  EXPECT_EQ(llama->token_to_piece(-1), "");
  EXPECT_EQ(llama->token_to_piece(llama->n_vocab()), "");
  std::unique_ptr<Tokenizer> gpt2 = load_shared_tokenizer("ggml-vocab-gpt-2.gguf");
  ASSERT_NE(gpt2, nullptr);
  const int32_t the = gpt2->find_token("\xC4\xA0the");  // "Ġthe"
  ASSERT_GE(the, 0);
  EXPECT_EQ(gpt2->token_to_piece(the), " the");
  EXPECT_EQ(gpt2->token_to_piece(50256), "<|endoftext|>");
  EXPECT_FALSE(gpt2->add_bos());
  EXPECT_TRUE(gpt2->is_eog(50256));
  EXPECT_EQ(gpt2->n_vocab(), 50257);
}

TEST(TokenizerTest, DecodeSkipsIdsOutOfRange) {
  std::unique_ptr<Tokenizer> gpt2 = load_shared_tokenizer("ggml-vocab-gpt-2.gguf");
  ASSERT_NE(gpt2, nullptr);
  const Ids ids = gpt2->encode("hi", false, false);
  Ids with_bad = {-7};
  with_bad.insert(with_bad.end(), ids.begin(), ids.end());
  with_bad.push_back(1 << 30);
  EXPECT_EQ(gpt2->decode(with_bad), "hi");
}

TEST(TokenizerTest, ConcurrentEncodesAgreeWithSerialOnes) {
  std::unique_ptr<Tokenizer> gpt2 = load_shared_tokenizer("ggml-vocab-gpt-2.gguf");
  ASSERT_NE(gpt2, nullptr);
  std::vector<std::string> texts;
  for (int i = 0; i < 64; ++i) texts.push_back("text " + std::to_string(i * 7919) + " über 🚀 <|endoftext|>\n\t  x");
  std::vector<Ids> serial;
  for (const std::string& text : texts) serial.push_back(gpt2->encode(text, false, true));
  std::vector<std::vector<Ids>> parallel(4, std::vector<Ids>(texts.size()));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < parallel.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (size_t i = 0; i < texts.size(); ++i) parallel[t][i] = gpt2->encode(texts[i], false, true);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::vector<Ids>& results : parallel) EXPECT_EQ(results, serial);
}

}  // namespace
}  // namespace strata
