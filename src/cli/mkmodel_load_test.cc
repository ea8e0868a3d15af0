// Files `strata mkmodel` writes for mixture-of-experts presets, gemma3 and gpt-oss, load with
// Model::Load: every arch, float and quantized, with the hparams the generator meant and
// routing that reads only n_expert_used of n_expert experts per token. MXFP4 files (every
// matrix MXFP4, or the MXFP4_MOE mix) run on the SIMD kernels as the float64 reference
// forward computes them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <tuple>
#include <vector>

#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/reference_forward.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_spec.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

class MkmodelLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-mkmodel-load-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The file's path, for a `mix` (a file type, 0: type's own) of `type`, n_layers of the preset's
  // (0: all).
  Result<std::string> generate(const std::string& arch, DType type, const std::string& preset, uint32_t mix = 0,
                               int n_layers = 0) {
    GenerateOptions o;
    o.arch = arch;
    o.preset = preset;
    o.type = type;
    o.mix = mix;
    o.n_layers = n_layers;
    o.seed = 3;
    o.n_threads = 2;
    o.out_path = (dir_ / (arch + "-" + preset + "-" + std::string(dtype_name(type)) + "-" + std::to_string(mix) +
                          ".gguf")).string();
    auto r = generate_model(o);
    if (!r.ok()) return r.status();
    return o.out_path;
  }

  Result<std::unique_ptr<Model>> generate_and_load(const std::string& arch, DType type,
                                                   const std::string& preset = "moe-tiny", int n_layers = 0) {
    STRATA_ASSIGN_OR_RETURN(std::string path, generate(arch, type, preset, 0, n_layers));
    return Model::Load(path);
  }

  fs::path dir_;
};

TEST_F(MkmodelLoadTest, EveryMoeArchLoadsWithItsExpertShape) {
  struct Want {
    const char* arch;
    const char* file_arch;
    int n_ff_shexp;
    bool norm_topk;
  };
  for (Want w : {Want{"qwen3moe", "qwen3moe", 0, true}, Want{"qwen2moe", "qwen2moe", 192, false},
                 Want{"mixtral", "llama", 0, true}}) {
    for (DType type : {DType::kF32, DType::kQ8_0, DType::kQ4_K}) {
      SCOPED_TRACE(std::string(w.arch) + " " + std::string(dtype_name(type)));
      auto m = generate_and_load(w.arch, type);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      const Hparams& hp = (*m)->hparams();
      EXPECT_EQ(hp.arch, w.file_arch);
      EXPECT_EQ(hp.n_expert, 8);
      EXPECT_EQ(hp.n_expert_used, 2);
      EXPECT_EQ(hp.n_ff_exp, 256);
      EXPECT_EQ(hp.n_ff_shexp, w.n_ff_shexp);
      EXPECT_EQ(hp.expert_weights_norm, w.norm_topk);
      EXPECT_EQ(hp.n_layer, 2);
      EXPECT_LT((*m)->decode_weight_bytes(), (*m)->weight_bytes());
    }
  }
}

// The small preset as gemma3 (6 layers would hold a global one; the preset's 4 all slide):
// a window of a quarter of its 1024 positions, and every Gemma 3 part bound.
TEST_F(MkmodelLoadTest, Gemma3LoadsWithItsWindow) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("gemma3", type, "small");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "gemma3");
    EXPECT_EQ(hp.sliding_window, 256);
    EXPECT_TRUE(hp.post_norms && hp.ffn_gelu && hp.qk_norm && hp.tied_embeddings);
    EXPECT_FLOAT_EQ(hp.embd_scale, 16.0f);
  }
}

// The small preset as phi3: one attn_qkv and one ffn_up tensor per layer, bound as row ranges,
// every layer sliding over a quarter of its 1024 positions; Phi-4's own shape has no window.
TEST_F(MkmodelLoadTest, Phi3LoadsWithFusedTensorsAndItsWindow) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("phi3", type, "small");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "phi3");
    EXPECT_TRUE(hp.ffn_up_gate_fused && hp.rope_neox);
    EXPECT_EQ(hp.sliding_window, 256);
    EXPECT_TRUE(hp.layer_slides(0) && hp.layer_slides(3));
    EXPECT_TRUE((*m)->gguf().find_tensor("blk.0.attn_qkv.weight") != nullptr);
    EXPECT_TRUE((*m)->gguf().find_tensor("blk.0.ffn_gate.weight") == nullptr);
  }
  auto preset = model_preset("", "phi-4");
  ASSERT_TRUE(preset.ok()) << preset.status().ToString();
  EXPECT_EQ(preset->arch, "phi3");
  EXPECT_TRUE(preset->phi3);
  EXPECT_EQ(preset->sliding_window, 0);
  EXPECT_EQ(preset->n_head_kv, 10);
  auto as_llama = model_preset("llama", "phi-4");
  ASSERT_TRUE(as_llama.ok());
  EXPECT_FALSE(as_llama->phi3);
}

