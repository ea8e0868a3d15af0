// Every output is bit-identical (tokens and logits) to the same request alone in a fresh
// engine with one slot, one stage and one group. Each test runs on the dense stories260K model,
// on the three tiny mixture-of-experts files (Mixtral-style, qwen2moe, qwen3moe), whose rows
// meet in routed experts as well as in the matmuls, and on generated GLM-4.5-style (sigmoid
// routing with a selection bias, an ungated shared expert, a dense first layer), Llama 4-style
// models (attention in chunks of 10 keys, a layer without rope, experts weighted on their input)
// and Qwen3.5-style hybrids (three delta-net layers, then attention) and Granite 4.0-H-style ones
// (Mamba-2 layers around attention without rope, experts beside a shared one) and Nemotron-H-style
// ones (Mamba-2, attention and squared-ReLU feed-forward layers), whose prefix-cache tests
// resume from recurrent-state snapshots, a Gemma 4 E2B-style model (per-layer inputs, sliding
// and full heads of two shapes, its last layers reading earlier layers' K/V), and Ling 3.0- and
// Kimi Linear-style ones (Kimi Delta Attention layers, then latent attention).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>

#include "engine/engine_test_util.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/test_model.h"
#include "tensor/dtype.h"

namespace strata::testing {
namespace {

enum class Windows { kJoined, kPipelined };

EngineOptions base_options(int parallel, int stages, int groups, Windows windows) {
  EngineOptions o;
  o.n_parallel = parallel;
  o.n_stages = stages;
  o.n_groups = groups;
  o.join_groups = windows == Windows::kJoined;
  o.n_threads = stages;
  return o;
}

std::vector<GenerateRequest> requests(int n, int max_tokens) {
  std::vector<GenerateRequest> out;
  for (int i = 0; i < n; ++i) out.push_back(make_request(5 + 7 * i, max_tokens, 100 + i));
  return out;
}

// What the windows of a run held at most.
struct WindowPeaks {
  int decode_rows = 0;
  int groups = 0;  // groups with rows in one window
};

// Submits all requests at once and checks each against its solo run.
WindowPeaks expect_all_match_solo(EngineOptions o, const std::vector<GenerateRequest>& rs, const std::string& what) {
  std::vector<Output> solo;
  EngineOptions solo_base;
  solo_base.model_path = o.model_path;
  for (const auto& r : rs) solo.push_back(run_solo(r, solo_base));
  Harness h(o);
  EXPECT_TRUE(h.ok());
  if (!h.ok()) return {};
  std::vector<RequestId> ids;
  for (const auto& r : rs) ids.push_back(h.submit(r));
  for (size_t i = 0; i < rs.size(); ++i) expect_identical(h.wait(ids[i]), solo[i], what + " request " + std::to_string(i));
  WindowPeaks peaks;
  peaks.groups = h.observer().max_groups_per_window();
  std::lock_guard<std::mutex> lock(h.observer().mu);
  for (const StepRecord& s : h.observer().steps) peaks.decode_rows = std::max(peaks.decode_rows, s.n_decode_rows);
  return peaks;
}

constexpr std::string_view kGenerated = "generated/";

// The model under test: a file in ../shared/models, or "generated/ARCH-TYPE", a test model
// written for the test (4 layers 128 wide, experts of 128, with stories260K's vocabulary) in Q8_0,
// or in another type 256 wide (whole super-blocks: BitNet's TQ2_0).
class EngineExactness : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!GetParam().starts_with(kGenerated)) return;
    const size_t dash = GetParam().rfind('-');
    const std::string arch = GetParam().substr(kGenerated.size(), dash - kGenerated.size());
    const std::optional<DType> type = dtype_from_name(GetParam().substr(dash + 1));
    ASSERT_TRUE(type.has_value()) << GetParam();
    generated_ = (std::filesystem::path(::testing::TempDir()) /
                  ("engine_exactness_" + arch + "_" + std::to_string(::getpid()) + ".gguf"))
                     .string();
    const Status st = write_generated_model(arch, generated_, [&](TestModelSpec& spec) {
      if (*type == DType::kQ8_0) return;
      spec.type = *type;
      spec.n_embd = 256;
      spec.n_ff = 512;
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  void TearDown() override {
    if (!generated_.empty()) std::filesystem::remove(generated_);
  }
  std::string model_path() const {
    return generated_.empty() ? std::string(STRATA_SHARED_DIR) + "/models/" + GetParam() : generated_;
  }
  EngineOptions options(int parallel, int stages = 1, int groups = 0, Windows windows = Windows::kJoined) const {
    EngineOptions o = base_options(parallel, stages, groups, windows);
    o.model_path = model_path();
    return o;
  }
  Output run_solo(const GenerateRequest& r) const {
    EngineOptions base;
    base.model_path = model_path();
    return testing::run_solo(r, base);
  }
  std::string generated_;
};

TEST(EngineExactnessGolden, GreedyMatchesTheGoldenContinuation) {
  std::ifstream f(std::string(STRATA_SHARED_DIR) + "/models/stories260K.golden.json");
  nlohmann::json golden = nlohmann::json::parse(f);
  GenerateRequest r;
  r.prompt_tokens = golden["prompt_ids_with_bos"].get<std::vector<int32_t>>();
  r.max_tokens = 30;
  Harness h(base_options(1, 1, 0, Windows::kJoined));
  Output out = h.wait(h.submit(r));
  auto want = golden["greedy_continuation_ids"].get<std::vector<int32_t>>();
  want.resize(30);
  EXPECT_EQ(out.tokens, want);
  EXPECT_EQ(out.done.finish, FinishReason::kLength);
  EXPECT_EQ(out.done.completion_tokens, 30);
}

// The engine's paged cache, slots and windows add nothing: a request alone gives the logits of
// the model's own forward pass over a contiguous cache (the prompt in one batch, then one token
// at a time), to the bit.
TEST_P(EngineExactness, SoloRunEqualsTheModelsOwnForward) {
  const GenerateRequest r = make_request(9, 6, 42);
  const Output solo = run_solo(r);
  ASSERT_TRUE(solo.finished);
  ASSERT_EQ(solo.logits.size(), 6u);
  auto model = Model::Load(model_path());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const Model& m = **model;
  const int n_vocab = m.hparams().n_vocab;
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF16, 16), 1, 64).value());
  auto scratch = m.make_scratch(16, 64);
  ThreadPool pool(2);
  std::vector<Row> rows;
  for (size_t i = 0; i < r.prompt_tokens.size(); ++i) {
    rows.push_back(Row{0, static_cast<int>(i), r.prompt_tokens[i], i + 1 == r.prompt_tokens.size()});
  }
  std::vector<float> logits(static_cast<size_t>(rows.size()) * n_vocab);
  for (size_t t = 0; t < solo.logits.size(); ++t) {
    m.forward(rows, *kv, logits.data(), *scratch, pool);  // logits of the rows that want them, in order
    ASSERT_EQ(solo.logits[t].size(), static_cast<size_t>(n_vocab));
    EXPECT_EQ(std::memcmp(solo.logits[t].data(), logits.data(), sizeof(float) * n_vocab), 0) << "token " << t;
    rows = {Row{0, rows.back().pos + 1, solo.tokens[t], true}};
  }
}

