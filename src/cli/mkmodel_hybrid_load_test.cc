// Files `strata mkmodel` writes for the hybrid archs (qwen35, qwen35moe, qwen3next, granitehybrid,
// nemotron_h, nemotron_h_moe, lfm2, lfm2moe) load with
// Model::Load with the hparams the generator meant, and run: finite logits, a residual stream of
// O(1) at every position of a long prompt, and the same bits whether a prompt runs whole, in
// chunks or a token at a time (the delta-net, Mamba-2 and short-convolution layers' recurrent state
// carries each chunk's end to the next). Beside mkmodel_load_test.cc, in its test binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "model/contiguous_kv.h"
#include "model/model.h"
#include "modelgen/model_generator.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr int kHybridPrompt = 48;

class MkmodelHybridLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-mkmodel-hybrid-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // n_layers > 0: a --layers cut of the preset.
  Result<std::unique_ptr<Model>> generate_and_load(const std::string& arch, const std::string& preset, DType type,
                                                   int n_layers = 0) {
    GenerateOptions o;
    o.arch = arch;
    o.preset = preset;
    o.type = type;
    o.seed = 11;
    o.n_threads = 2;
    o.n_layers = n_layers;
    o.out_path = (dir_ / (arch + "-" + preset + "-" + std::to_string(n_layers) + "-" + std::string(dtype_name(type)) +
                          ".gguf")).string();
    auto r = generate_model(o);
    if (!r.ok()) return r.status();
    return Model::Load(o.out_path);
  }

  fs::path dir_;
};

std::vector<int32_t> hybrid_prompt(int n_vocab) {
  std::vector<int32_t> tokens;
  for (int pos = 0; pos < kHybridPrompt; ++pos) tokens.push_back((pos * 37 + 5) % n_vocab);
  return tokens;
}

// The logits of every position of tokens (one sequence), from forward passes over consecutive
// chunks of the given sizes, on a fresh cache.
std::vector<float> logits_in_chunks(const Model& m, const std::vector<int32_t>& tokens,
                                    const std::vector<int>& chunks) {
  const int n_vocab = m.hparams().n_vocab;
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, kHybridPrompt).value());
  auto scratch = m.make_scratch(kHybridPrompt, kHybridPrompt);
  ThreadPool pool(2);
  std::vector<float> logits(tokens.size() * static_cast<size_t>(n_vocab));
  int pos = 0;
  for (int chunk : chunks) {
    std::vector<Row> rows;
    for (int i = 0; i < chunk; ++i, ++pos) rows.push_back(Row{0, pos, tokens[pos], true});
    m.forward(rows, *kv, logits.data() + static_cast<size_t>(pos - chunk) * n_vocab, *scratch, pool);
  }
  EXPECT_EQ(pos, static_cast<int>(tokens.size()));
  return logits;
}

// The RMS of each position's residual stream after the last layer, from one pass.
std::vector<double> residual_rms(const Model& m, const std::vector<int32_t>& tokens) {
  const int n_embd = m.hparams().n_embd;
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, kHybridPrompt).value());
  auto scratch = m.make_scratch(kHybridPrompt, kHybridPrompt);
  ThreadPool pool(2);
  std::vector<Row> rows;
  for (int pos = 0; pos < static_cast<int>(tokens.size()); ++pos) rows.push_back(Row{0, pos, tokens[pos], false});
  std::vector<float> hidden(rows.size() * static_cast<size_t>(n_embd));
  m.embed(rows, hidden.data());
  m.forward_layers(rows, 0, m.hparams().n_layer, hidden.data(), *kv, *scratch, pool);
  std::vector<double> rms;
  for (size_t r = 0; r < rows.size(); ++r) {
    double sum_sq = 0;
    for (int i = 0; i < n_embd; ++i) sum_sq += std::pow(hidden[r * n_embd + i], 2);
    rms.push_back(std::sqrt(sum_sq / n_embd));
  }
  return rms;
}