// moe-tiny as gpt-oss: every gpt-oss part bound (sinks, biases, the clamped SwiGLU, its
// feed-forward norm), every other layer sliding over a quarter of the context up to 128 keys,
// and YaRN 32 over n_ctx / 32; gpt-oss-20b's own shape.
TEST_F(MkmodelLoadTest, GptOssLoadsWithItsSinksBiasesAndWindow) {
  for (DType type : {DType::kF32, DType::kQ8_0}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("gpt-oss", type);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "gpt-oss");
    EXPECT_TRUE(hp.attn_sinks && hp.swiglu_oai && hp.qkv_bias && hp.expert_weights_norm);
    EXPECT_EQ(hp.sliding_window, 128);
    EXPECT_TRUE(hp.layer_slides(0) && !hp.layer_slides(1));
    EXPECT_FLOAT_EQ(hp.rope_yarn_factor, 32.0f);
    EXPECT_EQ(hp.rope_yarn_orig_ctx, 2048 / 32);
    EXPECT_EQ(hp.n_ff_shexp, 0);
  }
  auto preset = model_preset("", "gpt-oss-20b");
  ASSERT_TRUE(preset.ok()) << preset.status().ToString();
  EXPECT_EQ(preset->arch, "gpt-oss");
  EXPECT_EQ(preset->n_expert, 32);
  EXPECT_EQ(preset->n_expert_used, 4);
  EXPECT_EQ(preset->head_dim, 64);
  EXPECT_EQ(preset->sliding_window, 128);
  EXPECT_EQ(preset->rope_yarn_factor, 32.0f);
  EXPECT_EQ(model_preset("llama", "gpt-oss-20b").status().code(), Code::kInvalidArgument);
  auto as_qwen = model_preset("qwen3moe", "gpt-oss-20b");
  ASSERT_TRUE(as_qwen.ok());
  EXPECT_EQ(as_qwen->sliding_window, 0);
  EXPECT_EQ(as_qwen->rope_yarn_factor, 1.0f);
  EXPECT_FALSE(as_qwen->gpt_oss);
}

// glm4moe: moe-tiny's 2 layers run (the NextN block written after them does not), the first
// dense of moe-tiny's n_ff, then sigmoid routing with a selection bias and an ungated shared
// expert of the expert width.
TEST_F(MkmodelLoadTest, Glm4MoeLoadsWithItsDenseLayerNextNBlockAndSelectionBias) {
  for (DType type : {DType::kF32, DType::kQ8_0, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("glm4moe", type);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "glm4moe");
    EXPECT_EQ(hp.n_layer, 2);
    EXPECT_EQ(hp.n_nextn_layers, 1);
    EXPECT_EQ(hp.n_layer_dense_lead, 1);
    EXPECT_EQ(hp.n_ff_shexp, hp.n_ff_exp);
    EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weights_norm && !hp.shexp_gated && hp.qkv_bias);
    EXPECT_EQ(hp.n_rot, hp.head_dim / 2);
    EXPECT_LT((*m)->decode_weight_bytes(), (*m)->weight_bytes());
  }
}

// minimax-m2: moe-tiny's shape with QK-norm over each whole q and k row, rope over half of each
// head, sigmoid routing with a selection bias and no shared expert; its own preset is
// MiniMax-M2's shape.
TEST_F(MkmodelLoadTest, MiniMaxM2LoadsWithWholeRowQkNormAndSelectionBias) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("minimax-m2", type);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "minimax-m2");
    EXPECT_TRUE(hp.qk_norm && hp.qk_norm_whole_row && hp.rope_neox);
    EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weights_norm);
    EXPECT_EQ(hp.n_ff_shexp, 0);
    EXPECT_EQ(hp.n_layer_dense_lead, 0);
    EXPECT_EQ(hp.n_rot, hp.head_dim / 2);
  }
  auto preset = model_preset("", "minimax-m2");
  ASSERT_TRUE(preset.ok()) << preset.status().ToString();
  EXPECT_EQ(preset->arch, "minimax-m2");
  EXPECT_TRUE(preset->minimax_m2 && preset->qk_norm && preset->sigmoid_routing);
  EXPECT_EQ(preset->n_layer, 62);
  EXPECT_EQ(preset->n_expert, 256);
  EXPECT_EQ(preset->n_ff_shexp, 0);
  auto as_qwen = model_preset("qwen3moe", "minimax-m2");
  ASSERT_TRUE(as_qwen.ok());
  EXPECT_FALSE(as_qwen->minimax_m2 || as_qwen->sigmoid_routing);
}

