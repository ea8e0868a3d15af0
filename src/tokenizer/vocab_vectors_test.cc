// The tokenizer test vectors shipped with the shared vocab files: every input must give exactly
// the expected ids (no BOS), and decode back to itself.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizer/test_vocab.h"

namespace strata {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Inputs are each followed by "\n__ggml_vocab_test__\n" (an input may be empty or all newlines).
std::vector<std::string> read_inputs(const std::string& path) {
  static constexpr std::string_view kSeparator = "\n__ggml_vocab_test__\n";
  const std::string text = read_file(path);
  std::vector<std::string> inputs;
  size_t begin = 0;
  for (size_t end; (end = text.find(kSeparator, begin)) != std::string::npos; begin = end + kSeparator.size()) {
    inputs.push_back(text.substr(begin, end - begin));
  }
  EXPECT_EQ(begin, text.size()) << path << ": text after the last separator";
  return inputs;
}

std::vector<std::vector<int32_t>> read_expected(const std::string& path) {
  std::istringstream in(read_file(path));
  std::vector<std::vector<int32_t>> expected;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ids(line);
    expected.emplace_back();
    for (int32_t id; ids >> id;) expected.back().push_back(id);
  }
  return expected;
}

std::string format_ids(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) out += " " + std::to_string(id);
  return out;
}

void check_vectors(const std::string& file) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer(file);
  ASSERT_NE(tokenizer, nullptr);
  const std::vector<std::string> inputs = read_inputs(shared_vocab_path(file + ".inp"));
  const std::vector<std::vector<int32_t>> expected = read_expected(shared_vocab_path(file + ".out"));
  ASSERT_EQ(inputs.size(), expected.size());
  ASSERT_GT(inputs.size(), 40u);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<int32_t> ids = tokenizer->encode(inputs[i], /*add_special=*/false, /*parse_special=*/false);
    EXPECT_EQ(ids, expected[i]) << file << " input " << i << ": " << escape_bytes(inputs[i])
                                << "\n  expected:" << format_ids(expected[i]) << "\n  got:     " << format_ids(ids);
    const std::string back = tokenizer->decode(ids);
    EXPECT_EQ(back, inputs[i]) << file << " input " << i << " does not decode back";
  }
}

TEST(VocabVectorsTest, LlamaSentencePieceMatchesEveryVector) { check_vectors("ggml-vocab-llama-spm.gguf"); }

TEST(VocabVectorsTest, Gpt2ByteLevelBpeMatchesEveryVector) { check_vectors("ggml-vocab-gpt-2.gguf"); }

}  // namespace
}  // namespace strata