// Whole, in uneven chunks and a token at a time: the same bits at every position, all finite;
// the residual stream O(1) at every position (no state that grows with the prompt).
void expect_runs_as_one_model(const Model& m) {
  const std::vector<int32_t> tokens = hybrid_prompt(m.hparams().n_vocab);
  const std::vector<float> whole = logits_in_chunks(m, tokens, {kHybridPrompt});
  const std::vector<float> chunked = logits_in_chunks(m, tokens, {5, 4, 3, 17, 19});
  const std::vector<float> stepped = logits_in_chunks(m, tokens, std::vector<int>(kHybridPrompt, 1));
  for (float x : whole) ASSERT_TRUE(std::isfinite(x));
  EXPECT_EQ(std::memcmp(whole.data(), chunked.data(), sizeof(float) * whole.size()), 0) << "chunked prompt";
  EXPECT_EQ(std::memcmp(whole.data(), stepped.data(), sizeof(float) * whole.size()), 0) << "token at a time";
  const std::vector<double> rms = residual_rms(m, tokens);
  for (size_t pos = 0; pos < rms.size(); ++pos) {
    EXPECT_TRUE(rms[pos] > 0.1 && rms[pos] < 10.0) << "position " << pos << ": residual RMS " << rms[pos];
  }
}

// tiny as qwen35: 4 layers, the last attending with gated queries over a quarter-rotated head,
// the first 3 delta-net layers of 4 key heads and 8 value heads of 8.
TEST_F(MkmodelHybridLoadTest, Qwen35LoadsWithItsHybridLayersAndRunsAsOneModel) {
  for (DType type : {DType::kF32, DType::kQ8_0, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("qwen35", "tiny", type);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "qwen35");
    EXPECT_EQ(hp.n_layer, 4);
    EXPECT_EQ(hp.full_attn_interval, 4);
    EXPECT_TRUE(hp.attn_output_gate && hp.qk_norm && hp.rope_neox);
    EXPECT_FALSE(hp.is_moe());
    EXPECT_EQ(hp.n_rot, hp.head_dim / 4);
    EXPECT_EQ(hp.ffn_norm_name, "post_attention_norm");
    EXPECT_TRUE(hp.layer_is_recurrent(0) && hp.layer_is_recurrent(2));
    EXPECT_FALSE(hp.layer_is_recurrent(3));
    EXPECT_EQ(hp.n_kv_layers(), 1);
    EXPECT_EQ(hp.ssm_conv_kernel, 4);
    EXPECT_EQ(hp.ssm_n_k_heads, 4);
    EXPECT_EQ(hp.ssm_head_k_dim, 8);
    EXPECT_EQ(hp.ssm_n_v_heads, 8);
    EXPECT_EQ(hp.ssm_head_v_dim, 8);
    expect_runs_as_one_model(**m);
  }
}

// moe-tiny as qwen35moe: experts in every layer, softmax routing renormalised over the chosen 2
// of 8, and a shared expert of the expert width behind its sigmoid gate.
TEST_F(MkmodelHybridLoadTest, Qwen35MoeLoadsWithItsGatedSharedExpertAndRunsAsOneModel) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("qwen35moe", "moe-tiny", type);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "qwen35moe");
    EXPECT_EQ(hp.n_layer, 4);
    EXPECT_EQ(hp.n_expert, 8);
    EXPECT_EQ(hp.n_expert_used, 2);
    EXPECT_EQ(hp.n_ff_exp, 256);
    EXPECT_EQ(hp.n_ff_shexp, 256);
    EXPECT_TRUE(hp.shexp_gated && hp.expert_weights_norm && hp.attn_output_gate);
    EXPECT_FALSE(hp.expert_sigmoid);
    EXPECT_TRUE(hp.layer_is_moe(0) && hp.layer_is_moe(3));
    EXPECT_EQ(hp.ssm_head_k_dim, 16);
    EXPECT_EQ(hp.n_kv_layers(), 1);
    EXPECT_LT((*m)->decode_weight_bytes(), (*m)->weight_bytes());
    expect_runs_as_one_model(**m);
  }
}

// moe-tiny as qwen3next: qwen35moe's layers with each delta-net layer's projections fused per
// key head (ssm_in, ssm_ba), value heads grouped on their key head.
TEST_F(MkmodelHybridLoadTest, Qwen3NextLoadsWithItsFusedDeltaNetInputsAndRunsAsOneModel) {
  auto m = generate_and_load("qwen3next", "moe-tiny", DType::kQ4_K);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "qwen3next");
  EXPECT_TRUE(hp.ssm_grouped && hp.shexp_gated && hp.expert_weights_norm && hp.attn_output_gate);
  EXPECT_EQ(hp.full_attn_interval, 4);
  EXPECT_EQ(hp.ssm_n_v_heads, 8);
  expect_runs_as_one_model(**m);
}

