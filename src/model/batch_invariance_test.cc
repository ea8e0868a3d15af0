// Batch invariance of the whole forward pass: the logits of a sequence are bit-identical
// (memcmp) whatever shares the forward pass with it: other sequences, row order and index,
// K/V slot, prompt chunking, which rows want logits, and the thread count. Checked on
// random models of every architecture x weight type.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <ostream>
#include <string>
#include <vector>

#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/test_model.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using testing::TestModelSpec;

constexpr int kNumSeqs = 3;
constexpr int kMaxTokens = 40;

// The tokens each sequence feeds, prompt and "generated" alike (fixed, so every run of a
// sequence sees the same inputs).
std::vector<std::vector<int32_t>> make_sequences(int n_vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int32_t>> seqs;
  for (int length : {19, 7, 26}) {
    std::vector<int32_t> s(static_cast<size_t>(length));
    for (int32_t& t : s) t = static_cast<int32_t>(rng() % static_cast<uint32_t>(n_vocab));
    seqs.push_back(s);
  }
  return seqs;
}

// Logits by (sequence, position).
using LogitMap = std::map<std::pair<int, int>, std::vector<float>>;

class Runner {
 public:
  Runner(const Model& model, DType kv_type, int n_threads)
      : m_(model), pool_(n_threads), scratch_(model.make_scratch(64, kMaxTokens)) {
    kv_ = std::move(ContiguousKv::Create(model.kv_layout(kv_type, 8), kNumSeqs, kMaxTokens).value());
  }

  // One forward pass over rows (sequence `seq` stored in K/V slot slot_of[seq]).
  void step(const std::vector<Row>& logical_rows, const std::vector<int>& slot_of, LogitMap* out) {
    std::vector<Row> rows = logical_rows;
    for (Row& r : rows) r.seq = slot_of[static_cast<size_t>(r.seq)];
    const int n_vocab = m_.hparams().n_vocab;
    std::vector<float> logits(rows.size() * static_cast<size_t>(n_vocab));
    m_.forward(rows, *kv_, logits.data(), *scratch_, pool_);
    size_t k = 0;
    for (const Row& r : logical_rows) {
      if (!r.want_logits) continue;
      const float* l = logits.data() + k++ * static_cast<size_t>(n_vocab);
      (*out)[{r.seq, r.pos}] = std::vector<float>(l, l + n_vocab);
    }
  }

 private:
  const Model& m_;
  ThreadPool pool_;
  std::unique_ptr<ForwardScratch> scratch_;
  std::unique_ptr<ContiguousKv> kv_;
};

// Each sequence alone, one token per forward pass, one thread: the baseline.
LogitMap run_alone(const Model& m, DType kv_type, const std::vector<std::vector<int32_t>>& seqs) {
  LogitMap out;
  Runner runner(m, kv_type, 1);
  for (int s = 0; s < static_cast<int>(seqs.size()); ++s) {
    for (int pos = 0; pos < static_cast<int>(seqs[s].size()); ++pos) {
      runner.step({Row{s, pos, seqs[s][pos], true}}, {0, 0, 0}, &out);
    }
  }
  return out;
}

// All sequences interleaved: each step takes a random chunk (1..12 rows) of a random subset
// of the unfinished sequences, shuffles the rows and asks logits for a random subset.
LogitMap run_mixed(const Model& m, DType kv_type, const std::vector<std::vector<int32_t>>& seqs, int n_threads,
                   uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int> slot_of = {0, 1, 2};
  std::shuffle(slot_of.begin(), slot_of.end(), rng);
  Runner runner(m, kv_type, n_threads);
  std::vector<int> next(seqs.size(), 0);
  LogitMap out;
  for (bool done = false; !done;) {
    std::vector<Row> rows;
    for (int s = 0; s < static_cast<int>(seqs.size()); ++s) {
      const int left = static_cast<int>(seqs[s].size()) - next[s];
      if (left == 0 || rng() % 3 == 0) continue;
      const int chunk = std::min(left, 1 + static_cast<int>(rng() % 12));
      for (int i = 0; i < chunk; ++i, ++next[s]) rows.push_back(Row{s, next[s], seqs[s][next[s]], rng() % 4 != 0});
    }
    std::shuffle(rows.begin(), rows.end(), rng);
    if (!rows.empty()) runner.step(rows, slot_of, &out);
    done = true;
    for (size_t s = 0; s < seqs.size(); ++s) done = done && next[s] == static_cast<int>(seqs[s].size());
  }
  return out;
}

