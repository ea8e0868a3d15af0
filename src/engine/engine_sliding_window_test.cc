// Exactness on generated models with sliding-window layers: Gemma 3 (a 256-key window in 5 of
// its 6 layers, Q4_K weights), gpt-oss (a 128-key window in every other layer, attention
// sinks, experts with biases, Q8_0 weights), Phi-3 (a 256-key window in every layer, fused
// q/k/v and gate/up tensors, Q4_K weights), Gemma 2 (a 256-key window in every other layer,
// soft-capped scores and logits, Q8_0 weights) and Command R7B (a 256-key window in 3 of every 4
// layers, the 4th without rope; layer norms, parallel blocks, Q4_K weights) and Gemma 4 (a 256-key
// window in 5 of its 6 layers, whose K/V heads differ from the full layer's, Q4_K weights), Step
// 3.5 (more heads where it slides, head gates, Q8_0) and Cohere's MoE (North's layout over 5
// layers: a 128-key window in layers 1-3, a dense full layer with rope first, a full one without
// rope last, sigmoid experts, parallel blocks, Q8_0) and Laguna (Step 3.5's layer kinds with
// softplus head gates, Q8_0).
// Prompts far past the window give, batched in 4
// slots through two pipeline stages, from the prefix cache (also after a restart, from parked
// blocks), with speculative decoding and in prompt chunks smaller than the window, the tokens
// and logits bytes they give alone. All but Phi-3 keep their sliding layers' K/V in a pool of
// its own that holds each slot's window only (kvcache/window_blocks.h); the tight-pool cases
// make sequences take over the blocks others have just passed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "base/thread_pool.h"
#include "engine/engine_test_util.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/test_model.h"
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
  int tight_kv_mib;  // a --kv-cache-mib whose window pool holds little more than two slots' windows
};

// The engine's output for r equals, to the bit, the logits of the model's own forward over a
// contiguous cache that keeps every position of every layer (the prompt in one batch, then one
// token at a time).
void expect_own_forward(const std::string& path, const GenerateRequest& r, const Output& out) {
  auto model = Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const Model& m = **model;
  const int n_vocab = m.hparams().n_vocab;
  const int n_prompt = static_cast<int>(r.prompt_tokens.size());
  const int n_tokens = n_prompt + static_cast<int>(out.tokens.size()) + 1;
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF16, 16), 1, n_tokens).value());
  auto scratch = m.make_scratch(n_prompt, n_tokens);
  ThreadPool pool(2);
  std::vector<Row> rows;
  for (int i = 0; i < n_prompt; ++i) rows.push_back(Row{0, i, r.prompt_tokens[static_cast<size_t>(i)], i + 1 == n_prompt});
  std::vector<float> logits(static_cast<size_t>(n_vocab));
  for (size_t t = 0; t < out.logits.size(); ++t) {
    m.forward(rows, *kv, logits.data(), *scratch, pool);
    EXPECT_EQ(std::memcmp(out.logits[t].data(), logits.data(), sizeof(float) * n_vocab), 0) << "token " << t;
    rows = {Row{0, rows.back().pos + 1, out.tokens[t], true}};
  }
}

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

