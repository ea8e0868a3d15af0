// Speculative decoding changes no output: every request run with drafts (n-gram lookup, or a
// bench-style drafter whose guesses are right, wrong, or wrong at a chosen place) gives the
// same tokens and the same logits bytes as the same request alone without speculation.
// Runs on the dense stories260K model, on a tiny qwen3moe file (routed experts) and on a
// generated Qwen3.5 and Kimi Linear (hybrids: a rejected draft puts the delta-net or KDA state
// back and recomputes).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "engine/engine_test_util.h"
#include "engine/spec_draft_model.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"

namespace strata::testing {
namespace {

// BOS, then a phrase of `period` token ids repeated: prompt lookup finds matches at once.
GenerateRequest repetitive_request(int n_prompt, int period, int max_tokens, uint32_t seed) {
  GenerateRequest r = make_request(period + 1, max_tokens, seed);
  for (int i = static_cast<int>(r.prompt_tokens.size()); i < n_prompt; ++i) {
    r.prompt_tokens.push_back(r.prompt_tokens[1 + (i - 1) % period]);
  }
  return r;
}

GenerateRequest sampled(GenerateRequest r, uint64_t seed) {
  r.sampling.temperature = 0.7f;
  r.sampling.seed = seed;
  return r;
}

// The continuations of plain solo runs, by prompt, for drafters that replay them.
class Continuations {
 public:
  void add(const GenerateRequest& r, const Output& out) {
    std::vector<int32_t> all = r.prompt_tokens;
    all.insert(all.end(), out.tokens.begin(), out.tokens.end());
    std::lock_guard<std::mutex> lock(mu_);
    known_.push_back(std::move(all));
  }
  // Drafts what followed `tokens` in the recorded run of request `id` (a fresh engine numbers
  // requests 1, 2, ... in the order they were added here), with the draft at position
  // (id + tokens.size()) % corrupt_every replaced by a wrong token when corrupt_every > 0.
  int draft(uint64_t id, std::span<const int32_t> tokens, std::span<int32_t> out, int corrupt_every) {
    std::lock_guard<std::mutex> lock(mu_);
    if (id < 1 || id > known_.size()) return 0;
    const std::vector<int32_t>& k = known_[id - 1];
    if (k.size() <= tokens.size() || !std::equal(tokens.begin(), tokens.end(), k.begin())) return 0;
    const size_t n = std::min(out.size(), k.size() - tokens.size());
    std::copy_n(k.begin() + static_cast<long>(tokens.size()), n, out.begin());
    if (corrupt_every > 0 && n > 0) {
      const size_t at = (id + tokens.size()) % static_cast<size_t>(corrupt_every);
      if (at < n) out[at] = out[at] == 7 ? 8 : 7;
    }
    return static_cast<int>(n);
  }