// All sequences in lockstep, one row of each unfinished one per forward pass: batches of
// decode rows only, 1-3 of them.
LogitMap run_lockstep(const Model& m, DType kv_type, const std::vector<std::vector<int32_t>>& seqs, int n_threads) {
  Runner runner(m, kv_type, n_threads);
  LogitMap out;
  for (int pos = 0;; ++pos) {
    std::vector<Row> rows;
    for (int s = 0; s < static_cast<int>(seqs.size()); ++s) {
      if (pos < static_cast<int>(seqs[s].size())) rows.push_back(Row{s, pos, seqs[s][pos], true});
    }
    if (rows.empty()) return out;
    runner.step(rows, {1, 2, 0}, &out);
  }
}

// Each sequence's whole prompt in one forward pass (all positions want logits).
LogitMap run_whole_prompts(const Model& m, DType kv_type, const std::vector<std::vector<int32_t>>& seqs) {
  Runner runner(m, kv_type, 2);
  LogitMap out;
  std::vector<Row> rows;
  for (int s = 0; s < static_cast<int>(seqs.size()); ++s) {
    for (int pos = 0; pos < static_cast<int>(seqs[s].size()); ++pos) rows.push_back(Row{s, pos, seqs[s][pos], true});
  }
  runner.step(rows, {2, 0, 1}, &out);
  return out;
}

// Each sequence's first half as one batch of all three, then the rest decoded in lockstep.
LogitMap run_prefill_then_decode(const Model& m, DType kv_type, const std::vector<std::vector<int32_t>>& seqs) {
  Runner runner(m, kv_type, 2);
  LogitMap out;
  std::vector<Row> prefill;
  for (int s = 0; s < static_cast<int>(seqs.size()); ++s) {
    const int half = static_cast<int>(seqs[s].size()) / 2;
    for (int pos = 0; pos < half; ++pos) prefill.push_back(Row{s, pos, seqs[s][pos], true});
  }
  runner.step(prefill, {0, 1, 2}, &out);
  for (int pos = 0; pos < kMaxTokens; ++pos) {
    std::vector<Row> rows;
    for (int s = 0; s < static_cast<int>(seqs.size()); ++s) {
      const int n = static_cast<int>(seqs[s].size());
      if (pos >= n / 2 && pos < n) rows.push_back(Row{s, pos, seqs[s][pos], true});
    }
    if (!rows.empty()) runner.step(rows, {0, 1, 2}, &out);
  }
  return out;
}

// Sequences restarting at position 0 in slots that held others: sequence 2's first 12
// positions in slot 0 (their logits dropped), then sequence 0 from position 0 in slot 0 beside
// sequence 1 in slot 1, in batches of up to 5 positions of each, then sequence 2 again from
// position 0 in slot 1, which sequence 1 held, in chunks of 9.
LogitMap run_restarts(const Model& m, DType kv_type, const std::vector<std::vector<int32_t>>& seqs) {
  Runner runner(m, kv_type, 2);
  LogitMap dropped, out;
  for (int pos = 0; pos < 12; ++pos) runner.step({Row{2, pos, seqs[2][pos], true}}, {0, 0, 0}, &dropped);
  std::vector<int> next = {0, 0};
  for (bool any = true; any;) {
    std::vector<Row> rows;
    for (int s = 0; s < 2; ++s) {
      const int end = std::min(static_cast<int>(seqs[s].size()), next[s] + 5);
      for (; next[s] < end; ++next[s]) rows.push_back(Row{s, next[s], seqs[s][next[s]], true});
    }
    any = !rows.empty();
    if (any) runner.step(rows, {0, 1, 0}, &out);
  }
  const int n = static_cast<int>(seqs[2].size());
  for (int first = 0; first < n; first += 9) {
    std::vector<Row> rows;
    for (int pos = first; pos < std::min(n, first + 9); ++pos) rows.push_back(Row{2, pos, seqs[2][pos], true});
    runner.step(rows, {0, 1, 1}, &out);
  }
  return out;
}

void expect_same_bits(const LogitMap& baseline, const LogitMap& other, const std::string& what) {
  ASSERT_FALSE(other.empty()) << what;
  int n_differ = 0;
  for (const auto& [key, logits] : other) {
    const std::vector<float>& base = baseline.at(key);
    if (std::memcmp(base.data(), logits.data(), base.size() * sizeof(float)) != 0) ++n_differ;
  }
  EXPECT_EQ(n_differ, 0) << what << ": " << n_differ << " of " << other.size() << " positions differ";
}

