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

}  // namespace strata::testing
