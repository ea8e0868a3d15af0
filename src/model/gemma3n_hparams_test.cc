// Gemma 3n's hyper-parameters (model/gemma3n_hparams.h): AltUp's streams, the laurel rank, the
// sliding pattern, the sparse layers and the shared K/V as a converted file carries them, the
// defaults llama.cpp runs files without those keys on, and the files it refuses, each error
// naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "model/model_load_test_util.h"

namespace strata::testing {
namespace {

TestModelSpec gemma3n_spec() {
  TestModelSpec spec;
  spec.arch = "gemma3n";  // 6 layers: sliding, sliding, full, sliding, sliding (shared), full (shared)
  return spec;
}

TEST_F(ModelLoadTest, ReadsGemma3nHparams) {
  auto m = load(gemma3n_spec());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.rope_neox && hp.qk_norm && hp.post_norms && hp.ffn_gelu && hp.tied_embeddings && hp.v_norm);
  EXPECT_EQ(hp.n_altup, 4);
  EXPECT_EQ(hp.hidden_width(), 4 * 256);
  EXPECT_EQ(hp.laurel_rank, 32);
  EXPECT_EQ(hp.n_embd_per_layer, 256);
  for (int layer = 0; layer < 6; ++layer) {
    EXPECT_EQ(hp.layer_slides(layer), layer % 3 != 2) << layer;
    EXPECT_EQ(hp.ffn_sparse(layer), layer < 2) << layer;
  }
  EXPECT_FLOAT_EQ(hp.ffn_sparsity_std[0], 1.6448533535003662f);
  EXPECT_EQ(hp.n_layer_kv, 4);
  EXPECT_EQ(hp.kv_layer(4), hp.kv_layer(3));  // sliding: the last sliding layer before the shared ones
  EXPECT_EQ(hp.kv_layer(5), hp.kv_layer(2));  // full: the last full one
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, 10000.0f);
  EXPECT_FLOAT_EQ(hp.kq_scale(), 1.0f);
  EXPECT_FLOAT_EQ(hp.final_softcap, 30.0f);
  EXPECT_FLOAT_EQ(hp.embd_scale, 16.0f);  // sqrt(256)
}

// Without the converter's pattern and sparsity keys: llama.cpp's every-5th-layer-full and its
// first 10 sparse layers.
TEST_F(ModelLoadTest, Gemma3nWithoutPatternOrSparsityKeysTakesLlamaCppsDefaults) {
  TestModelSpec spec = gemma3n_spec();
  spec.n_layer = 12;
  spec.skip_keys = {"gemma3n.attention.sliding_window_pattern", "gemma3n.activation_sparsity_scale"};
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  for (int layer = 0; layer < 12; ++layer) {
    EXPECT_EQ(hp.layer_slides(layer), (layer + 1) % 5 != 0) << layer;
    EXPECT_EQ(hp.ffn_sparse(layer), layer < 10) << layer;
  }
}

TEST_F(ModelLoadTest, Gemma3nRefusesBadOrUnsupportedFiles) {
  TestModelSpec spec = gemma3n_spec();
  spec.metadata_overrides = {{"gemma3n.altup.active_idx", GgufValue::U32(1)}};
  expect_error(spec, Code::kUnsupported, "altup.active_idx 1 (only stream 0 can be the one the layers run on)");
  spec.metadata_overrides = {{"gemma3n.altup.num_inputs", GgufValue::U32(1)}};
  expect_error(spec, Code::kUnsupported, "altup.num_inputs 1 (AltUp runs 2 to 16 streams)");
  const float inf = std::numeric_limits<float>::infinity();
  spec.metadata_overrides = {{"gemma3n.activation_sparsity_scale", GgufValue::F32Array({1, 1, inf, 0, 0, 0})}};
  expect_error(spec, Code::kCorrupt, "activation_sparsity_scale[2] must be a finite number, or minus infinity");
  spec.metadata_overrides = {{"gemma3n.activation_sparsity_scale", GgufValue::F32Array({1, 1})}};
  expect_error(spec, Code::kCorrupt, "activation_sparsity_scale must be an array of a number per layer (6)");
  spec.metadata_overrides = {};
  spec.skip_keys = {"gemma3n.embedding_length_per_layer_input"};
  expect_error(spec, Code::kNotFound, "embedding_length_per_layer_input (Gemma 3n's per-layer inputs)");
  spec.skip_keys = {};
  spec.skip_tensors = {"blk.0.laurel_l.weight"};
  expect_error(spec, Code::kNotFound, "blk.0.laurel_l.weight (Gemma 3n's laurel branch, 2-D)");
  spec.skip_tensors = {"altup_unembd_proj.weight"};
  expect_error(spec, Code::kNotFound, "altup_unembd_proj.weight");
  spec.skip_tensors = {"blk.3.altup_predict_coef.weight"};
  expect_error(spec, Code::kNotFound, "blk.3.altup_predict_coef.weight");
}

}  // namespace
}  // namespace strata::testing