// moe-tiny as granitehybrid cut to 7 layers: Mamba-2 layers of 4 heads of 64 over one group of 32
// state values, but layer 5, which attends without rope; softmax-routed experts beside an ungated
// shared expert twice the expert width; Granite 4.0-H's multipliers. The layers are of the kinds
// the plan gave them (granite_layer_attends()).
TEST_F(MkmodelHybridLoadTest, GraniteHybridLoadsWithItsMamba2LayersAndRunsAsOneModel) {
  GenerateOptions o;
  o.arch = "granitehybrid";
  o.preset = "moe-tiny";
  o.n_layers = 7;
  auto planned = plan_model(o);
  ASSERT_TRUE(planned.ok()) << planned.status().ToString();
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("granitehybrid", "moe-tiny", type, 7);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "granitehybrid");
    EXPECT_TRUE(hp.ssm_mamba2 && hp.expert_weights_norm);
    EXPECT_FALSE(hp.shexp_gated || hp.expert_sigmoid || hp.attn_output_gate || hp.qk_norm);
    EXPECT_EQ(hp.n_layer, 7);
    for (int l = 0; l < hp.n_layer; ++l) {
      EXPECT_EQ(hp.layer_is_recurrent(l), !granite_layer_attends(planned->spec, l)) << "layer " << l;
      EXPECT_FALSE(hp.layer_rotates(l)) << "layer " << l;
    }
    EXPECT_EQ(hp.n_kv_layers(), 1);
    EXPECT_EQ(hp.ssm_n_v_heads, 4);
    EXPECT_EQ(hp.ssm_head_v_dim, 64);
    EXPECT_EQ(hp.ssm_n_k_heads, 1);
    EXPECT_EQ(hp.ssm_head_k_dim, 32);
    EXPECT_EQ(hp.n_ff_exp, 256);
    EXPECT_EQ(hp.n_ff_shexp, 512);
    EXPECT_FLOAT_EQ(hp.embd_scale, 12.0f);
    EXPECT_FLOAT_EQ(hp.logit_scale, 6.0f);
    EXPECT_FLOAT_EQ(hp.residual_scale, 0.22f);
    EXPECT_FLOAT_EQ(hp.attn_scale, 1.0f / 32);
    expect_runs_as_one_model(**m);
  }
}

// tiny as granitehybrid (Granite 4.0-H Micro's dense form: layer 1 attends), and cuts of one layer
// (it attends: no Mamba-2 layer) and of five (the last attends).
TEST_F(MkmodelHybridLoadTest, GraniteHybridDenseAndShortCutsLoadWithAnAttendingLayer) {
  auto dense = generate_and_load("granitehybrid", "tiny", DType::kQ8_0);
  ASSERT_TRUE(dense.ok()) << dense.status().ToString();
  EXPECT_FALSE((*dense)->hparams().is_moe());
  EXPECT_TRUE((*dense)->hparams().layer_is_recurrent(0) && !(*dense)->hparams().layer_is_recurrent(1));
  expect_runs_as_one_model(**dense);
  for (int n_layers : {1, 5}) {
    auto cut = generate_and_load("granitehybrid", "moe-tiny", DType::kQ8_0, n_layers);
    ASSERT_TRUE(cut.ok()) << n_layers << " layers: " << cut.status().ToString();
    const Hparams& hp = (*cut)->hparams();
    EXPECT_EQ(hp.n_kv_layers(), 1) << n_layers << " layers";
    EXPECT_FALSE(hp.layer_is_recurrent(n_layers - 1)) << n_layers << " layers";
    EXPECT_EQ(hp.n_recurrent_layers(), n_layers - 1) << n_layers << " layers";
    expect_runs_as_one_model(**cut);
  }
}

// A loaded Nemotron-H layer's kind, in nemotron_layer_pattern()'s letters: 'M' recurrent, '*' with
// K/V, 'E' with experts, '-' with a feed-forward width ('?' none of these).
char loaded_nemotron_kind(const Hparams& hp, int layer) {
  if (hp.layer_is_recurrent(layer)) return 'M';
  if (hp.kv_layer(layer) >= 0) return '*';
  if (hp.layer_is_moe(layer)) return 'E';
  return hp.ffn_width(layer) > 0 ? '-' : '?';
}

// What mkmodel --arch arch --preset preset [--layers n_layers] plans: its layer kinds.
std::string planned_nemotron_kinds(const std::string& arch, const std::string& preset, int n_layers) {
  GenerateOptions o;
  o.arch = arch;
  o.preset = preset;
  o.n_layers = n_layers;
  auto planned = plan_model(o);
  EXPECT_TRUE(planned.ok()) << planned.status().ToString();
  return planned.ok() ? nemotron_layer_pattern(planned->spec) : "";
}

