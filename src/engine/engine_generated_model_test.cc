// Exactness on a generated model of another family (qwen3: QK-norm, NeoX rope) with Q8_0
// weights and Q8_0 K/V (head_dim 32), through two pipeline stages.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "engine/engine_test_util.h"
#include "modelgen/model_generator.h"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;

class GeneratedModel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    path_ = (fs::path(::testing::TempDir()) / ("engine_qwen3_small_" + std::to_string(::getpid()) + ".gguf")).string();
    GenerateOptions o;
    o.preset = "small";
    o.arch = "qwen3";
    o.type = DType::kQ8_0;
    o.seed = 3;
    o.out_path = path_;
    o.n_threads = 1;
    auto r = generate_model(o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    n_vocab_ = r->spec.n_vocab;
  }
  static void TearDownTestSuite() { fs::remove(path_); }
  EngineOptions options(int parallel, int stages, const std::string& kv_type) {
    EngineOptions o;
    o.model_path = path_;
    o.n_parallel = parallel;
    o.n_stages = stages;
    o.n_threads = stages;
    o.kv_type = kv_type;
    return o;
  }
  static std::string path_;
  static int n_vocab_;
};

std::string GeneratedModel::path_;
int GeneratedModel::n_vocab_ = 0;

TEST_F(GeneratedModel, Q8KvThroughTwoStagesMatchesSolo) {
  std::vector<GenerateRequest> rs;
  for (int i = 0; i < 4; ++i) {
    rs.push_back(make_request(9 + 11 * i, 8, 40 + i, n_vocab_));
    rs.back().sampling.temperature = i % 2 ? 0.7f : 0.0f;
    rs.back().sampling.seed = i;
  }
  std::vector<Output> solo;
  for (const auto& r : rs) solo.push_back(run_solo(r, options(1, 1, "q8_0")));
  Harness h(options(4, 2, "q8_0"));
  ASSERT_TRUE(h.ok());
  std::vector<RequestId> ids;
  for (const auto& r : rs) ids.push_back(h.submit(r));
  for (size_t i = 0; i < rs.size(); ++i) expect_identical(h.wait(ids[i]), solo[i], "qwen3 q8_0 " + std::to_string(i));
}

TEST_F(GeneratedModel, KvTypeChangesTheLogits) {
  // The K/V type is really applied: F32 and Q8_0 storage give different logits.
  GenerateRequest r = make_request(40, 3, 9, n_vocab_);
  Output q8 = run_solo(r, options(1, 1, "q8_0"));
  Output f32 = run_solo(r, options(1, 1, "f32"));
  ASSERT_EQ(q8.logits.size(), f32.logits.size());
  EXPECT_NE(std::memcmp(q8.logits[0].data(), f32.logits[0].data(), q8.logits[0].size() * sizeof(float)), 0);
}

TEST_F(GeneratedModel, PrefixCacheWithQ8Kv) {
  GenerateRequest first = make_request(50, 4, 12, n_vocab_);
  GenerateRequest follow = first;
  for (int i = 0; i < 10; ++i) follow.prompt_tokens.push_back(10 + i);
  Output solo = run_solo(follow, options(1, 1, "q8_0"));
  Harness h(options(2, 1, "q8_0"));
  h.wait(h.submit(first));
  Output out = h.wait(h.submit(follow));
  expect_identical(out, solo, "q8_0 prefix cache");
  EXPECT_EQ(out.done.cached_tokens, 48);
}

}  // namespace
}  // namespace strata::testing