struct Case {
  std::string arch;
  DType type;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.arch << "-" << dtype_name(c.type); }

class BatchInvarianceTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-model-bi-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // tag keeps the files of several models loaded at once apart.
  std::unique_ptr<Model> load(const TestModelSpec& spec, const std::string& tag = "") {
    const std::string path = (dir_ / (testing::test_model_name(spec) + tag + ".gguf")).string();
    Status st = testing::write_test_model(spec, path);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto m = Model::Load(path);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? std::move(m).value() : nullptr;
  }

  fs::path dir_;
};

TEST_P(BatchInvarianceTest, LogitsAreIdenticalWhateverTheBatch) {
  TestModelSpec spec;
  spec.arch = GetParam().arch;
  spec.type = GetParam().type;
  std::unique_ptr<Model> m = load(spec);
  ASSERT_NE(m, nullptr);
  const auto seqs = make_sequences(m->hparams().n_vocab, 11);
  const LogitMap baseline = run_alone(*m, DType::kF16, seqs);
  expect_same_bits(baseline, run_whole_prompts(*m, DType::kF16, seqs), "whole prompts in one batch");
  expect_same_bits(baseline, run_mixed(*m, DType::kF16, seqs, 2, 5), "random mix, 2 threads");
  expect_same_bits(baseline, run_mixed(*m, DType::kF16, seqs, 3, 6), "random mix, 3 threads");
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const char* arch : {"llama", "qwen2", "qwen3", "mixtral", "qwen2moe", "qwen3moe", "gemma2", "gemma3", "gpt-oss", "phi3",
                           "glm4", "glm4moe", "llama4", "smollm3", "deepseek2", "minimax-m2", "mistral3", "ernie4_5",
                           "ernie4_5-moe", "qwen35", "qwen35moe", "granitehybrid-dense"}) {
    for (DType t : testing::all_weight_types()) {
      // MXFP4 (gpt-oss's experts) runs IQ4_NL's kernels: llama and gpt-oss are enough.
      const bool mxfp4_arch = std::string(arch) == "llama" || std::string(arch) == "gpt-oss";
      if (t != DType::kMXFP4 || mxfp4_arch) cases.push_back({arch, t});
    }
  }
  // Qwen3-Next's layers are qwen35moe's once its fused projections are split (copies): a float
  // and a quantised type.
  for (DType t : {DType::kF16, DType::kQ4_K}) cases.push_back({"qwen3next", t});
  // Ling 3.0's and Kimi Linear's Kimi Delta Attention (per-channel decay inside a head's task)
  // beside latent attention: a float and a quantised type.
  for (DType t : {DType::kF16, DType::kQ4_K}) {
    for (const char* arch : {"bailingmoe3", "kimi-linear"}) cases.push_back({arch, t});
  }
  // Granite 4.0-H's experts beside a shared one, around the same Mamba-2 layers as the dense form;
  // Nemotron-H's squared-ReLU feed-forward layers between its Mamba-2 and attention layers, and
  // Nemotron 3's experts without gates in their place.
  for (DType t : {DType::kF16, DType::kQ4_K}) {
    for (const char* arch : {"granitehybrid", "nemotron_h", "nemotron_h_moe", "lfm2moe", "falcon-h1"}) {
      cases.push_back({arch, t});
    }
  }
  // Architectures whose own parts are per-row arithmetic around the same layers (Granite's
  // multipliers, Cohere's layer norms and parallel blocks, Cohere's MoE's per-layer rope, Ling's grouped routing, M-RoPE
  // sections, Gemma 4's heads of two shapes, Step 3.5's head gates and clamps, Hunyuan's QK-norm
  // after the rotation, Mistral Small 4's fused experts, MiMo-V2's padded value heads): a float and a
  // quantised type each.
  for (const char* arch : {"granite", "granitemoe", "minicpm", "cohere2", "cohere2_moe", "minimax-m3", "laguna", "command-r", "mistral4", "step35", "hunyuan-moe", "mimo2", "glm-dsa", "deci",
                           "seed_oss", "bailingmoe2", "dots1", "qwen2vl", "qwen3vl", "qwen3vlmoe", "gemma4", "gemma4-moe",
                           "gemma4-e2b", "gemma3n", "olmo2", "olmoe", "exaone4", "arcee", "hunyuan-dense", "apertus", "bitnet",
                           "bitnet-b1.58"}) {
    for (DType t : {DType::kF16, DType::kQ4_K}) cases.push_back({arch, t});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(ArchByType, BatchInvarianceTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string arch = info.param.arch;  // test names take no '-' or '.'
                           for (char& c : arch) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return arch + "_" + std::string(dtype_name(info.param.type));
                         });