// small as nemotron_h: 7 layers M-M-M*-, Mamba-2 layers of 8 heads of 64 over 8 groups of 64 state
// values (Nemotron's grouping), attention without rope, squared-ReLU feed-forward layers without a
// gate, each layer under its one norm; the layers of the kinds the plan gave them.
TEST_F(MkmodelHybridLoadTest, NemotronHLoadsWithItsLayerKindsAndRunsAsOneModel) {
  const std::string kinds = planned_nemotron_kinds("nemotron_h", "small", 0);
  ASSERT_EQ(kinds, "M-M-M*-");
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("nemotron_h", "small", type);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "nemotron_h");
    EXPECT_TRUE(hp.ssm_mamba2 && hp.ffn_relu_sq && hp.ssm_grouped);
    EXPECT_FALSE(hp.is_moe() || hp.attn_output_gate || hp.qk_norm);
    EXPECT_EQ(hp.ffn_norm_name, "attn_norm");
    ASSERT_EQ(hp.n_layer, 7);
    for (int l = 0; l < hp.n_layer; ++l) {
      EXPECT_EQ(loaded_nemotron_kind(hp, l), kinds[static_cast<size_t>(l)]) << "layer " << l;
      EXPECT_FALSE(hp.layer_rotates(l)) << "layer " << l;
    }
    EXPECT_EQ(hp.n_kv_layers(), 1);
    EXPECT_EQ(hp.n_recurrent_layers(), 3);
    EXPECT_EQ(hp.n_ff, 768);
    EXPECT_EQ(hp.ssm_n_v_heads, 8);
    EXPECT_EQ(hp.ssm_head_v_dim, 64);
    EXPECT_EQ(hp.ssm_n_k_heads, 8);
    EXPECT_EQ(hp.ssm_head_k_dim, 64);
    expect_runs_as_one_model(**m);
  }
}

// moe-tiny as nemotron_h_moe: 7 layers MEMEM*E, the expert layers those with a feed-forward width
// (moe_where_ffn), routed by sigmoid gates with a selection bias, normalised, times 2.5, beside an
// ungated shared expert twice the expert width.
TEST_F(MkmodelHybridLoadTest, NemotronHMoeLoadsWithItsExpertLayersAndRunsAsOneModel) {
  const std::string kinds = planned_nemotron_kinds("nemotron_h_moe", "moe-tiny", 0);
  ASSERT_EQ(kinds, "MEMEM*E");
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("nemotron_h_moe", "moe-tiny", type);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "nemotron_h_moe");
    EXPECT_TRUE(hp.ssm_mamba2 && hp.ffn_relu_sq && hp.moe_where_ffn && hp.expert_sigmoid && hp.expert_weights_norm);
    EXPECT_FALSE(hp.shexp_gated);
    EXPECT_FLOAT_EQ(hp.expert_weights_scale, 2.5f);
    ASSERT_EQ(hp.n_layer, 7);
    for (int l = 0; l < hp.n_layer; ++l) {
      EXPECT_EQ(loaded_nemotron_kind(hp, l), kinds[static_cast<size_t>(l)]) << "layer " << l;
      EXPECT_EQ(hp.layer_is_moe(l), kinds[static_cast<size_t>(l)] == 'E') << "layer " << l;
    }
    EXPECT_EQ(hp.n_expert, 8);
    EXPECT_EQ(hp.n_expert_used, 2);
    EXPECT_EQ(hp.n_ff_exp, 256);
    EXPECT_EQ(hp.n_ff_shexp, 512);
    EXPECT_EQ(hp.ssm_n_k_heads, 1);
    EXPECT_LT((*m)->decode_weight_bytes(), (*m)->weight_bytes());
    expect_runs_as_one_model(**m);
  }
}

// Cuts without an attending layer in the pattern's first layers: their last Mamba-2 layer attends
// (M-M- as M-*-, ME as *E), and the file loads with the kinds planned.
TEST_F(MkmodelHybridLoadTest, NemotronHShortCutsLoadWithAnAttendingLayer) {
  struct Case {
    const char* arch;
    const char* preset;
    int n_layers;
    const char* kinds;
  };
  for (const Case& c : {Case{"nemotron_h", "tiny", 4, "M-*-"}, Case{"nemotron_h_moe", "moe-tiny", 2, "*E"}}) {
    SCOPED_TRACE(c.arch);
    ASSERT_EQ(planned_nemotron_kinds(c.arch, c.preset, c.n_layers), c.kinds);
    auto m = generate_and_load(c.arch, c.preset, DType::kQ8_0, c.n_layers);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    for (int l = 0; l < c.n_layers; ++l) EXPECT_EQ(loaded_nemotron_kind(hp, l), c.kinds[l]) << "layer " << l;
    EXPECT_EQ(hp.n_kv_layers(), 1);
    expect_runs_as_one_model(**m);
  }
}