// ernie4_5-moe: moe-tiny's shape with a dense first layer, softmax routing with a selection bias
// and an ungated shared expert of one expert's width; ERNIE 4.5 21B-A3B's preset keeps its two
// shared experts' width. Both match the float64 reference.
TEST_F(MkmodelLoadTest, Ernie45MoeLoadsWithItsDenseLayerSelectionBiasAndSharedExpert) {
  auto m = generate_and_load("ernie4_5-moe", DType::kF32);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "ernie4_5-moe");
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  EXPECT_EQ(hp.n_ff_shexp, hp.n_ff_exp);
  EXPECT_TRUE(hp.expert_weights_norm && !hp.expert_sigmoid && !hp.shexp_gated);
  auto preset = model_preset("", "ernie-4.5-21b-a3b");
  ASSERT_TRUE(preset.ok()) << preset.status().ToString();
  EXPECT_TRUE(preset->ernie_moe && preset->tied_embeddings);
  EXPECT_EQ(preset->n_ff_shexp, 3072);
  EXPECT_EQ(preset->n_dense_lead, 1);
  auto as_qwen = model_preset("qwen3moe", "ernie-4.5-21b-a3b");
  ASSERT_TRUE(as_qwen.ok());
  EXPECT_FALSE(as_qwen->ernie_moe);
  EXPECT_EQ(as_qwen->n_ff_shexp, 0);
}

// mistral3: Ministral 3 8B's preset writes its YaRN (16 over 16384 positions), the ratio of its
// mscales and its attention temperature over that original context; the tiny preset as mistral3
// has neither.
TEST_F(MkmodelLoadTest, Mistral3LoadsWithItsYarnAndTemperature) {
  auto preset = model_preset("", "ministral-3-8b");
  ASSERT_TRUE(preset.ok()) << preset.status().ToString();
  EXPECT_EQ(preset->arch, "mistral3");
  EXPECT_TRUE(preset->mistral3);
  EXPECT_EQ(preset->n_layer, 34);
  // The preset's keys on a narrow, one-layer copy of its shape (the whole 8B shape takes 14 s to
  // write, 60 under the sanitizers, and the keys are what this test reads).
  ModelSpec narrow = *preset;
  narrow.n_layer = 1;
  narrow.n_embd = 256;
  narrow.n_head = 4;
  narrow.n_head_kv = 2;
  narrow.head_dim = 64;
  narrow.n_ff = 512;
  GenerateOptions o;
  o.type = DType::kQ4_K;
  o.out_path = (dir_ / "ministral.gguf").string();
  auto r = generate_model_from_spec(narrow, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto m = Model::Load(o.out_path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "mistral3");
  EXPECT_EQ(hp.rope_yarn_orig_ctx, 16384);
  EXPECT_FLOAT_EQ(hp.rope_yarn_factor, 16.0f);
  EXPECT_TRUE(hp.attn_temp_every_layer);
  EXPECT_FLOAT_EQ(hp.attn_temp_scale, 0.1f);
  EXPECT_EQ(hp.attn_temp_length, 16384);
  EXPECT_FLOAT_EQ(hp.rope_attn_factor, 1.0f);  // mscale(16, 1) / mscale(16, 1)
  auto tiny = generate_and_load("mistral3", DType::kQ8_0, "tiny");
  ASSERT_TRUE(tiny.ok()) << tiny.status().ToString();
  EXPECT_EQ((*tiny)->hparams().rope_yarn_orig_ctx, 0);
  EXPECT_FLOAT_EQ((*tiny)->hparams().attn_temp_scale, 0.0f);
  auto as_llama = model_preset("llama", "ministral-3-8b");
  ASSERT_TRUE(as_llama.ok());
  EXPECT_FALSE(as_llama->mistral3);
  EXPECT_FLOAT_EQ(as_llama->rope_yarn_factor, 1.0f);
  EXPECT_FLOAT_EQ(as_llama->attn_temp_scale, 0.0f);
}

// llama4: moe-tiny's shape with a shared expert of the expert width, sigmoid weights on the
// experts' input, chunks of 8192 keys, no rope in every 4th of its 4 layers, L2-normed q and k.
TEST_F(MkmodelLoadTest, Llama4LoadsWithItsSharedExpertChunksAndNopeLayer) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    GenerateOptions o;
    o.arch = "llama4";
    o.preset = "moe-tiny";
    o.n_layers = 4;
    o.type = type;
    o.out_path = (dir_ / "llama4.gguf").string();
    auto r = generate_model(o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto m = Model::Load(o.out_path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "llama4");
    EXPECT_EQ(hp.n_ff_shexp, hp.n_ff_exp);
    EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weight_input && hp.qk_l2_norm && !hp.shexp_gated);
    EXPECT_EQ(hp.attn_chunk, 8192);
    EXPECT_FALSE(hp.layer_rotates(3));
    EXPECT_TRUE(hp.layer_rotates(2) && hp.layer_is_moe(0) && hp.layer_is_moe(3));
  }
}