// The window pool gives back what a sequence's next rows can no longer read, and another
// sequence takes it over at once (a pool of little more than two windows): the request still
// gets, to the bit, the logits of the model's own forward over a contiguous cache that keeps
// every position (the prompt in one batch, then one token at a time).
TEST_P(SlidingWindowEngine, RequestBesideAnotherInATightPoolEqualsTheModelsOwnForward) {
  const int window = GetParam().window;
  const GenerateRequest r = make_request(window + 100, 40, 61, n_vocab_);
  EngineOptions tight = options(2, 1);
  tight.prefill_chunk = 48;
  tight.kv_cache_mib = GetParam().tight_kv_mib;
  Harness h(tight);
  ASSERT_TRUE(h.ok());
  const RequestId id = h.submit(r);
  h.submit(make_request(window + 150, 40, 62, n_vocab_));
  const Output out = h.wait(id);
  ASSERT_EQ(out.logits.size(), 40u);

  expect_own_forward(path_, r, out);
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

// With a small K/V budget the sliding-window layers' pool holds little more than the two slots'
// windows, so the windows of earlier requests are evicted while later ones look for them:
// each request resumes only a prefix whose window is still held (or none), and still gives
// its solo bytes.
TEST_P(SlidingWindowEngine, RequestsSharingAPrefixMatchSoloWhenTheWindowPoolIsTight) {
  const int window = GetParam().window;
  const GenerateRequest base = make_request(window + 60, 6, 91, n_vocab_);
  std::vector<GenerateRequest> rs;
  for (int i = 0; i < 4; ++i) {
    GenerateRequest r = base;
    for (int t = 0; t < 20 + 40 * i; ++t) r.prompt_tokens.push_back((30 + 7 * i + t) % n_vocab_);
    rs.push_back(r);
  }
  rs.push_back(base);
  GenerateRequest longer = rs[1];
  for (int t = 0; t < 150; ++t) longer.prompt_tokens.push_back((200 + t) % n_vocab_);
  rs.push_back(longer);
  std::vector<Output> solo;
  for (const auto& r : rs) solo.push_back(run_solo(r, options(1, 1)));
  EngineOptions tight = options(2, 1);
  tight.prefill_chunk = 48;
  tight.kv_cache_mib = GetParam().tight_kv_mib;
  Harness h(tight);
  ASSERT_TRUE(h.ok());
  std::vector<RequestId> ids;
  for (const auto& r : rs) ids.push_back(h.submit(r));
  int cached_tokens = 0;
  for (size_t i = 0; i < rs.size(); ++i) {
    Output out = h.wait(ids[i]);
    expect_identical(out, solo[i], GetParam().arch + std::string(" tight ") + std::to_string(i));
    cached_tokens += out.done.cached_tokens;
  }
  EXPECT_GT(cached_tokens, 0);
  const KvStats kv = h.engine().snapshot().kv;
  if (kv.window_blocks_total > 0) EXPECT_GT(kv.evictions, 0u);
}

// Drafted rows past the window's last accepted position are written into window blocks and
// taken back when rejected; the blocks a sequence drops follow its accepted length only.
TEST_P(SlidingWindowEngine, SpeculativeDecodingPastTheWindowMatchesSolo) {
  const int window = GetParam().window;
  GenerateRequest r = make_request(17, 48, 33, n_vocab_);
  while (static_cast<int>(r.prompt_tokens.size()) < window + 40) {
    r.prompt_tokens.push_back(r.prompt_tokens[1 + r.prompt_tokens.size() % 16]);
  }
  const Output solo = run_solo(r, options(1, 1));
  EngineOptions spec = options(2, 1);
  spec.spec.method = "ngram";
  spec.spec.max_draft_tokens = 5;
  Harness h(spec);
  ASSERT_TRUE(h.ok());
  GenerateRequest other = make_request(window + 10, 20, 34, n_vocab_);
  const RequestId id = h.submit(r);
  h.submit(other);
  expect_identical(h.wait(id), solo, std::string(GetParam().arch) + " speculative");
  EXPECT_GT(h.engine().snapshot().spec.draft_tokens, 0u);
}

// Shutdown parks every cached block, the sliding-window layers' as their own files; a new
// engine on the same directory resumes the follow-up from them.
TEST_P(SlidingWindowEngine, FollowUpAfterARestartResumesFromParkedBlocks) {
  const int window = GetParam().window;
  const fs::path dir = fs::path(::testing::TempDir()) / ("engine_window_park_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  GenerateRequest first = make_request(window + 44, 4, 92, n_vocab_);
  GenerateRequest follow = first;
  for (int i = 0; i < 24; ++i) follow.prompt_tokens.push_back(40 + i);
  const Output solo = run_solo(follow, options(1, 1));
  EngineOptions parked = options(1, 1);
  parked.park_dir = dir.string();
  {
    Harness h(parked);
    ASSERT_TRUE(h.ok());
    h.wait(h.submit(first));
  }
  int n_window_files = 0;
  for (const auto& e : fs::directory_iterator(dir)) n_window_files += e.path().extension() == ".kvw";
  Harness h(parked);
  ASSERT_TRUE(h.ok());
  const Output out = h.wait(h.submit(follow));
  expect_identical(out, solo, std::string(GetParam().arch) + " parked");
  EXPECT_GE(out.done.cached_tokens, window + 32);
  if (h.engine().snapshot().kv.window_blocks_total > 0) EXPECT_GT(n_window_files, 0);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Models, SlidingWindowEngine,
                         ::testing::Values(WindowModel{"gemma3", "small", 6, DType::kQ4_K, 256, 2},
                                           WindowModel{"gpt-oss", "moe-tiny", 3, DType::kQ8_0, 128, 1},
                                           WindowModel{"phi3", "small", 3, DType::kQ4_K, 256, 2},
                                           WindowModel{"gemma2", "small", 4, DType::kQ8_0, 256, 2},
                                           WindowModel{"cohere2", "small", 4, DType::kQ4_K, 256, 2},
                                           WindowModel{"gemma4", "small", 6, DType::kQ4_K, 256, 2},
                                           WindowModel{"step35", "moe-tiny", 4, DType::kQ8_0, 128, 1},
                                           WindowModel{"cohere2_moe", "moe-tiny", 5, DType::kQ8_0, 128, 1},
                                           WindowModel{"laguna", "moe-tiny", 4, DType::kQ8_0, 128, 1},
                                           WindowModel{"mimo2", "moe-tiny", 6, DType::kQ8_0, 128, 1}),
                         [](const ::testing::TestParamInfo<WindowModel>& info) {
                           const std::string arch = info.param.arch;
                           if (arch == "gpt-oss") return std::string("GptOss");
                           if (arch == "cohere2") return std::string("Cohere2");
                           if (arch == "gemma4") return std::string("Gemma4");
                           if (arch == "step35") return std::string("Step35");
                           if (arch == "cohere2_moe") return std::string("Cohere2Moe");
                           if (arch == "laguna") return std::string("Laguna");
                           if (arch == "mimo2") return std::string("Mimo2");
                           return std::string(arch == "phi3" ? "Phi3" : arch == "gemma2" ? "Gemma2" : "Gemma3");
                         });

// Llama 4's chunked layers (3 of every 4; a row reads its own chunk of 40 keys here) keep their
// K/V in the window pool too, holding the blocks of the chunk their next rows are in. In a pool
// little larger than two slots' chunks, beside another request, a request still equals the
// model's own forward, and a follow-up resumes from the prefix cache with its solo bytes.
TEST(ChunkedAttentionEngine, RequestsInATightPoolEqualTheModelsOwnForwardAndSolo) {
  const std::string path =
      (fs::path(::testing::TempDir()) / ("engine_chunked_" + std::to_string(::getpid()) + ".gguf")).string();
  ASSERT_TRUE(write_generated_model("llama4", path, [](TestModelSpec& spec) {
                spec.n_ctx = 4096;
                spec.attn_chunk = 40;
              }).ok());
  EngineOptions o;
  o.model_path = path;
  o.n_parallel = 2;
  o.n_threads = 2;
  o.n_ctx = 4096;
  o.prefill_chunk = 48;
  o.kv_cache_mib = 1;
  const GenerateRequest r = make_request(150, 40, 81);
  GenerateRequest follow = make_request(190, 12, 82);
  {
    Harness h(o);
    ASSERT_TRUE(h.ok());
    const KvStats kv = h.engine().snapshot().kv;
    EXPECT_EQ(kv.window_tokens, 40);
    EXPECT_GT(kv.window_blocks_total, 0);
    const RequestId id = h.submit(r);
    const RequestId other = h.submit(follow);
    const Output out = h.wait(id);
    h.wait(other);
    expect_own_forward(path, r, out);
    EXPECT_GT(h.engine().snapshot().kv.evictions, 0u);
  }
  follow.prompt_tokens = r.prompt_tokens;
  for (int i = 0; i < 30; ++i) follow.prompt_tokens.push_back(10 + i);
  EngineOptions solo = o;
  solo.n_parallel = 1;
  solo.kv_cache_mib = 0;
  const Output want = run_solo(follow, solo);
  Harness h(o);
  ASSERT_TRUE(h.ok());
  h.wait(h.submit(r));
  const Output got = h.wait(h.submit(follow));
  expect_identical(got, want, "llama4 chunked follow-up");
  EXPECT_GE(got.done.cached_tokens, 144);
  fs::remove(path);
}

}  // namespace
}  // namespace strata::testing
