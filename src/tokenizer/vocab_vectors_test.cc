// The tokenizer test vectors shipped with the shared vocab files: every input must give exactly
// the expected ids (no BOS), and decode back to itself.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenizer/test_vocab.h"

namespace strata {
namespace {

std::string format_ids(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) out += " " + std::to_string(id);
  return out;
}

void check_vectors(const std::string& file) {
  std::unique_ptr<Tokenizer> tokenizer = load_shared_tokenizer(file);
  ASSERT_NE(tokenizer, nullptr);
  const std::vector<std::string> inputs = read_vocab_inputs(file);
  const std::vector<std::vector<int32_t>> expected = read_vocab_expected(file);
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