class BatchInvarianceKvTypeTest : public BatchInvarianceTest {};

// For every K/V type: every sequence's logits alone equal those of a random mix (mix_seed), of
// lockstep decoding and of whole prompts in one batch.
void expect_invariant_for_every_kv_type(const Model& m, const std::vector<std::vector<int32_t>>& seqs,
                                        uint32_t mix_seed) {
  for (DType kv : {DType::kF32, DType::kF16, DType::kQ8_0}) {
    const LogitMap baseline = run_alone(m, kv, seqs);
    const std::string what = std::string("kv ") + std::string(dtype_name(kv));
    expect_same_bits(baseline, run_mixed(m, kv, seqs, 2, mix_seed), what + ", random mix");
    expect_same_bits(baseline, run_lockstep(m, kv, seqs, 3), what + ", lockstep");
    expect_same_bits(baseline, run_whole_prompts(m, kv, seqs), what + ", whole prompts");
  }
}

// The K/V storage type changes the numbers but never the invariance.
TEST_F(BatchInvarianceKvTypeTest, HoldsForEveryKvCacheType) {
  TestModelSpec spec;
  spec.arch = "qwen2";
  spec.mixed = true;
  std::unique_ptr<Model> m = load(spec);
  ASSERT_NE(m, nullptr);
  const auto seqs = make_sequences(m->hparams().n_vocab, 23);
  for (DType kv : {DType::kF32, DType::kQ8_0}) {
    const LogitMap baseline = run_alone(*m, kv, seqs);
    expect_same_bits(baseline, run_mixed(*m, kv, seqs, 2, 9), std::string("kv ") + std::string(dtype_name(kv)));
  }
}

// Gemma 3's sliding-window layers (a window of 10 keys, sequences of up to 26 tokens) and its
// global 6th layer, for every K/V type (the window is gathered out of the cache in its own
// format), with 8 K/V heads of one query head each so that decode items span several heads:
// a row past the window gives the bits it gives alone, in any batch, chunk or lockstep.
TEST_F(BatchInvarianceKvTypeTest, HoldsForGemma3SlidingWindows) {
  TestModelSpec spec;
  spec.arch = "gemma3";
  spec.type = DType::kQ8_0;
  spec.n_layer = 6;
  spec.n_head = 8;
  spec.n_head_kv = 8;
  std::unique_ptr<Model> m = load(spec);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->hparams().sliding_window, 10);
  expect_invariant_for_every_kv_type(*m, make_sequences(m->hparams().n_vocab, 29), 13);
}

// gpt-oss: attention sinks in every layer, a 10-key window in the even ones, YaRN, and 8 query
// heads per K/V head (its own grouping: 64 over 8), for every K/V type.
TEST_F(BatchInvarianceKvTypeTest, HoldsForGptOssSinksAndWindows) {
  TestModelSpec spec;
  spec.arch = "gpt-oss";
  spec.type = DType::kQ8_0;
  spec.n_layer = 3;
  spec.n_head = 8;
  spec.n_head_kv = 1;
  spec.head_dim = 32;
  spec.rope_yarn_factor = 32.0f;
  std::unique_ptr<Model> m = load(spec);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->hparams().attn_sinks && m->hparams().layer_slides(0) && !m->hparams().layer_slides(1));
  expect_invariant_for_every_kv_type(*m, make_sequences(m->hparams().n_vocab, 31), 17);
}

// Wide heads (key_length > n_embd / n_head) with a Q8_0 cache, as Qwen3-0.6B is served.
TEST_F(BatchInvarianceKvTypeTest, HoldsForWideHeads) {
  TestModelSpec spec;
  spec.arch = "qwen3";
  spec.type = DType::kQ6_K;
  spec.head_dim = 128;
  std::unique_ptr<Model> m = load(spec);
  ASSERT_NE(m, nullptr);
  const auto seqs = make_sequences(m->hparams().n_vocab, 41);
  const LogitMap baseline = run_alone(*m, DType::kQ8_0, seqs);
  expect_same_bits(baseline, run_mixed(*m, DType::kQ8_0, seqs, 2, 12), "wide heads");
}

