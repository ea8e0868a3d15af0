// Loading: hyper-parameters read from GGUF metadata, weights bound by name, and clear
// errors for files the forward pass cannot run (each architecture's own keys:
// arch_hparams_test.cc).
#include <gtest/gtest.h>

#include <string>

#include "gguf/gguf_file.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/model_load_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::ModelLoadTest;
using testing::TestModelSpec;

const std::string kStories = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";

TEST_F(ModelLoadTest, ReadsStoriesHparams) {
  auto m = Model::Load(kStories);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "llama");
  EXPECT_EQ(hp.n_vocab, 512);
  EXPECT_EQ(hp.n_ctx_train, 2048);
  EXPECT_EQ(hp.n_embd, 64);
  EXPECT_EQ(hp.n_layer, 5);
  EXPECT_EQ(hp.n_head, 8);
  EXPECT_EQ(hp.n_head_kv, 4);
  EXPECT_EQ(hp.head_dim, 8);
  EXPECT_EQ(hp.n_rot, 8);
  EXPECT_EQ(hp.n_ff, 172);
  EXPECT_FLOAT_EQ(hp.rms_eps, 1e-5f);
  EXPECT_FLOAT_EQ(hp.rope_freq_base, 10000.0f);
  EXPECT_FALSE(hp.rope_neox);
  EXPECT_FALSE(hp.qkv_bias);
  EXPECT_FALSE(hp.qk_norm);
  EXPECT_FALSE(hp.tied_embeddings);
  // 292,800 F32 parameters; a decode step reads all but the 512 x 64 embedding table.
  EXPECT_EQ((*m)->weight_bytes(), 292800u * 4);
  EXPECT_EQ((*m)->decode_weight_bytes(), (292800u - 512 * 64) * 4);
}

TEST_F(ModelLoadTest, ArchitectureIsDataNotCode) {
  TestModelSpec spec;
  spec.arch = "qwen2";
  auto qwen2 = load(spec);
  ASSERT_TRUE(qwen2.ok()) << qwen2.status().ToString();
  EXPECT_TRUE((*qwen2)->hparams().rope_neox);
  EXPECT_TRUE((*qwen2)->hparams().qkv_bias);
  EXPECT_FALSE((*qwen2)->hparams().qk_norm);
  EXPECT_FALSE((*qwen2)->hparams().tied_embeddings);

  spec.arch = "qwen3";
  auto qwen3 = load(spec);
  ASSERT_TRUE(qwen3.ok()) << qwen3.status().ToString();
  EXPECT_TRUE((*qwen3)->hparams().rope_neox);
  EXPECT_FALSE((*qwen3)->hparams().qkv_bias);
  EXPECT_TRUE((*qwen3)->hparams().qk_norm);
  EXPECT_TRUE((*qwen3)->hparams().tied_embeddings);
  EXPECT_EQ((*qwen3)->decode_weight_bytes(), (*qwen3)->weight_bytes());
}

TEST_F(ModelLoadTest, ReadsRopeScaling) {
  TestModelSpec spec;
  spec.rope_linear_factor = 4.0f;
  auto linear = load(spec);
  ASSERT_TRUE(linear.ok()) << linear.status().ToString();
  EXPECT_FLOAT_EQ(linear.value()->hparams().rope_freq_scale, 0.25f);
  EXPECT_EQ(linear.value()->hparams().rope_yarn_orig_ctx, 0);

  spec.rope_linear_factor = 1.0f;
  spec.metadata_overrides = {{"llama.rope.scaling.type", GgufValue::String("yarn")},
                             {"llama.rope.scaling.factor", GgufValue::F32(8.0f)},
                             {"llama.rope.scaling.original_context_length", GgufValue::U32(8192)}};
  auto yarn = load(spec);
  ASSERT_TRUE(yarn.ok()) << yarn.status().ToString();
  EXPECT_FLOAT_EQ(yarn.value()->hparams().rope_freq_scale, 0.125f);
  EXPECT_EQ(yarn.value()->hparams().rope_yarn_orig_ctx, 8192);

  spec.metadata_overrides = {{"llama.rope.scaling.type", GgufValue::String("longrope")}};
  expect_error(spec, Code::kUnsupported, "longrope");
}

TEST_F(ModelLoadTest, MissingFileIsNotACrash) {
  auto m = Model::Load((dir_ / "absent.gguf").string());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("absent.gguf"), std::string::npos) << m.status().ToString();
}