// smollm3: llama's tensors with no rope in every 4th layer (the small preset's 4 layers); its
// own preset, SmolLM3-3B's shape, ties the output to the embeddings.
TEST_F(MkmodelLoadTest, SmolLM3LoadsWithoutRopeInEveryFourthLayer) {
  auto m = generate_and_load("smollm3", DType::kQ8_0, "small");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "smollm3");
  EXPECT_TRUE(hp.layer_rotates(2));
  EXPECT_FALSE(hp.layer_rotates(3));
  auto preset = model_preset("", "smollm3-3b");
  ASSERT_TRUE(preset.ok()) << preset.status().ToString();
  EXPECT_EQ(preset->arch, "smollm3");
  EXPECT_TRUE(preset->tied_embeddings);
  EXPECT_EQ(preset->n_layer, 36);
}

// glm4 (GLM-4-0414): q/k/v biases, post-norms, gate and up in one ffn_up, rope on adjacent pairs
// over half of each head, an output matrix of its own.
TEST_F(MkmodelLoadTest, Glm4LoadsWithPostNormsFusedGateUpAndHalfRotary) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("glm4", type, "tiny");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "glm4");
    EXPECT_TRUE(hp.qkv_bias && hp.post_norms && hp.ffn_up_gate_fused);
    EXPECT_FALSE(hp.rope_neox || hp.tied_embeddings || hp.qk_norm || hp.is_moe());
    EXPECT_EQ(hp.n_rot, hp.head_dim / 2);
  }
}

// The prompt's logits against the float64 forward over the same decoded weights: only the
// activations' 8-bit rounding per block of 32 differs (bounds as in
// src/model/quant_types_test.cc: rms_rel < 4%, max_rel < 20%; a wrong decoder or kernel is
// off by ~100%).
// deepseek2: moe-tiny's shape with DeepSeek-V3's latent attention (a compressed query, a latent
// row of 512 + 64) and routing. The two forms of the file, attn_kv_b or attn_k_b / attn_v_b with
// the same values, are the same model: the same logits to the bit, which match the float64
// reference; so does the MXFP4_MOE mix. (Quantized split maps are checked with every expert
// used in DeepSeek2QuantizedLatentMapsAgree: here 2 of 8 experts, and their extra input
// roundings flip the near-tied routes of a few positions.)
TEST_F(MkmodelLoadTest, DeepSeek2LoadsInBothFormsWithTheSameLogits) {
  constexpr int kPrompt = 8;
  std::vector<std::vector<float>> logits;
  for (auto [split, type, mix] : {std::tuple{false, DType::kF32, 0u}, std::tuple{true, DType::kF32, 0u},
                                  std::tuple{false, DType::kMXFP4, 38u}}) {
    SCOPED_TRACE(std::string(split ? "split " : "") + std::string(dtype_name(type)));
    GenerateOptions o;
    o.arch = "deepseek2";
    o.preset = "moe-tiny";
    o.type = type;
    o.mix = mix;
    o.split_kv_b = split;
    o.seed = 3;
    o.out_path = (dir_ / ("deepseek2-" + std::to_string(logits.size()) + ".gguf")).string();
    auto r = generate_model(o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto model = Model::Load(o.out_path);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    const Model& m = **model;
    const Hparams& hp = m.hparams();
    EXPECT_TRUE(hp.is_mla() && hp.mla_q_rank > 0);
    EXPECT_EQ(hp.head_dim, 576);
    EXPECT_EQ(hp.mla_nope_dim + hp.n_rot, 192);
    EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weights_norm && !hp.shexp_gated);
    auto gguf = GgufFile::Open(o.out_path);
    ASSERT_TRUE(gguf.ok());
    auto ref = testing::ReferenceForward::Load(*gguf);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, kPrompt).value());
    auto scratch = m.make_scratch(kPrompt, kPrompt);
    ThreadPool pool(2);
    std::vector<int32_t> tokens;
    std::vector<Row> rows;
    for (int pos = 0; pos < kPrompt; ++pos) {
      tokens.push_back((pos * 37 + 5) % hp.n_vocab);
      rows.push_back(Row{0, pos, tokens.back(), true});
    }
    logits.emplace_back(static_cast<size_t>(kPrompt) * hp.n_vocab);
    m.forward(rows, *kv, logits.back().data(), *scratch, pool);
    const auto [rms_rel, max_rel] = testing::logit_errors(*ref, tokens, logits.back().data());
    EXPECT_LT(rms_rel, type == DType::kF32 ? 1e-5 : 0.04);
    EXPECT_LT(max_rel, type == DType::kF32 ? 6e-5 : 0.20);
  }
  ASSERT_EQ(logits[0].size(), logits[1].size());
  EXPECT_EQ(std::memcmp(logits[0].data(), logits[1].data(), sizeof(float) * logits[0].size()), 0)
      << "attn_kv_b and its split form give different bits";
}