// One query head per kv head, 8 kv heads (qwen2moe's shape, smaller): a batch of decode rows
// splits its rows' kv heads into attention items of 2 or 4 heads, by thread and row count,
// and each head's bits stay those of a one-row step.
TEST_F(BatchInvarianceKvTypeTest, HoldsWhenDecodeItemsSpanSeveralKvHeads) {
  TestModelSpec spec;
  spec.arch = "qwen2";
  spec.n_head = 8;
  spec.n_head_kv = 8;
  std::unique_ptr<Model> m = load(spec, "-8kv");
  ASSERT_NE(m, nullptr);
  const auto seqs = make_sequences(m->hparams().n_vocab, 61);
  const LogitMap baseline = run_alone(*m, DType::kF16, seqs);
  expect_same_bits(baseline, run_lockstep(*m, DType::kF16, seqs, 2), "decode rows in lockstep, 2 threads");
  expect_same_bits(baseline, run_lockstep(*m, DType::kF16, seqs, 3), "decode rows in lockstep, 3 threads");
  expect_same_bits(baseline, run_mixed(*m, DType::kF16, seqs, 2, 15), "random mix, 2 threads");
}

// Four and eight query heads per kv head (Llama-3 / Mixtral and TinyLlama-shaped, smaller): a
// batch of decode rows walks 2 to 8 padded kv heads per attention item, by thread and row
// count, and each head's bits stay those of a one-row step (f16 and q8_0 K/V).
TEST_F(BatchInvarianceKvTypeTest, HoldsWhenDecodeItemsSpanSeveralPaddedKvHeads) {
  struct Shape {
    int n_head_kv, head_dim;  // of 32 query heads
    DType kv_type;            // q8_0 needs heads of whole 32-value blocks
  };
  for (const auto& [n_head_kv, head_dim, kv_type] : {Shape{8, 16, DType::kF16}, Shape{4, 32, DType::kQ8_0}}) {
    TestModelSpec spec;
    spec.arch = "llama";
    spec.n_head = 32;
    spec.n_head_kv = n_head_kv;
    spec.head_dim = head_dim;
    std::unique_ptr<Model> m = load(spec, "-" + std::to_string(n_head_kv) + "kv");
    ASSERT_NE(m, nullptr);
    const auto seqs = make_sequences(m->hparams().n_vocab, 67);
    const std::string what = std::to_string(n_head_kv) + " kv heads, " + std::string(dtype_name(kv_type)) + ": ";
    const LogitMap baseline = run_alone(*m, kv_type, seqs);
    expect_same_bits(baseline, run_lockstep(*m, kv_type, seqs, 1), what + "decode rows in lockstep, 1 thread");
    expect_same_bits(baseline, run_lockstep(*m, kv_type, seqs, 2), what + "decode rows in lockstep, 2 threads");
    expect_same_bits(baseline, run_mixed(*m, kv_type, seqs, 3, 16), what + "random mix, 3 threads");
  }
}

// Rope frequency factors (rope_freqs.weight) keep the invariance; all-ones factors give
// exactly the bits of a model without them.
TEST_F(BatchInvarianceKvTypeTest, HoldsWithRopeFreqFactors) {
  TestModelSpec spec;
  spec.arch = "llama";
  spec.type = DType::kQ8_0;
  std::unique_ptr<Model> plain = load(spec, "-plain");
  spec.rope_freqs = std::vector<float>(32, 1.0f);
  std::unique_ptr<Model> ones = load(spec, "-ones");
  for (size_t i = 0; i < spec.rope_freqs.size(); ++i) spec.rope_freqs[i] = 1.0f + static_cast<float>(i % 8);
  std::unique_ptr<Model> factored = load(spec, "-factored");
  ASSERT_TRUE(plain && ones && factored);
  const auto seqs = make_sequences(factored->hparams().n_vocab, 53);
  const LogitMap baseline = run_alone(*factored, DType::kF16, seqs);
  expect_same_bits(baseline, run_mixed(*factored, DType::kF16, seqs, 2, 14), "rope_freqs, random mix");
  const LogitMap unfactored = run_alone(*plain, DType::kF16, seqs);
  expect_same_bits(unfactored, run_alone(*ones, DType::kF16, seqs), "all-ones rope_freqs");
  int n_differ = 0;
  for (const auto& [key, logits] : baseline) {
    n_differ += std::memcmp(logits.data(), unfactored.at(key).data(), logits.size() * sizeof(float)) != 0;
  }
  EXPECT_GT(n_differ, 0) << "the factors changed no logits";
}

