// Exactness on generated models with sliding-window layers: Gemma 3 (a 256-key window in 5 of
// its 6 layers, Q4_K weights), gpt-oss (a 128-key window in every other layer, attention
// sinks, experts with biases, Q8_0 weights), Phi-3 (a 256-key window in every layer, fused
// q/k/v and gate/up tensors, Q4_K weights) and Gemma 2 (a 256-key window in every other layer,
// soft-capped scores and logits, Q8_0 weights). Prompts far past the window give, batched in 4
// slots through two pipeline stages, from the prefix cache and in prompt chunks smaller than
// the window, the tokens and logits bytes they give alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "engine/engine_test_util.h"
#include "modelgen/model_generator.h"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;

struct WindowModel {
  const char* arch;
  const char* preset;
  int n_layers;
  DType type;
  int window;
};

class SlidingWindowEngine : public ::testing::TestWithParam<WindowModel> {
 protected:
  void SetUp() override {
    const WindowModel& w = GetParam();
    path_ = (fs::path(::testing::TempDir()) /
             ("engine_window_" + std::string(w.preset) + "_" + std::to_string(::getpid()) + ".gguf"))
                .string();
    GenerateOptions o;
    o.preset = w.preset;
    o.arch = w.arch;
    o.n_layers = w.n_layers;
    o.type = w.type;
    o.seed = 5;
    o.out_path = path_;
    o.n_threads = 1;
    auto r = generate_model(o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->spec.sliding_window, w.window);
    n_vocab_ = r->spec.n_vocab;
  }
  void TearDown() override { fs::remove(path_); }
  EngineOptions options(int parallel, int stages) const {
    EngineOptions o;
    o.model_path = path_;
    o.n_parallel = parallel;
    o.n_stages = stages;
    o.n_threads = 2;
    return o;
  }
  std::string path_;
  int n_vocab_ = 0;
};

TEST_P(SlidingWindowEngine, PromptsPastTheWindowMatchSoloInSlotsAndStages) {
  const int window = GetParam().window;
  std::vector<GenerateRequest> rs;
  for (int i = 0; i < 4; ++i) {
    rs.push_back(make_request(window - 16 + 37 * i, 24, 70 + i, n_vocab_));
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
  for (size_t i = 0; i < rs.size(); ++i) expect_identical(h.wait(ids[i]), solo[i], GetParam().arch + std::to_string(i));
}

TEST_P(SlidingWindowEngine, FollowUpFromThePrefixCacheMatchesSolo) {
  const int window = GetParam().window;
  GenerateRequest first = make_request(window + 44, 4, 91, n_vocab_);
  GenerateRequest follow = first;
  for (int i = 0; i < 40; ++i) follow.prompt_tokens.push_back(20 + i);
  Output solo = run_solo(follow, options(1, 1));
  Harness h(options(2, 1));
  ASSERT_TRUE(h.ok());
  h.wait(h.submit(first));
  Output out = h.wait(h.submit(follow));
  expect_identical(out, solo, std::string(GetParam().arch) + " prefix cache");
  EXPECT_GE(out.done.cached_tokens, window + 32);
}

INSTANTIATE_TEST_SUITE_P(Models, SlidingWindowEngine,
                         ::testing::Values(WindowModel{"gemma3", "small", 6, DType::kQ4_K, 256},
                                           WindowModel{"gpt-oss", "moe-tiny", 3, DType::kQ8_0, 128},
                                           WindowModel{"phi3", "small", 3, DType::kQ4_K, 256},
                                           WindowModel{"gemma2", "small", 4, DType::kQ8_0, 256}),
                         [](const ::testing::TestParamInfo<WindowModel>& info) {
                           const std::string arch = info.param.arch;
                           if (arch == "gpt-oss") return std::string("GptOss");
                           return std::string(arch == "phi3" ? "Phi3" : arch == "gemma2" ? "Gemma2" : "Gemma3");
                         });

}  // namespace
}  // namespace strata::testing