TEST_F(MkmodelLoadTest, Mxfp4ModelsMatchTheFloat64Reference) {
  struct Case {
    const char* arch;
    const char* preset;
    uint32_t mix;  // 0: every matrix MXFP4; 38: MXFP4_MOE
  };
  for (Case c : {Case{"llama", "tiny", 0}, Case{"qwen3moe", "moe-tiny", 0}, Case{"qwen2moe", "moe-tiny", 38},
                 Case{"gpt-oss", "moe-tiny", 38}, Case{"glm4moe", "moe-tiny", 38}, Case{"minimax-m2", "moe-tiny", 38},
                 Case{"ernie4_5-moe", "moe-tiny", 38}}) {
    SCOPED_TRACE(std::string(c.arch) + " " + c.preset + " mix " + std::to_string(c.mix));
    auto path = generate(c.arch, DType::kMXFP4, c.preset, c.mix);
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    auto model = Model::Load(*path);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    auto gguf = GgufFile::Open(*path);
    ASSERT_TRUE(gguf.ok());
    // blk.1: glm4moe's blk.0 is dense.
    const std::string up_name = "blk.1.ffn_up" + std::string(c.preset[0] == 'm' ? "_exps" : "") + ".weight";
    const GgufTensor* up = gguf->find_tensor(up_name);
    ASSERT_NE(up, nullptr) << up_name;
    EXPECT_EQ(up->type, DType::kMXFP4);
    auto ref = testing::ReferenceForward::Load(*gguf);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();

    constexpr int kPrompt = 8;
    const Model& m = **model;
    const int n_vocab = m.hparams().n_vocab;
    auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, kPrompt).value());
    auto scratch = m.make_scratch(kPrompt, kPrompt);
    ThreadPool pool(2);
    std::vector<int32_t> tokens;
    std::vector<Row> rows;
    for (int pos = 0; pos < kPrompt; ++pos) {
      tokens.push_back((pos * 37 + 5) % n_vocab);
      rows.push_back(Row{0, pos, tokens.back(), true});
    }
    std::vector<float> logits(static_cast<size_t>(kPrompt) * n_vocab);
    m.forward(rows, *kv, logits.data(), *scratch, pool);
    const auto [rms_rel, max_rel] = testing::logit_errors(*ref, tokens, logits.data());
    EXPECT_LT(rms_rel, 0.04);
    EXPECT_LT(max_rel, 0.20);
    RecordProperty(std::string(c.arch) + "_mix" + std::to_string(c.mix) + "_rms_rel", std::to_string(rms_rel));
  }
}

// Nemotron's layer kinds as mkmodel writes them (--arch deci, 8 layers of the small preset) load
// as Strata reads llama.cpp's DeciLM files: two layers without K/V heads, the cache over six.
TEST_F(MkmodelLoadTest, DeciLayerKindsLoad) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    auto m = generate_and_load("deci", type, "small", 8);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_TRUE(hp.attn_kind(5) == AttnKind::kNone && hp.attn_kind(6) == AttnKind::kLinear &&
                hp.attn_kind(7) == AttnKind::kAttention);
    EXPECT_EQ(hp.n_kv_layers(), 6);
    EXPECT_FALSE(hp.layer_has_ffn(7));
    EXPECT_EQ(hp.ffn_width(1), 512);
  }
}