// The hybrid models' recurrent layers (qwen35 over 8 layers attending every other one, qwen35moe
// over 4 with one attention layer; Granite 4.0-H's Mamba-2 layers over 6 layers with attention in
// the 3rd, and over 4 attending in every other; Nemotron-H's over 8 layers of its three kinds): a
// sequence's recurrent state and convolution window carry exactly
// what its earlier positions left, whatever the chunking, the batch, the slot or the K/V type;
// a prompt prefilled beside others then decoded in lockstep, and sequences restarting at
// position 0 in slots another sequence held (the state resets), give the bits of each alone.
TEST_F(BatchInvarianceKvTypeTest, HoldsForHybridLayersAcrossChunksSlotsAndRestarts) {
  struct Hybrid {
    const char* arch;
    DType type;
    int n_layer, interval;
  };
  for (const auto& [arch, type, n_layer, interval] :
       {Hybrid{"qwen35", DType::kQ8_0, 8, 2}, Hybrid{"qwen35moe", DType::kQ4_K, 4, 4},
        Hybrid{"granitehybrid-dense", DType::kQ4_K, 6, 4}, Hybrid{"granitehybrid", DType::kQ8_0, 4, 2},
        Hybrid{"nemotron_h", DType::kQ8_0, 8, 4}, Hybrid{"nemotron_h_moe", DType::kQ4_K, 5, 4},
        Hybrid{"lfm2moe", DType::kQ8_0, 6, 4}, Hybrid{"falcon-h1", DType::kQ8_0, 3, 4}}) {
    TestModelSpec spec;
    spec.arch = arch;
    spec.type = type;
    spec.n_layer = n_layer;
    spec.full_attn_interval = interval;
    std::unique_ptr<Model> m = load(spec);
    ASSERT_NE(m, nullptr);
    ASSERT_TRUE(m->hparams().is_hybrid());
    const auto seqs = make_sequences(m->hparams().n_vocab, 71);
    expect_invariant_for_every_kv_type(*m, seqs, 19);
    const LogitMap baseline = run_alone(*m, DType::kF16, seqs);
    const std::string name = arch;
    expect_same_bits(baseline, run_prefill_then_decode(*m, DType::kF16, seqs), name + ": prefill, then decode");
    expect_same_bits(baseline, run_restarts(*m, DType::kF16, seqs), name + ": restarts in used slots");
  }
}

// A pipeline split (embed, layers in two stages, output) gives the bits of forward().
TEST_F(BatchInvarianceKvTypeTest, SplitLayersMatchWholeForward) {
  TestModelSpec spec;
  spec.arch = "llama";
  spec.type = DType::kQ8_0;
  spec.n_layer = 3;
  std::unique_ptr<Model> m = load(spec);
  ASSERT_NE(m, nullptr);
  const auto seqs = make_sequences(m->hparams().n_vocab, 31);
  const LogitMap baseline = run_alone(*m, DType::kF16, seqs);

  ThreadPool pool(2);
  auto scratch = m->make_scratch(64, kMaxTokens);
  auto kv = std::move(ContiguousKv::Create(m->kv_layout(DType::kF16, 8), 1, kMaxTokens).value());
  const int n_embd = m->hparams().n_embd;
  std::vector<Row> rows;
  for (int pos = 0; pos < static_cast<int>(seqs[0].size()); ++pos) rows.push_back(Row{0, pos, seqs[0][pos], true});
  std::vector<float> hidden(rows.size() * static_cast<size_t>(n_embd));
  std::vector<float> logits(rows.size() * static_cast<size_t>(m->hparams().n_vocab));
  m->embed(rows, hidden.data());
  m->forward_layers(rows, 0, 1, hidden.data(), *kv, *scratch, pool);
  m->forward_layers(rows, 1, 3, hidden.data(), *kv, *scratch, pool);
  m->output_logits(rows, hidden.data(), logits.data(), *scratch, pool);
  LogitMap split;
  const size_t n_vocab = static_cast<size_t>(m->hparams().n_vocab);
  for (size_t r = 0; r < rows.size(); ++r) {
    split[{0, rows[r].pos}] = std::vector<float>(logits.begin() + r * n_vocab, logits.begin() + (r + 1) * n_vocab);
  }
  expect_same_bits(baseline, split, "split layers");
}

}  // namespace
}  // namespace strata