TEST_P(EngineExactness, EightSlotsAllActive) {
  // Long enough generations that all eight decode together in some window.
  EXPECT_EQ(expect_all_match_solo(options(8), requests(8, 40), "8 of 8").decode_rows, 8);
}

TEST_P(EngineExactness, ThreeOfEightSlotsActive) {
  // Idle slots add no rows: no window ever holds more than the three active slots.
  EXPECT_LE(expect_all_match_solo(options(8), requests(3, 12), "3 of 8").decode_rows, 3);
}

TEST_P(EngineExactness, TwoStagesTwoGroupsPipelined) {
  // Each group's window holds only its own slots (4 of 8) and flows through the stages.
  WindowPeaks p = expect_all_match_solo(options(8, 2, 2, Windows::kPipelined), requests(6, 10), "S2 G2 pipelined");
  EXPECT_LE(p.decode_rows, 4);
  EXPECT_EQ(p.groups, 1);
}

TEST_P(EngineExactness, TwoStagesFourGroupsPipelined) {
  WindowPeaks p = expect_all_match_solo(options(8, 2, 4, Windows::kPipelined), requests(8, 10), "S2 G4 pipelined");
  EXPECT_LE(p.decode_rows, 2);
  EXPECT_EQ(p.groups, 1);
}

TEST_P(EngineExactness, TwoStagesTwoGroupsJoined) {
  // The allocator spreads the six requests over both groups; joined windows hold both.
  WindowPeaks p = expect_all_match_solo(options(8, 2, 2), requests(6, 40), "S2 G2 joined");
  EXPECT_EQ(p.decode_rows, 6);
  EXPECT_EQ(p.groups, 2);
}