 private:
  std::mutex mu_;
  std::vector<std::vector<int32_t>> known_;
};

constexpr std::string_view kGenerated = "generated/";

// The model under test: a file in ../shared/models, or "generated/ARCH", the engine tests'
// generated model of that architecture (write_generated_model).
class EngineSpec : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!GetParam().starts_with(kGenerated)) return;
    const std::string arch = GetParam().substr(kGenerated.size());
    generated_ = (std::filesystem::path(::testing::TempDir()) /
                  ("engine_spec_" + arch + "_" + std::to_string(::getpid()) + ".gguf"))
                     .string();
    const Status st = write_generated_model(arch, generated_);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  void TearDown() override {
    if (!generated_.empty()) std::filesystem::remove(generated_);
  }
  bool hybrid() const { return GetParam() == "generated/qwen35" || GetParam() == "generated/kimi-linear"; }
  std::string model_path() const {
    return generated_.empty() ? std::string(STRATA_SHARED_DIR) + "/models/" + GetParam() : generated_;
  }
  std::string generated_;
  EngineOptions options(int parallel, int prefill_chunk = 256) const {
    EngineOptions o;
    o.model_path = model_path();
    o.n_parallel = parallel;
    o.prefill_chunk = prefill_chunk;
    o.n_threads = 1;
    return o;
  }
  std::vector<Output> solo_runs(const std::vector<GenerateRequest>& rs) const {
    EngineOptions base;
    base.model_path = model_path();
    std::vector<Output> out;
    for (const auto& r : rs) out.push_back(run_solo(r, base));
    return out;
  }
  // Submits all at once and checks each against its plain solo run; returns the snapshot.
  EngineSnapshot expect_all_match(EngineOptions o, const std::vector<GenerateRequest>& rs,
                                  const std::vector<Output>& solo, const std::string& what) {
    Harness h(o);
    EXPECT_TRUE(h.ok());
    if (!h.ok()) return {};
    std::vector<RequestId> ids;
    for (const auto& r : rs) ids.push_back(h.submit(r));
    for (size_t i = 0; i < rs.size(); ++i) expect_identical(h.wait(ids[i]), solo[i], what + " request " + std::to_string(i));
    // After shutdown every step has been reported to the observer.
    h.engine().shutdown(10.0);
    EngineSnapshot snap = h.engine().snapshot();
    // The steps' counts add up to the engine's totals and to the requests' records.
    SpecCounts steps, records;
    std::lock_guard<std::mutex> lock(h.observer().mu);
    for (const StepRecord& s : h.observer().steps) {
      steps.drafts += s.spec.drafts;
      steps.draft_tokens += s.spec.draft_tokens;
      steps.accepted_tokens += s.spec.accepted_tokens;
    }
    for (const RequestRecord& r : h.observer().records) {
      records.drafts += r.spec.drafts;
      records.draft_tokens += r.spec.draft_tokens;
      records.accepted_tokens += r.spec.accepted_tokens;
    }
    EXPECT_EQ(steps.drafts, snap.spec.drafts) << what;
    EXPECT_EQ(steps.draft_tokens, snap.spec.draft_tokens) << what;
    EXPECT_EQ(steps.accepted_tokens, snap.spec.accepted_tokens) << what;
    EXPECT_EQ(records.draft_tokens, snap.spec.draft_tokens) << what;
    EXPECT_EQ(records.accepted_tokens, snap.spec.accepted_tokens) << what;
    uint64_t per_pos_sum = 0;
    for (uint64_t n : snap.spec_accepted_per_pos) per_pos_sum += n;
    EXPECT_EQ(per_pos_sum, snap.spec.accepted_tokens) << what;
    return snap;
  }
};

std::vector<GenerateRequest> mixed_requests() {
  std::vector<GenerateRequest> rs;
  rs.push_back(repetitive_request(40, 5, 48, 11));
  rs.push_back(sampled(repetitive_request(33, 3, 40, 12), 99));
  rs.push_back(make_request(21, 30, 13));                     // nothing to look up at first
  rs.push_back(sampled(repetitive_request(57, 7, 36, 14), 7));
  GenerateRequest plain = repetitive_request(26, 4, 30, 15);
  plain.speculative_tokens = 0;                                // shares windows, never drafts
  rs.push_back(plain);
  // The first request's prompt again: its blocks come from the prefix cache.
  rs.push_back(sampled(repetitive_request(40, 5, 25, 11), 5));
  return rs;
}

TEST_P(EngineSpec, NgramLookupGivesTheSameBitsGreedyAndSampled) {
  const std::vector<GenerateRequest> rs = mixed_requests();
  const std::vector<Output> solo = solo_runs(rs);
  EngineOptions o = options(4, 16);  // chunked prefill: prompts read 16 rows at a time
  o.spec.method = "ngram";
  o.spec.max_draft_tokens = 4;
  EngineSnapshot snap = expect_all_match(o, rs, solo, "ngram");
  EXPECT_GT(snap.spec.drafts, 0u);
  // A generated model's random weights never continue the prompt's phrase: no guess is right.
  if (generated_.empty()) EXPECT_GT(snap.spec.accepted_tokens, 0u);
  EXPECT_LT(snap.spec.accepted_tokens, snap.spec.draft_tokens);
}

TEST_P(EngineSpec, ReplayedContinuationsAreAllAccepted) {
  const std::vector<GenerateRequest> rs = mixed_requests();
  const std::vector<Output> solo = solo_runs(rs);
  Continuations known;
  for (size_t i = 0; i < rs.size(); ++i) known.add(rs[i], solo[i]);
  EngineOptions o = options(3, 16);
  o.spec.max_draft_tokens = 5;
  o.spec.drafter = [&](uint64_t id, std::span<const int32_t> t, std::span<int32_t> out) {
    return known.draft(id, t, out, 0);
  };
  EngineSnapshot snap = expect_all_match(o, rs, solo, "replay");
  EXPECT_GT(snap.spec.draft_tokens, 0u);
  EXPECT_EQ(snap.spec.accepted_tokens, snap.spec.draft_tokens);
  ASSERT_EQ(snap.spec_accepted_per_pos.size(), 5u);
  EXPECT_GT(snap.spec_accepted_per_pos[4], 0u);
}