// The architectures that are another's layers plus a few keys, as mkmodel writes them: each
// loads with what makes it itself (Granite's multipliers, Cohere's layer norms, parallel blocks
// and window, Seed-OSS's biases and norm name, the vision-language models' sections).
TEST_F(MkmodelLoadTest, ArchsOfAnotherArchsLayersLoadWithTheirOwnParts) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto cohere = generate_and_load("cohere2", type, "small");
    ASSERT_TRUE(cohere.ok()) << cohere.status().ToString();
    EXPECT_TRUE((*cohere)->hparams().layer_norm && (*cohere)->hparams().parallel_block);
    EXPECT_EQ((*cohere)->hparams().sliding_window, 256);
    EXPECT_FLOAT_EQ((*cohere)->hparams().logit_scale, 4.0f);
    auto mistral4 = generate_and_load("mistral4", type, "moe-tiny");  // fused experts, split latent maps
    ASSERT_TRUE(mistral4.ok()) << mistral4.status().ToString();
    EXPECT_TRUE((*mistral4)->hparams().is_mla() && !(*mistral4)->hparams().expert_sigmoid);
    auto step35 = generate_and_load("step35", type, "moe-tiny");  // more heads where it slides, head gates
    ASSERT_TRUE(step35.ok()) << step35.status().ToString();
    EXPECT_EQ((*step35)->hparams().attn_shape(1).n_head, (*step35)->hparams().n_head_swa);
    EXPECT_GT((*step35)->hparams().n_head_swa, (*step35)->hparams().n_head);
    EXPECT_TRUE((*step35)->hparams().attn_head_gate && (*step35)->hparams().layer_slides(1));
    EXPECT_FLOAT_EQ((*step35)->hparams().ffn_limit((*step35)->hparams().n_layer - 1, true), 7.0f);
    auto north = generate_and_load("cohere2_moe", type, "moe-tiny");  // North's: RMS norms, per-layer rope
    ASSERT_TRUE(north.ok()) << north.status().ToString();
    const Hparams& nh = (*north)->hparams();
    EXPECT_TRUE(nh.parallel_block && nh.expert_sigmoid && !nh.layer_norm && !nh.expert_weights_norm);
    EXPECT_EQ(nh.sliding_window, 128);
    EXPECT_TRUE(!nh.layer_slides(0) && nh.layer_rotates(0) && !nh.layer_is_moe(0) && nh.layer_slides(1) &&
                nh.layer_is_moe(1));
    auto laguna = generate_and_load("laguna", type, "moe-tiny");  // the head counts tell the layers apart
    ASSERT_TRUE(laguna.ok()) << laguna.status().ToString();
    const Hparams& lh = (*laguna)->hparams();
    EXPECT_TRUE(lh.attn_head_gate_softplus && lh.layer_slides(1) && !lh.layer_slides(0));
    EXPECT_GT(lh.n_head_swa, lh.n_head);
    EXPECT_EQ(lh.n_rot * 2, lh.n_rot_swa);
    auto m3 = generate_and_load("minimax-m3", type, "moe-tiny");  // a dense layer, a shared expert, clamped SwiGLU
    ASSERT_TRUE(m3.ok()) << m3.status().ToString();
    const Hparams& mh = (*m3)->hparams();
    EXPECT_TRUE(mh.swiglu_oai && mh.qk_norm && !mh.qk_norm_whole_row && mh.expert_sigmoid && !mh.shexp_gated);
    EXPECT_EQ(mh.n_ff_shexp, mh.n_ff_exp);
    EXPECT_FLOAT_EQ(mh.expert_weights_scale, 2.0f);
    EXPECT_TRUE(!mh.layer_is_moe(0) && mh.layer_is_moe(1));
    auto mimo2 = generate_and_load("mimo2", type, "moe-tiny");  // narrow value heads, K/V heads per kind, sinks
    ASSERT_TRUE(mimo2.ok()) << mimo2.status().ToString();
    const Hparams& xh = (*mimo2)->hparams();
    EXPECT_EQ(xh.attn_shape(0), (AttnShape{4, 1, 32, 20}));  // moe-tiny's heads of 32 as mimo2
    EXPECT_EQ(xh.attn_shape(1), (AttnShape{4, 2, 32, 20}));
    EXPECT_TRUE(!xh.layer_slides(0) && xh.layer_slides(1) && !xh.layer_is_moe(0) && xh.layer_is_moe(1));
    EXPECT_EQ(xh.n_rot, 10);
    EXPECT_FLOAT_EQ(xh.v_scale, 0.707f);
    auto glm5 = generate_and_load("glm-dsa", type, "moe-tiny");  // DeepSeek's layers, an indexer, a NextN block
    ASSERT_TRUE(glm5.ok()) << glm5.status().ToString();
    const Hparams& gh = (*glm5)->hparams();
    EXPECT_TRUE(gh.is_mla() && gh.expert_sigmoid && gh.expert_weights_norm);
    EXPECT_EQ(gh.n_nextn_layers, 1);
    EXPECT_EQ(gh.sparse_attn_top_k, 2048);
    EXPECT_EQ(gh.mla_v_dim, 256);
    auto command_r = generate_and_load("command-r", type, "small");  // Command R 35B's parts: no window
    ASSERT_TRUE(command_r.ok()) << command_r.status().ToString();
    EXPECT_TRUE((*command_r)->hparams().layer_norm && (*command_r)->hparams().parallel_block);
    EXPECT_EQ((*command_r)->hparams().sliding_window, 0);
    EXPECT_FALSE((*command_r)->hparams().rope_neox || (*command_r)->hparams().qk_norm);
    auto seed = generate_and_load("seed_oss", type, "small");
    ASSERT_TRUE(seed.ok()) << seed.status().ToString();
    EXPECT_TRUE((*seed)->hparams().qkv_bias && (*seed)->hparams().rope_neox);
    EXPECT_EQ((*seed)->hparams().ffn_norm_name, "post_attention_norm");
    auto minicpm = generate_and_load("minicpm", type, "small");  // the converter's multiplier keys
    ASSERT_TRUE(minicpm.ok()) << minicpm.status().ToString();
    EXPECT_FLOAT_EQ((*minicpm)->hparams().embd_scale, 12.0f);
    EXPECT_FLOAT_EQ((*minicpm)->hparams().residual_scale, 0.7f);  // small: 4 layers
    EXPECT_FLOAT_EQ((*minicpm)->hparams().logit_scale, 1.0f);      // small: 256 wide
    auto granite = generate_and_load("granite", type, "small");
    ASSERT_TRUE(granite.ok()) << granite.status().ToString();
    EXPECT_FLOAT_EQ((*granite)->hparams().residual_scale, 0.22f);
    auto vl = generate_and_load("qwen3vl", type, "small");
    ASSERT_TRUE(vl.ok()) << vl.status().ToString();
    EXPECT_TRUE((*vl)->hparams().qk_norm && (*vl)->hparams().rope_pos0_pairs.empty());
  }
}