TEST_P(EngineExactness, TwoStagesFourGroupsJoined) {
  WindowPeaks p = expect_all_match_solo(options(8, 2, 4), requests(8, 40), "S2 G4 joined");
  EXPECT_EQ(p.decode_rows, 8);
  EXPECT_EQ(p.groups, 4);
}

TEST_P(EngineExactness, StaggeredAdmissionsWhileOthersDecode) {
  auto rs = requests(5, 14);
  std::vector<Output> solo;
  for (const auto& r : rs) solo.push_back(run_solo(r));
  for (Windows windows : {Windows::kJoined, Windows::kPipelined}) {
    const std::string what = windows == Windows::kJoined ? "staggered, joined " : "staggered, pipelined ";
    Harness h(options(4, 2, 2, windows));
    std::vector<RequestId> ids;
    for (size_t i = 0; i < rs.size(); ++i) {
      ids.push_back(h.submit(rs[i]));
      h.wait_tokens(ids.back(), 3);  // the next one arrives while this one decodes
    }
    for (size_t i = 0; i < rs.size(); ++i) expect_identical(h.wait(ids[i]), solo[i], what + std::to_string(i));
  }
}

TEST_P(EngineExactness, CancellingOneRequestLeavesTheOthersExactAndFreesItsSlot) {
  // The cancelled request's slot is in the same window as the others (joined) or in the
  // other group's window, possibly in flight when the cancel arrives (pipelined).
  const GenerateRequest keep = make_request(12, 24, 41);
  const GenerateRequest after = make_request(9, 6, 43);
  const Output keep_solo = run_solo(keep), after_solo = run_solo(after);
  for (Windows windows : {Windows::kJoined, Windows::kPipelined}) {
    const std::string what = windows == Windows::kJoined ? "joined" : "pipelined";
    Harness h(options(2, 2, 2, windows));
    RequestId doomed = h.submit(make_request(10, 1500, 42));
    RequestId kept = h.submit(keep);
    h.wait_tokens(doomed, 3);
    h.engine().cancel(doomed);
    EXPECT_EQ(h.wait(doomed).done.finish, FinishReason::kAbort) << what;
    expect_identical(h.wait(kept), keep_solo, what + ": the request beside it");
    // Both slots are free again (2 slots): a new request runs, exactly.
    expect_identical(h.wait(h.submit(after)), after_solo, what + ": the request in the freed slot");
  }
}

