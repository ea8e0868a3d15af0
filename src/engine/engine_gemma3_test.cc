// Exactness on a generated Gemma 3 model (a 256-key sliding window in 5 of its 6 layers,
// Q4_K weights): prompts far past the window give, batched in 4 slots through two pipeline
// stages, from the prefix cache and in prompt chunks smaller than the window, the tokens and
// logits bytes they give alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "engine/engine_test_util.h"
#include "modelgen/model_generator.h"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;

class Gemma3Engine : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    path_ = (fs::path(::testing::TempDir()) / ("engine_gemma3_small_" + std::to_string(::getpid()) + ".gguf")).string();
    GenerateOptions o;
    o.preset = "small";
    o.arch = "gemma3";
    o.n_layers = 6;
    o.type = DType::kQ4_K;
    o.seed = 5;
    o.out_path = path_;
    o.n_threads = 1;
    auto r = generate_model(o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->spec.sliding_window, 256);
    n_vocab_ = r->spec.n_vocab;
  }
  static void TearDownTestSuite() { fs::remove(path_); }
  static EngineOptions options(int parallel, int stages) {
    EngineOptions o;
    o.model_path = path_;
    o.n_parallel = parallel;
    o.n_stages = stages;
    o.n_threads = 2;
    return o;
  }
  static std::string path_;
  static int n_vocab_;
};

std::string Gemma3Engine::path_;
int Gemma3Engine::n_vocab_ = 0;

TEST_F(Gemma3Engine, PromptsPastTheWindowMatchSoloInSlotsAndStages) {
  std::vector<GenerateRequest> rs;
  for (int i = 0; i < 4; ++i) {
    rs.push_back(make_request(240 + 37 * i, 24, 70 + i, n_vocab_));
    rs.back().sampling.temperature = i % 2 ? 0.8f : 0.0f;
    rs.back().sampling.seed = i;
  }
  std::vector<Output> solo;
  for (const auto& r : rs) solo.push_back(run_solo(r, options(1, 1)));
  EngineOptions batched = options(4, 2);
  batched.prefill_chunk = 48;
  Harness h(batched);
  ASSERT_TRUE(h.ok());
  std::vector<RequestId> ids;
  for (const auto& r : rs) ids.push_back(h.submit(r));
  for (size_t i = 0; i < rs.size(); ++i) expect_identical(h.wait(ids[i]), solo[i], "gemma3 " + std::to_string(i));
}

TEST_F(Gemma3Engine, FollowUpFromThePrefixCacheMatchesSolo) {
  GenerateRequest first = make_request(300, 4, 91, n_vocab_);
  GenerateRequest follow = first;
  for (int i = 0; i < 40; ++i) follow.prompt_tokens.push_back(20 + i);
  Output solo = run_solo(follow, options(1, 1));
  Harness h(options(2, 1));
  ASSERT_TRUE(h.ok());
  h.wait(h.submit(first));
  Output out = h.wait(h.submit(follow));
  expect_identical(out, solo, "gemma3 prefix cache");
  EXPECT_GE(out.done.cached_tokens, 288);
}

}  // namespace
}  // namespace strata::testing