TEST_P(EngineSpec, DraftsWrongAtAnyPositionLeaveNoTrace) {
  // Every draft is right up to one wrong token whose place moves from step to step, so each
  // draft position gets rejected with the rows after it (K/V written, then rolled back).
  const std::vector<GenerateRequest> rs = mixed_requests();
  const std::vector<Output> solo = solo_runs(rs);
  Continuations known;
  for (size_t i = 0; i < rs.size(); ++i) known.add(rs[i], solo[i]);
  EngineOptions o = options(4, 16);
  o.spec.max_draft_tokens = 6;
  o.spec.drafter = [&](uint64_t id, std::span<const int32_t> t, std::span<int32_t> out) {
    return known.draft(id, t, out, 7);
  };
  EngineSnapshot snap = expect_all_match(o, rs, solo, "corrupted drafts");
  EXPECT_GT(snap.spec.accepted_tokens, 0u);
  EXPECT_LT(snap.spec.accepted_tokens, snap.spec.draft_tokens);
}

TEST_P(EngineSpec, DraftsThroughTwoStagesAndPipelinedGroups) {
  // Each group's window carries its own slots' drafts through both stages.
  const std::vector<GenerateRequest> rs = mixed_requests();
  const std::vector<Output> solo = solo_runs(rs);
  Continuations known;
  for (size_t i = 0; i < rs.size(); ++i) known.add(rs[i], solo[i]);
  EngineOptions o = options(4, 16);
  o.n_stages = 2;
  o.n_groups = 2;
  o.n_threads = 2;
  o.join_groups = false;
  o.spec.max_draft_tokens = 3;
  o.spec.drafter = [&](uint64_t id, std::span<const int32_t> t, std::span<int32_t> out) {
    return known.draft(id, t, out, 4);
  };
  EngineSnapshot snap = expect_all_match(o, rs, solo, "pipelined");
  EXPECT_GT(snap.spec.accepted_tokens, 0u);
  EXPECT_LT(snap.spec.accepted_tokens, snap.spec.draft_tokens);
}

TEST_P(EngineSpec, ADraftModelEqualToTheModelIsAlwaysRightWhenGreedy) {
  std::vector<GenerateRequest> greedy = {repetitive_request(30, 4, 40, 21), make_request(17, 33, 22),
                                         make_request(45, 20, 23)};
  const std::vector<Output> solo = solo_runs(greedy);
  EngineOptions o = options(2, 16);
  o.spec.draft_model_path = model_path();
  o.spec.max_draft_tokens = 4;
  if (hybrid()) {
    // A draft model rewinds its own sequence to the common prefix, which a recurrent state
    // cannot: refused by name (a hybrid target drafts with n-gram lookup or another model).
    auto engine = Engine::Create(o);
    ASSERT_FALSE(engine.ok());
    EXPECT_NE(engine.status().message().find("draft model is not supported"), std::string::npos)
        << engine.status().ToString();
    return;
  }
  EngineSnapshot snap = expect_all_match(o, greedy, solo, "draft model, greedy");
  EXPECT_GT(snap.spec.draft_tokens, 0u);
  EXPECT_EQ(snap.spec.accepted_tokens, snap.spec.draft_tokens);
  // Sampled requests: the greedy guesses are often wrong, and the output stays the same.
  const std::vector<GenerateRequest> rs = mixed_requests();
  expect_all_match(o, rs, solo_runs(rs), "draft model, mixed");
}

INSTANTIATE_TEST_SUITE_P(Models, EngineSpec,
                         ::testing::Values("stories260K.gguf", "moe/tiny-qwen3moe.gguf", "generated/qwen35",
                                           "generated/kimi-linear"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(info.param.find('/') + 1);
                           name = name.substr(0, name.find('.'));
                           for (char& c : name) c = c == '-' || c == '.' ? '_' : c;
                           return name;
                         });

