// The three tiny mixture-of-experts files in ../shared/models/moe (Mixtral-style llama,
// qwen2moe, qwen3moe) against their golden figures, which come from an independent float64
// forward pass confirmed by a peer engine: greedy ids and the top-5 logits after the prompt,
// for the fast forward pass and for this project's float64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/reference_forward.h"

namespace strata {
namespace {

const std::string kMoe = std::string(STRATA_SHARED_DIR) + "/models/moe/";

class MoeGolden : public ::testing::TestWithParam<const char*> {
 protected:
  std::string file() const { return kMoe + GetParam() + ".gguf"; }
  nlohmann::json golden() const {
    std::ifstream in(kMoe + GetParam() + ".golden.json");
    return nlohmann::json::parse(in);
  }
};

// Feeds the prompt token by token, then greedy-decodes n_new tokens; *last_prompt_logits
// gets the logits after the prompt.
std::vector<int32_t> greedy(const Model& m, const std::vector<int32_t>& prompt, int n_new,
                            std::vector<float>* last_prompt_logits) {
  const int n_vocab = m.hparams().n_vocab;
  const int n_ctx = static_cast<int>(prompt.size()) + n_new;
  auto kv = ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, n_ctx);
  EXPECT_TRUE(kv.ok()) << kv.status().ToString();
  auto scratch = m.make_scratch(1, n_ctx);
  ThreadPool pool(2);
  std::vector<float> logits(static_cast<size_t>(n_vocab));
  std::vector<int32_t> out;
  int32_t token = prompt[0];
  for (int pos = 0; pos + 1 < n_ctx; ++pos) {
    Row row{0, pos, token, true};
    m.forward({&row, 1}, **kv, logits.data(), *scratch, pool);
    if (pos + 1 < static_cast<int>(prompt.size())) {
      token = prompt[static_cast<size_t>(pos) + 1];
      continue;
    }
    if (pos + 1 == static_cast<int>(prompt.size())) *last_prompt_logits = logits;
    token = kernels::argmax(logits.data(), n_vocab);
    out.push_back(token);
  }
  return out;
}

template <typename T>
void expect_top5(const std::vector<T>& logits, const nlohmann::json& top5, double tolerance) {
  std::vector<int> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + 5, order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(order[i], top5[i][0].get<int>()) << "rank " << i;
    EXPECT_NEAR(logits[top5[i][0].get<size_t>()], top5[i][1].get<double>(), tolerance) << "rank " << i;
  }
}

TEST_P(MoeGolden, FastForwardGivesTheGoldenGreedyIdsAndLogits) {
  const nlohmann::json g = golden();
  auto model = Model::Load(file());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_TRUE((*model)->hparams().is_moe());
  const auto expected = g["greedy_ids"].get<std::vector<int32_t>>();
  std::vector<float> logits;
  EXPECT_EQ(greedy(**model, g["prompt_ids"].get<std::vector<int32_t>>(), static_cast<int>(expected.size()), &logits),
            expected);
  expect_top5(logits, g["top5_at_last_prompt_pos"], 1e-3);
}

TEST_P(MoeGolden, Float64ReferenceGivesTheGoldenGreedyIdsAndLogits) {
  const nlohmann::json g = golden();
  auto gguf = GgufFile::Open(file());
  ASSERT_TRUE(gguf.ok()) << gguf.status().ToString();
  auto ref = testing::ReferenceForward::Load(*gguf);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  const auto prompt = g["prompt_ids"].get<std::vector<int32_t>>();
  std::vector<double> logits;
  for (int32_t t : prompt) logits = ref->step(t);
  expect_top5(logits, g["top5_at_last_prompt_pos"], 1e-9);
  std::vector<int32_t> out;
  for (size_t i = 0; i < g["greedy_ids"].size(); ++i) {
    out.push_back(static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    logits = ref->step(out.back());
  }
  EXPECT_EQ(out, g["greedy_ids"].get<std::vector<int32_t>>());
}

INSTANTIATE_TEST_SUITE_P(Files, MoeGolden, ::testing::Values("tiny-mixtral", "tiny-qwen2moe", "tiny-qwen3moe"));

}  // namespace
}  // namespace strata
