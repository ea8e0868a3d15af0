// The real stories260K model against figures from two independent public implementations
// (../shared/models/stories260K.golden.json): greedy continuation and logits.
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

namespace strata {
namespace {

const std::string kModels = std::string(STRATA_SHARED_DIR) + "/models/";

nlohmann::json golden() {
  std::ifstream in(kModels + "stories260K.golden.json");
  return nlohmann::json::parse(in);
}

// Feeds the prompt token by token, then greedy-decodes n_new tokens. Keeps the logits of
// every prompt position in *prompt_logits when given.
std::vector<int32_t> greedy(const std::string& file, const std::vector<int32_t>& prompt, int n_new, DType kv_type,
                            std::vector<std::vector<float>>* prompt_logits) {
  auto model = Model::Load(kModels + file);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return {};
  const Model& m = **model;
  const int n_vocab = m.hparams().n_vocab;
  const int n_ctx = static_cast<int>(prompt.size()) + n_new;
  auto kv = ContiguousKv::Create(m.kv_layout(kv_type, 16), 1, n_ctx);
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
      if (prompt_logits != nullptr) prompt_logits->push_back(logits);
      token = prompt[static_cast<size_t>(pos) + 1];
      continue;
    }
    if (prompt_logits != nullptr && pos + 1 == static_cast<int>(prompt.size())) prompt_logits->push_back(logits);
    token = kernels::argmax(logits.data(), n_vocab);
    out.push_back(token);
  }
  return out;
}

TEST(GoldenTest, Stories260KGreedyContinuationAndLogitsMatchReference) {
  const nlohmann::json g = golden();
  const auto prompt = g["prompt_ids_with_bos"].get<std::vector<int32_t>>();
  const auto expected = g["greedy_continuation_ids"].get<std::vector<int32_t>>();
  ASSERT_EQ(expected.size(), 60u);
  std::vector<std::vector<float>> logits;
  EXPECT_EQ(greedy("stories260K.gguf", prompt, 60, DType::kF32, &logits), expected);
  ASSERT_EQ(logits.size(), prompt.size());

  for (const auto& [key, pos] : {std::pair<std::string, int>{"pos0_input_bos", 0}, {"pos4_input_time", 4}}) {
    SCOPED_TRACE(key);
    const nlohmann::json& ref = g["logits"][key];
    const std::vector<float>& l = logits[static_cast<size_t>(pos)];
    for (const auto& entry : ref["top5"]) {
      EXPECT_NEAR(l[entry[0].get<size_t>()], entry[1].get<double>(), 1e-4) << "token " << entry[0];
    }
    // The top 5 are the largest logits, in order.
    std::vector<int> order(l.size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 5, order.end(), [&](int a, int b) { return l[a] > l[b]; });
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(order[i], ref["top5"][i][0].get<int>());
    EXPECT_NEAR(l[0], ref["logit_0"].get<double>(), 1e-4);
    // 512 logits each within ~1e-5 of the reference.
    EXPECT_NEAR(std::accumulate(l.begin(), l.end(), 0.0), ref["sum_all"].get<double>(), 1e-2);
  }
}

TEST(GoldenTest, F16KvCacheGivesTheSameGreedyText) {
  const nlohmann::json g = golden();
  EXPECT_EQ(greedy("stories260K.gguf", g["prompt_ids_with_bos"].get<std::vector<int32_t>>(), 60, DType::kF16, nullptr),
            g["greedy_continuation_ids"].get<std::vector<int32_t>>());
}

TEST(GoldenTest, F16WeightsGiveTheSameGreedyText) {
  const nlohmann::json g = golden();
  EXPECT_EQ(greedy("stories260K-f16.gguf", g["prompt_ids_with_bos"].get<std::vector<int32_t>>(), 60, DType::kF16,
                   nullptr),
            g["greedy_continuation_ids"].get<std::vector<int32_t>>());
}

TEST(GoldenTest, MixedQuantisedWeightsGiveTheSameGreedyText) {
  const nlohmann::json g = golden();
  EXPECT_EQ(greedy("stories260K-q4_k_m-fallback.gguf", g["prompt_ids_with_bos"].get<std::vector<int32_t>>(), 60,
                   DType::kF16, nullptr),
            g["greedy_continuation_ids"].get<std::vector<int32_t>>());
}

}  // namespace
}  // namespace strata