// A hybrid target (Qwen3.5) drafted for by another model of its vocabulary (stories260K):
// mostly wrong guesses, each rejection putting the delta-net state back, and the same bits.
TEST(EngineSpecOptions, AHybridModelDraftedForByAnotherModelGivesTheSameBits) {
  const std::string path = ::testing::TempDir() + "/engine_spec_hybrid_target_" + std::to_string(::getpid()) + ".gguf";
  ASSERT_TRUE(write_generated_model("qwen35", path).ok());
  const std::vector<GenerateRequest> rs = {make_request(21, 24, 31), make_request(40, 16, 32)};
  EngineOptions base;
  base.model_path = path;
  std::vector<Output> solo;
  for (const auto& r : rs) solo.push_back(run_solo(r, base));
  EngineOptions o = base;
  o.n_parallel = 2;
  o.n_threads = 1;
  o.prefill_chunk = 16;
  o.spec.draft_model_path = stories_path();
  o.spec.max_draft_tokens = 3;
  {
    Harness h(o);
    ASSERT_TRUE(h.ok());
    std::vector<RequestId> ids;
    for (const auto& r : rs) ids.push_back(h.submit(r));
    for (size_t i = 0; i < rs.size(); ++i) expect_identical(h.wait(ids[i]), solo[i], "request " + std::to_string(i));
    h.engine().shutdown(10.0);
    EXPECT_GT(h.engine().snapshot().spec.draft_tokens, 0u);
  }
  std::filesystem::remove(path);
}

TEST(EngineSpecOptions, AnUnknownDrafterIsRefusedByName) {
  EngineOptions o;
  o.model_path = stories_path();
  o.spec.method = "medusa";
  auto e = Engine::Create(o);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("--spec medusa"), std::string::npos) << e.status().ToString();
  o.spec.method = "ngram";
  o.spec.max_draft_tokens = 0;
  e = Engine::Create(o);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("--spec-tokens 0"), std::string::npos) << e.status().ToString();
}

// A GGUF file holding only a vocabulary, in the test's temporary directory.
GgufFile vocabulary_file(const std::string& name, const std::vector<std::string>& tokens) {
  const std::string path = ::testing::TempDir() + "/spec_vocab_" + name + ".gguf";
  GgufWriter w;
  w.set("tokenizer.ggml.tokens", GgufValue::StringArray(tokens));
  EXPECT_TRUE(w.write(path).ok());
  auto f = GgufFile::Open(path);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return std::move(f).value();
}

TEST(EngineSpecOptions, ADraftModelNeedsTheSameVocabulary) {
  const GgufFile target = vocabulary_file("target", {"<unk>", "a", "b"});
  EXPECT_TRUE(check_same_vocabulary(target, vocabulary_file("same", {"<unk>", "a", "b"})).ok());
  Status shorter = check_same_vocabulary(target, vocabulary_file("shorter", {"<unk>", "a"}));
  EXPECT_NE(shorter.message().find("2 tokens"), std::string::npos) << shorter.ToString();
  Status other = check_same_vocabulary(target, vocabulary_file("other", {"<unk>", "a", "c"}));
  EXPECT_NE(other.message().find("token 2"), std::string::npos) << other.ToString();
}

TEST(EngineSpecOptions, AnotherModelDraftingGivesTheSameBits) {
  // tiny-qwen3moe shares stories260K's vocabulary but not its weights: most guesses are wrong.
  const std::vector<GenerateRequest> rs = mixed_requests();
  std::vector<Output> solo;
  for (const auto& r : rs) solo.push_back(run_solo(r));
  EngineOptions o;
  o.model_path = stories_path();
  o.n_parallel = 3;
  o.n_threads = 1;
  o.prefill_chunk = 16;
  o.spec.draft_model_path = std::string(STRATA_SHARED_DIR) + "/models/moe/tiny-qwen3moe.gguf";
  Harness h(o);
  ASSERT_TRUE(h.ok());
  std::vector<RequestId> ids;
  for (const auto& r : rs) ids.push_back(h.submit(r));
  for (size_t i = 0; i < rs.size(); ++i) expect_identical(h.wait(ids[i]), solo[i], "tiny-qwen3moe drafts " + std::to_string(i));
  EXPECT_GT(h.engine().snapshot().spec.draft_tokens, 0u);
}

TEST(EngineSpecOptions, ARequestThatTurnsSpeculationOffNeverDrafts) {
  EngineOptions o;
  o.model_path = stories_path();
  o.n_threads = 1;
  o.spec.method = "ngram";
  Harness h(o);
  ASSERT_TRUE(h.ok());
  GenerateRequest r = repetitive_request(30, 3, 20, 3);
  r.speculative_tokens = 0;
  h.wait(h.submit(r));
  EXPECT_EQ(h.engine().snapshot().spec.draft_tokens, 0u);
  r.speculative_tokens = 2;  // at most two drafts per step
  h.wait(h.submit(r));
  EngineSnapshot snap = h.engine().snapshot();
  EXPECT_GT(snap.spec.drafts, 0u);
  EXPECT_LE(snap.spec.draft_tokens, 2 * snap.spec.drafts);
}

}  // namespace
}  // namespace strata::testing