TEST_F(ModelLoadTest, UnknownArchitectureIsNamed) {
  TestModelSpec spec;
  spec.metadata_overrides = {{"general.architecture", GgufValue::String("mamba")}};
  expect_error(spec, Code::kUnsupported, "mamba");
}

TEST_F(ModelLoadTest, MissingHparamIsNamed) {
  TestModelSpec spec;
  spec.metadata_overrides = {{"general.architecture", GgufValue::String("qwen2")}};
  expect_error(spec, Code::kNotFound, "qwen2.embedding_length");
}

TEST_F(ModelLoadTest, MissingTensorIsNamed) {
  TestModelSpec spec;
  spec.skip_tensors = {"blk.1.ffn_up.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.ffn_up.weight");

  spec.arch = "qwen2";
  spec.skip_tensors = {"blk.0.attn_k.bias"};
  expect_error(spec, Code::kNotFound, "blk.0.attn_k.bias");
}

TEST_F(ModelLoadTest, WrongShapeIsNamed) {
  TestModelSpec spec;
  spec.metadata_overrides = {{"llama.feed_forward_length", GgufValue::U32(768)}};
  expect_error(spec, Code::kCorrupt, "blk.0.ffn_gate.weight has shape [256, 512], expected [256, 768]");
}

// rope_freqs.weight holds one F32 factor per rotated pair: n_rot / 2 = 32 here.
TEST_F(ModelLoadTest, RopeFreqsOfTheWrongCountAreNamed) {
  TestModelSpec spec;
  spec.rope_freqs = std::vector<float>(64, 1.0f);
  expect_error(spec, Code::kCorrupt, "rope_freqs.weight has shape [64] (64 factors), expected [32]");
}

TEST_F(ModelLoadTest, RopeFreqsOfTheWrongTypeAreNamed) {
  TestModelSpec spec;
  spec.rope_freqs = std::vector<float>(32, 1.0f);
  spec.rope_freqs_type = DType::kF16;
  expect_error(spec, Code::kUnsupported, "rope_freqs.weight has type f16, expected f32");
}

TEST_F(ModelLoadTest, NonPositiveRopeFreqIsNamed) {
  TestModelSpec spec;
  spec.rope_freqs = std::vector<float>(32, 1.0f);
  spec.rope_freqs[5] = 0.0f;
  expect_error(spec, Code::kCorrupt, "rope_freqs.weight: factor 5 is 0");
}

TEST_F(ModelLoadTest, InconsistentHeadsAreRejected) {
  TestModelSpec spec;
  spec.metadata_overrides = {{"llama.attention.head_count_kv", GgufValue::U32(3)}};
  expect_error(spec, Code::kCorrupt, "not a multiple of head_count_kv 3");
}

TEST_F(ModelLoadTest, KvLayoutSizesFollowTheModel) {
  auto m = Model::Load(kStories);
  ASSERT_TRUE(m.ok());
  const KvLayout f16 = (*m)->kv_layout(DType::kF16, 16);
  EXPECT_EQ(f16.token_bytes(0), 4u * 8 * 2);  // 4 K/V heads of 8 halves
  EXPECT_EQ(f16.block_bytes(), 5u * 2 * 16 * 64);
  EXPECT_EQ(f16.v_offset(2, 3), 2 * f16.layer_bytes(0) + 16 * f16.token_bytes(0) + 3 * f16.token_bytes(0));
  EXPECT_TRUE((*m)->check_kv_layout(f16).ok());
  EXPECT_FALSE((*m)->check_kv_layout((*m)->kv_layout(DType::kF16, 1024)).ok());
  const Status q8_status = (*m)->check_kv_layout((*m)->kv_layout(DType::kQ8_0, 16));
  EXPECT_NE(q8_status.message().find("multiple of 32"), std::string::npos) << q8_status.ToString();
  // Q8_0 stores heads in blocks of 32; stories' heads are 8 wide.
  auto q8 = ContiguousKv::Create((*m)->kv_layout(DType::kQ8_0, 16), 1, 64);
  ASSERT_FALSE(q8.ok());
  EXPECT_NE(q8.status().message().find("multiple of 32"), std::string::npos) << q8.status().ToString();
}

}  // namespace
}  // namespace strata