// What mkmodel --arch arch --preset preset [--layers n_layers] plans: its LFM2 layer kinds.
std::string planned_lfm2_kinds(const std::string& arch, const std::string& preset, int n_layers) {
  GenerateOptions o;
  o.arch = arch;
  o.preset = preset;
  o.n_layers = n_layers;
  auto planned = plan_model(o);
  EXPECT_TRUE(planned.ok()) << planned.status().ToString();
  return planned.ok() ? lfm2_layer_pattern(planned->spec) : "";
}

// A loaded LFM2 layer's kind, in lfm2_layer_pattern()'s letters: 'C' recurrent (a short
// convolution), '*' with K/V ('?' neither).
char loaded_lfm2_kind(const Hparams& hp, int layer) {
  if (hp.layer_is_recurrent(layer)) return 'C';
  return hp.kv_layer(layer) >= 0 ? '*' : '?';
}

// small as lfm2: 4 layers CC*C, short convolutions over 3 taps, attention with QK-norm and NeoX rope,
// a SwiGLU feed-forward in every layer, the final norm token_embd_norm, tied embeddings; the layers of
// the kinds the plan gave them.
TEST_F(MkmodelHybridLoadTest, Lfm2LoadsWithItsShortConvolutionsAndRunsAsOneModel) {
  const std::string kinds = planned_lfm2_kinds("lfm2", "small", 0);
  ASSERT_EQ(kinds, "CC*C");
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("lfm2", "small", type);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "lfm2");
    EXPECT_TRUE(hp.ssm_short_conv && hp.qk_norm && hp.rope_neox);
    EXPECT_FALSE(hp.is_moe() || hp.ssm_mamba2 || hp.attn_output_gate);
    EXPECT_EQ(hp.output_norm_name, "token_embd_norm");
    ASSERT_EQ(hp.n_layer, 4);
    for (int l = 0; l < hp.n_layer; ++l) EXPECT_EQ(loaded_lfm2_kind(hp, l), kinds[l]) << "layer " << l;
    EXPECT_EQ(hp.n_kv_layers(), 1);
    EXPECT_EQ(hp.ssm_conv_kernel, 3);
    EXPECT_EQ(hp.n_ff, 768);
    expect_runs_as_one_model(**m);
  }
}

// moe-tiny as lfm2moe cut to 4 layers (CC*C): one dense layer, then experts routed by sigmoid gates
// plus the selection bias, renormalised, no shared expert; and cut to one layer (it attends, and is
// an MoE layer: the dense lead gives way).
TEST_F(MkmodelHybridLoadTest, Lfm2MoeLoadsWithItsDenseLeadAndRunsAsOneModel) {
  ASSERT_EQ(planned_lfm2_kinds("lfm2moe", "moe-tiny", 4), "CC*C");
  auto m = generate_and_load("lfm2moe", "moe-tiny", DType::kQ4_K, 4);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "lfm2moe");
  EXPECT_TRUE(hp.ssm_short_conv && hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  EXPECT_FALSE(hp.layer_is_moe(0));
  for (int l = 1; l < 4; ++l) EXPECT_TRUE(hp.layer_is_moe(l)) << "layer " << l;
  EXPECT_EQ(hp.n_expert, 8);
  EXPECT_EQ(hp.n_expert_used, 2);
  EXPECT_EQ(hp.n_ff_exp, 256);
  EXPECT_EQ(hp.n_ff_shexp, 0);
  EXPECT_EQ(hp.n_kv_layers(), 1);
  expect_runs_as_one_model(**m);
  auto cut = generate_and_load("lfm2moe", "moe-tiny", DType::kQ8_0, 1);
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  EXPECT_EQ((*cut)->hparams().n_layer_dense_lead, 0);
  EXPECT_TRUE((*cut)->hparams().layer_is_moe(0));
  EXPECT_EQ((*cut)->hparams().n_kv_layers(), 1);
  expect_runs_as_one_model(**cut);
}

}  // namespace
}  // namespace strata