TEST_P(EngineExactness, LongPromptReadInChunksBesideDecodingSlots) {
  EngineOptions o = options(3);
  o.prefill_chunk = 8;
  // The decoding requests could run to the end of the context; they are cancelled once the
  // long prompt is done, and compared with solo runs of as many tokens as they produced.
  auto decoding = requests(2, 1900);
  GenerateRequest long_prompt = make_request(150, 6, 7);
  Harness h(o);
  std::vector<RequestId> ids;
  for (const auto& r : decoding) ids.push_back(h.submit(r));
  h.wait_tokens(ids[0], 2);
  h.wait_tokens(ids[1], 2);
  Output long_out = h.wait(h.submit(long_prompt));
  for (RequestId id : ids) h.engine().cancel(id);
  expect_identical(long_out, run_solo(long_prompt), "chunked prompt");
  for (size_t i = 0; i < decoding.size(); ++i) {
    Output got = h.wait(ids[i]);
    EXPECT_EQ(got.done.finish, FinishReason::kAbort);
    GenerateRequest shorter = decoding[i];
    shorter.max_tokens = static_cast<int>(got.tokens.size());
    Output want = run_solo(shorter);
    got.done = want.done;  // only the finish reason differs
    expect_identical(got, want, "decoding beside");
  }
  std::lock_guard<std::mutex> lock(h.observer().mu);
  int mixed = 0;
  for (const StepRecord& s : h.observer().steps) {
    EXPECT_LE(s.n_prefill_rows, 8);
    if (s.n_prefill_rows > 0 && s.n_decode_rows == 2) ++mixed;
  }
  EXPECT_GE(mixed, 150 / 8);  // the prompt was read in chunks while both others decoded
}

TEST_P(EngineExactness, SeededSamplingMatchesSoloInEveryConfiguration) {
  auto rs = requests(6, 16);
  for (size_t i = 0; i < rs.size(); ++i) {
    rs[i].sampling.temperature = 0.9f;
    rs[i].sampling.top_k = 40;
    rs[i].sampling.top_p = 0.95f;
    rs[i].sampling.seed = 1000 + i;
    rs[i].sampling.repeat_penalty = 1.1f;
  }
  expect_all_match_solo(options(6), rs, "seeded, 1 stage");
  expect_all_match_solo(options(6, 2, 2), rs, "seeded, S2 G2 joined");
  expect_all_match_solo(options(6, 2, 2, Windows::kPipelined), rs, "seeded, S2 G2 pipelined");
  // The draw really depends on the seed.
  GenerateRequest other = rs[0];
  other.sampling.seed = 7;
  EXPECT_NE(run_solo(other).tokens, run_solo(rs[0]).tokens);
}

TEST_P(EngineExactness, PromptPartlyFromThePrefixCache) {
  GenerateRequest first = make_request(70, 8, 11);
  GenerateRequest follow = first;
  for (int i = 0; i < 20; ++i) follow.prompt_tokens.push_back(40 + i);
  Output solo = run_solo(follow);
  Harness h(options(2));
  h.wait(h.submit(first));
  Output out = h.wait(h.submit(follow));
  expect_identical(out, solo, "prefix cache");
  EXPECT_EQ(out.done.cached_tokens, 64);  // 4 full blocks of the 70-token first prompt
  EngineSnapshot snap = h.engine().snapshot();
  EXPECT_EQ(snap.kv.prefix_hit_tokens, 64u);
  EXPECT_GT(snap.kv.bytes_reused, 0u);
}

TEST_P(EngineExactness, TheSamePromptAgainReusesAllButItsLastBlock) {
  // 64 tokens: the last must be computed for its logits, so 3 blocks serve (a hybrid model's
  // state snapshot at 48, its prompt point, where the prompt's chunking stopped).
  GenerateRequest r = make_request(64, 6, 41);
  Harness h(options(2));
  Output first = h.wait(h.submit(r));
  Output again = h.wait(h.submit(r));
  expect_identical(again, first, "the same prompt again");
  EXPECT_EQ(again.done.cached_tokens, 48);
}