// The float64 reference's logits against the model's over 8 positions of the file at path.
testing::LogitErrors errors_against_reference(const std::string& path) {
  auto model = Model::Load(path);
  auto gguf = GgufFile::Open(path);
  EXPECT_TRUE(model.ok() && gguf.ok());
  if (!model.ok() || !gguf.ok()) return {INFINITY, INFINITY};
  auto ref = testing::ReferenceForward::Load(*gguf);
  EXPECT_TRUE(ref.ok()) << ref.status().ToString();
  if (!ref.ok()) return {INFINITY, INFINITY};
  constexpr int kPrompt = 8;
  const Model& m = **model;
  const int n_vocab = m.hparams().n_vocab;
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, kPrompt).value());
  auto scratch = m.make_scratch(kPrompt, kPrompt);
  ThreadPool pool(2);
  std::vector<int32_t> tokens;
  std::vector<Row> rows;
  for (int pos = 0; pos < kPrompt; ++pos) {
    tokens.push_back((pos * 37 + 5) % n_vocab);
    rows.push_back(Row{0, pos, tokens.back(), true});
  }
  std::vector<float> logits(static_cast<size_t>(kPrompt) * n_vocab);
  m.forward(rows, *kv, logits.data(), *scratch, pool);
  return testing::logit_errors(*ref, tokens, logits.data());
}

