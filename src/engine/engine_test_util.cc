#include "engine/engine_test_util.h"

#include <random>


namespace strata::testing {

GenerateRequest make_request(int n_prompt, int max_tokens, uint32_t seed, int n_vocab) {
  std::mt19937 rng(seed);
  GenerateRequest r;
  r.prompt_tokens.push_back(1);  // BOS
  for (int i = 1; i < n_prompt; ++i) r.prompt_tokens.push_back(3 + static_cast<int32_t>(rng() % static_cast<uint32_t>(n_vocab - 3)));
  r.max_tokens = max_tokens;
  r.ignore_eos = true;
  return r;
}

Output run_solo(const GenerateRequest& r, EngineOptions base) {
  base.n_parallel = 1;
  base.n_stages = 1;
  base.n_groups = 1;
  base.park_dir.clear();
  Harness h(base);
  if (!h.ok()) return {};
  return h.wait(h.submit(r));
}

void expect_identical(const Output& got, const Output& want, const std::string& what) {
  ASSERT_TRUE(got.finished) << what;
  ASSERT_TRUE(want.finished) << what;
  EXPECT_EQ(got.tokens, want.tokens) << what;
  ASSERT_EQ(got.logits.size(), want.logits.size()) << what;
  for (size_t i = 0; i < got.logits.size(); ++i) {
    ASSERT_EQ(got.logits[i].size(), want.logits[i].size()) << what;
    EXPECT_EQ(std::memcmp(got.logits[i].data(), want.logits[i].data(), got.logits[i].size() * sizeof(float)), 0)
        << what << ": logits of token " << i << " differ";
  }
  EXPECT_EQ(got.text, want.text) << what;
}

Status write_generated_model(const std::string& arch, const std::string& path,
                             const std::function<void(TestModelSpec&)>& adjust) {
  TestModelSpec spec;
  spec.arch = arch;
  spec.type = DType::kQ8_0;
  spec.n_layer = 4;
  spec.n_embd = 128;
  spec.n_ff = 256;
  spec.n_ff_exp = 128;
  spec.n_ff_shexp = 128;
  spec.n_vocab = 512;
  spec.n_ctx = 2048;  // stories260K's: the long-generation tests fill it
  spec.mla_kv_rank = 128;  // deepseek2: a latent row of 160, queries of 32 + 32 from 64
  spec.mla_q_rank = 64;
  spec.mla_nope = 32;
  spec.mla_v = 32;
  STRATA_RETURN_IF_ERROR(add_vocabulary_from(std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf", spec));
  if (adjust) adjust(spec);
  return write_test_model(spec, path);
}

}  // namespace strata::testing