TEST_P(EngineExactness, FollowUpRepeatingTheReplyResumesWithinIt) {
  // A chat's next turn: the first prompt, the reply, then new tokens. The reply's positions
  // 40..68 were computed one decode step at a time, so blocks up to 64 (and, for a hybrid model,
  // the state snapshot at the boundary 64 its decode reached) serve the follow-up.
  GenerateRequest first = make_request(40, 30, 31);
  Harness h(options(2));
  Output reply = h.wait(h.submit(first));
  ASSERT_EQ(reply.tokens.size(), 30u);
  GenerateRequest follow = first;
  follow.prompt_tokens.insert(follow.prompt_tokens.end(), reply.tokens.begin(), reply.tokens.end());
  for (int i = 0; i < 10; ++i) follow.prompt_tokens.push_back(60 + i);
  Output out = h.wait(h.submit(follow));
  expect_identical(out, run_solo(follow), "follow-up");
  EXPECT_EQ(out.done.cached_tokens, 64);
}

TEST_P(EngineExactness, ConcurrentRequestsShareAPrefixComputedBySlotZero) {
  GenerateRequest base = make_request(48, 20, 21);
  std::vector<GenerateRequest> rs;
  for (int i = 0; i < 3; ++i) {
    GenerateRequest r = base;
    r.prompt_tokens.push_back(100 + i);
    rs.push_back(r);
  }
  std::vector<Output> solo;
  for (const auto& r : rs) solo.push_back(run_solo(r));
  Harness h(options(4));
  RequestId first = h.submit(rs[0]);
  h.wait_tokens(first, 1);  // slot 0 has read (and published) the shared blocks
  RequestId second = h.submit(rs[1]);
  RequestId third = h.submit(rs[2]);
  expect_identical(h.wait(first), solo[0], "first");
  Output b = h.wait(second);
  expect_identical(b, solo[1], "second");
  expect_identical(h.wait(third), solo[2], "third");
  EXPECT_EQ(b.done.cached_tokens, 48);
}

TEST_P(EngineExactness, RequestsSubmittedTogetherReadTheirSharedPromptOnce) {
  // OpenAI's n: choices with one prompt and their own seeds, all submitted at once. The first
  // reads the prompt; the others wait for its blocks instead of reading them again beside it.
  GenerateRequest base = make_request(49, 12, 23);
  base.sampling.temperature = 1.0f;
  std::vector<GenerateRequest> rs;
  for (int i = 0; i < 3; ++i) {
    GenerateRequest r = base;
    r.sampling.seed = 500 + i;
    rs.push_back(r);
  }
  std::vector<Output> solo;
  for (const auto& r : rs) solo.push_back(run_solo(r));
  Harness h(options(4));
  std::vector<RequestId> ids;
  for (const auto& r : rs) ids.push_back(h.submit(r));
  for (int i = 0; i < 3; ++i) {
    Output out = h.wait(ids[i]);
    expect_identical(out, solo[i], "choice " + std::to_string(i));
    if (i > 0) EXPECT_EQ(out.done.cached_tokens, 48) << "choice " << i;
  }
  int prompt_rows = 0;
  for (const StepRecord& step : h.observer().steps) prompt_rows += step.n_prefill_rows;
  EXPECT_EQ(prompt_rows, 49 + 1 + 1);  // the prompt once, then each other choice's last token
}

INSTANTIATE_TEST_SUITE_P(Models, EngineExactness,
                         ::testing::Values("stories260K.gguf", "moe/tiny-mixtral.gguf", "moe/tiny-qwen2moe.gguf",
                                           "moe/tiny-qwen3moe.gguf", "generated/glm4moe-q8_0",
                                           "generated/llama4-q8_0", "generated/deepseek2-q8_0",
                                           "generated/qwen35-q8_0", "generated/qwen35moe-q8_0",
                                           "generated/gemma4-e2b-q8_0", "generated/gemma3n-q8_0", "generated/deci-q8_0",
                                           "generated/granitehybrid-q8_0", "generated/nemotron_h-q8_0",
                                           "generated/nemotron_h_moe-q8_0", "generated/lfm2moe-q8_0", "generated/falcon-h1-q8_0",
                                           "generated/bitnet-b1.58-tq2_0", "generated/bailingmoe3-q8_0",
                                           "generated/kimi-linear-q8_0"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(info.param.find('/') + 1);
                           if (name.ends_with(".gguf")) name.resize(name.size() - 5);
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace strata::testing