// Gemma 4 as mkmodel writes it: a small preset's sliding layers keep its heads, its full (last)
// layer twice as wide and a quarter as many without attn_v; a MoE preset adds experts beside
// every dense feed-forward; both stay close to the float64 reference in Q4_K. The 31B preset
// plans 60 layers with 10 full ones of 4 K/V heads of 512; the 26B-A4B's experts come as one
// gate/up tensor of 2 x 704 rows each; the E2B has its per-layer inputs and shared layers.
TEST_F(MkmodelLoadTest, Gemma4LoadsWithHeadsOfTwoShapes) {
  auto path = generate("gemma4", DType::kQ4_K, "small");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  auto model = Model::Load(*path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const Hparams& hp = (*model)->hparams();
  EXPECT_EQ(hp.attn_shape(0), (AttnShape{8, 4, 32}));
  EXPECT_EQ(hp.attn_shape(3), (AttnShape{8, 1, 64}));
  EXPECT_TRUE(hp.v_norm && hp.layer_slides(2) && !hp.layer_slides(3));
  EXPECT_EQ(hp.sliding_window, 256);
  auto gguf = GgufFile::Open(*path);
  ASSERT_TRUE(gguf.ok());
  EXPECT_NE(gguf->find_tensor("blk.2.attn_v.weight"), nullptr);
  EXPECT_EQ(gguf->find_tensor("blk.3.attn_v.weight"), nullptr);
  EXPECT_NE(gguf->find_tensor("blk.3.layer_output_scale.weight"), nullptr);
  const testing::LogitErrors dense = errors_against_reference(*path);
  EXPECT_LT(dense.rms_rel, 0.04);
  EXPECT_LT(dense.max_rel, 0.20);

  auto moe_path = generate("gemma4", DType::kQ4_K, "moe-tiny");
  ASSERT_TRUE(moe_path.ok()) << moe_path.status().ToString();
  auto moe = Model::Load(*moe_path);
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_TRUE((*moe)->hparams().moe_beside_dense && (*moe)->hparams().layer_is_moe(0));
  const testing::LogitErrors routed = errors_against_reference(*moe_path);
  EXPECT_LT(routed.rms_rel, 0.04);
  EXPECT_LT(routed.max_rel, 0.20);

  auto big = model_preset("", "gemma4-31b");
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  int n_full = 0;
  for (int l = 0; l < big->n_layer; ++l) n_full += gemma4_layer_slides(*big, l) ? 0 : 1;
  EXPECT_EQ(big->n_layer, 60);
  EXPECT_EQ(n_full, 10);
  auto plan = plan_tensors(*big, DType::kQ4_K);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  for (const PlannedTensor& t : plan->tensors) {
    if (t.name == "blk.5.attn_k.weight") {
      EXPECT_EQ(t.dims, (std::vector<uint64_t>{5376, 4 * 512}));
    }
    if (t.name == "blk.4.attn_k.weight") {
      EXPECT_EQ(t.dims, (std::vector<uint64_t>{5376, 16 * 256}));
    }
    EXPECT_NE(t.name, "blk.5.attn_v.weight");
  }
  auto a4b = model_preset("", "gemma4-26b-a4b");
  ASSERT_TRUE(a4b.ok()) << a4b.status().ToString();
  auto moe_plan = plan_tensors(*a4b, DType::kQ8_0);
  ASSERT_TRUE(moe_plan.ok()) << moe_plan.status().ToString();
  int n_seen = 0;
  for (const PlannedTensor& t : moe_plan->tensors) {
    if (t.name == "blk.0.ffn_gate_up_exps.weight") n_seen += t.dims == std::vector<uint64_t>{2816, 2 * 704, 128};
    if (t.name == "blk.0.ffn_gate.weight") n_seen += t.dims == std::vector<uint64_t>{2816, 2112};
    if (t.name == "blk.5.attn_k.weight") n_seen += t.dims == std::vector<uint64_t>{2816, 2 * 512};
  }
  EXPECT_EQ(n_seen, 3);

  // The E2B: per-layer inputs of 256, its last 20 of 35 layers without K/V of their own and twice
  // as wide; a cut to 10 layers keeps 5 of them shared, all after the first full layer.
  auto e2b = model_preset("", "gemma4-e2b");
  ASSERT_TRUE(e2b.ok()) << e2b.status().ToString();
  auto e2b_plan = plan_tensors(*e2b, DType::kQ8_0);
  ASSERT_TRUE(e2b_plan.ok()) << e2b_plan.status().ToString();
  n_seen = 0;
  for (const PlannedTensor& t : e2b_plan->tensors) {
    if (t.name == "per_layer_token_embd.weight") n_seen += t.dims == std::vector<uint64_t>{35 * 256, 262144};
    if (t.name == "blk.14.attn_k.weight" || t.name == "blk.14.inp_gate.weight") ++n_seen;
    if (t.name == "blk.15.ffn_up.weight") n_seen += t.dims == std::vector<uint64_t>{1536, 2 * 6144};
    EXPECT_NE(t.name, "blk.15.attn_k.weight");
  }
  EXPECT_EQ(n_seen, 4);
  ModelSpec cut = *e2b;
  set_layer_count(&cut, 10);
  EXPECT_EQ(cut.n_shared_kv_layers, 5);
  EXPECT_FALSE(gemma4_layer_slides(cut, 4));
}

}  // namespace
}  // namespace strata
