// Generated deepseek2 files: the keys llama.cpp's converter writes for DeepSeek-V3's form, for
// V2-Lite's (no query bottleneck, softmax routing) and for the split attn_k_b / attn_v_b form;
// the split tensors holding exactly attn_kv_b's values; and `strata quantize` giving a generated
// F32 file the same types as generating it quantized.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_quantizer.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

struct Key {
  const char* name;
  GgufType type;
  double value;
};

// Every key of `keys` under deepseek2.*, with its type and value.
void expect_keys(const GgufFile& f, std::initializer_list<Key> keys) {
  for (const Key& k : keys) {
    const GgufValue* v = f.find(std::string("deepseek2.") + k.name);
    ASSERT_NE(v, nullptr) << k.name;
    EXPECT_EQ(v->type, k.type) << k.name;
    const double got = v->type == GgufType::kBool ? static_cast<double>(v->as_uint().value_or(2))
                                                   : v->as_float().value_or(-1);
    EXPECT_FLOAT_EQ(got, k.value) << k.name;
  }
}

class Deepseek2GeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-dsgen-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // moe-tiny as deepseek2 (a dense layer and an MoE layer) with stories260K's vocabulary.
  GenerateOptions options(DType type, bool split, const std::string& name) const {
    GenerateOptions o;
    o.arch = "deepseek2";
    o.preset = "moe-tiny";
    o.type = type;
    o.split_kv_b = split;
    o.seed = 9;
    o.n_threads = 2;
    o.vocab_path = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";
    o.out_path = (dir_ / (name + ".gguf")).string();
    return o;
  }

  Result<GgufFile> generate(const GenerateOptions& o) {
    auto r = generate_model(o);
    if (!r.ok()) return r.status();
    return GgufFile::Open(o.out_path);
  }

  fs::path dir_;
};

TEST_F(Deepseek2GeneratorTest, WritesDeepseekV3sKeys) {
  auto f = generate(options(DType::kF32, false, "v3-form"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_string("general.architecture"), "deepseek2");
  expect_keys(*f, {{"block_count", GgufType::kU32, 2},
                   {"context_length", GgufType::kU32, 2048},
                   {"embedding_length", GgufType::kU32, 128},
                   {"feed_forward_length", GgufType::kU32, 256},
                   {"attention.head_count", GgufType::kU32, 4},
                   {"attention.head_count_kv", GgufType::kU32, 4},
                   {"attention.layer_norm_rms_epsilon", GgufType::kF32, 1e-6},
                   {"attention.q_lora_rank", GgufType::kU32, 512},
                   {"attention.kv_lora_rank", GgufType::kU32, 512},
                   {"attention.key_length", GgufType::kU32, 192},
                   {"attention.value_length", GgufType::kU32, 128},
                   {"rope.dimension_count", GgufType::kU32, 64},
                   {"rope.freq_base", GgufType::kF32, 10000},
                   {"expert_count", GgufType::kU32, 8},
                   {"expert_used_count", GgufType::kU32, 2},
                   {"expert_feed_forward_length", GgufType::kU32, 256},
                   {"expert_shared_count", GgufType::kU32, 1},
                   {"leading_dense_block_count", GgufType::kU32, 1},
                   {"expert_weights_scale", GgufType::kF32, 2.5},
                   {"expert_weights_norm", GgufType::kBool, 1},
                   {"expert_gating_func", GgufType::kU32, 2},
                   {"rope.scaling.factor", GgufType::kF32, 40},
                   {"rope.scaling.original_context_length", GgufType::kU32, 51},
                   {"rope.scaling.yarn_log_multiplier", GgufType::kF32, 0.1}});
  EXPECT_EQ(f->get_string("deepseek2.rope.scaling.type"), "yarn");
  EXPECT_EQ(f->get_uint("deepseek2.vocab_size").value_or(0), 512u);
  for (const char* absent : {"attention.key_length_mla", "attention.value_length_mla", "expert_group_count",
                             "expert_group_used_count", "expert_shared_feed_forward_length", "nextn_predict_layers"}) {
    EXPECT_EQ(f->find(std::string("deepseek2.") + absent), nullptr) << absent;
  }
  EXPECT_EQ(f->find_tensor("blk.1.exp_probs_b.bias")->type, DType::kF32);
  const auto* bias = reinterpret_cast<const float*>(f->find_tensor("blk.1.exp_probs_b.bias")->data);
  EXPECT_LE(*std::max_element(bias, bias + 8), 0.1f);
  EXPECT_GE(*std::min_element(bias, bias + 8), -0.1f);
  EXPECT_GT(*std::max_element(bias, bias + 8) - *std::min_element(bias, bias + 8), 0.05f);
  EXPECT_NE(f->find_tensor("blk.0.attn_q_a.weight"), nullptr);
  EXPECT_NE(f->find_tensor("blk.1.attn_kv_b.weight"), nullptr);
}

// V2-Lite's form at moe-tiny's size: no q_lora_rank key (and no attn_q_a), softmax gating (1)
// without a selection bias, weights not normalised, two shared experts, log multiplier 0.0707.
TEST_F(Deepseek2GeneratorTest, WritesV2LitesKeysWithoutAQueryBottleneck) {
  ModelSpec s = *model_preset("deepseek2", "moe-tiny");
  const ModelSpec lite = *model_preset("", "deepseek-v2-lite");
  s.q_lora_rank = lite.q_lora_rank;
  s.sigmoid_routing = lite.sigmoid_routing;
  s.expert_weights_norm = lite.expert_weights_norm;
  s.expert_weights_scale = lite.expert_weights_scale;
  s.rope_yarn_log_mul = lite.rope_yarn_log_mul;
  s.n_ff_shexp = 2 * s.n_ff_exp;
  const GenerateOptions o = options(DType::kQ8_0, false, "lite-form");
  ASSERT_TRUE(generate_model_from_spec(s, o).ok());
  auto f = GgufFile::Open(o.out_path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  expect_keys(*f, {{"expert_gating_func", GgufType::kU32, 1},
                   {"expert_weights_norm", GgufType::kBool, 0},
                   {"expert_weights_scale", GgufType::kF32, 1},
                   {"expert_shared_count", GgufType::kU32, 2},
                   {"rope.scaling.yarn_log_multiplier", GgufType::kF32, 0.0707}});
  EXPECT_EQ(f->find("deepseek2.attention.q_lora_rank"), nullptr);
  EXPECT_NE(f->find_tensor("blk.1.attn_q.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.1.attn_q_a.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.1.exp_probs_b.bias"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.1.ffn_up_shexp.weight")->dims, (std::vector<uint64_t>{128, 512}));
}

// --split-kv-b: llama.cpp's newer keys (one latent K/V head of 576, values of 512, the real head
// widths as *_mla), and attn_k_b / attn_v_b holding exactly the values attn_kv_b has in the
// file the same seed writes without the split; every other tensor byte for byte the same.
TEST_F(Deepseek2GeneratorTest, SplitKvBHoldsTheSameWeightsUnderLlamaCppsNewerKeys) {
  auto whole = generate(options(DType::kF32, false, "whole"));
  auto split = generate(options(DType::kF32, true, "split"));
  ASSERT_TRUE(whole.ok() && split.ok());
  expect_keys(*split, {{"attention.head_count", GgufType::kU32, 4},
                       {"attention.head_count_kv", GgufType::kU32, 1},
                       {"attention.key_length", GgufType::kU32, 576},
                       {"attention.value_length", GgufType::kU32, 512},
                       {"attention.key_length_mla", GgufType::kU32, 192},
                       {"attention.value_length_mla", GgufType::kU32, 128},
                       {"attention.kv_lora_rank", GgufType::kU32, 512},
                       {"rope.dimension_count", GgufType::kU32, 64}});
  const int n_head = 4, nope = 128, v = 128, kv_lora = 512;
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(split->find_tensor(p + "attn_kv_b.weight"), nullptr);
    const auto* kv_b = reinterpret_cast<const float*>(whole->find_tensor(p + "attn_kv_b.weight")->data);
    const auto* k_b = reinterpret_cast<const float*>(split->find_tensor(p + "attn_k_b.weight")->data);
    const auto* v_b = reinterpret_cast<const float*>(split->find_tensor(p + "attn_v_b.weight")->data);
    int k_mismatches = 0, v_mismatches = 0;
    for (int h = 0; h < n_head; ++h) {
      for (int j = 0; j < kv_lora; ++j) {
        for (int i = 0; i < nope; ++i) {  // k_b[h][j][i] = kv_b[h (nope + v) + i][j]
          k_mismatches += k_b[(h * kv_lora + j) * nope + i] != kv_b[(h * (nope + v) + i) * kv_lora + j];
        }
        for (int d = 0; d < v; ++d) {  // v_b[h][d][j] = kv_b[h (nope + v) + nope + d][j]
          v_mismatches += v_b[(h * v + d) * kv_lora + j] != kv_b[(h * (nope + v) + nope + d) * kv_lora + j];
        }
      }
    }
    EXPECT_EQ(k_mismatches, 0) << p;
    EXPECT_EQ(v_mismatches, 0) << p;
  }
  for (const GgufTensor& t : whole->tensors()) {
    if (t.name.find("attn_kv_b") != std::string::npos) continue;
    const GgufTensor* same = split->find_tensor(t.name);
    ASSERT_NE(same, nullptr) << t.name;
    ASSERT_EQ(same->n_bytes, t.n_bytes) << t.name;
    EXPECT_EQ(std::memcmp(same->data, t.data, t.n_bytes), 0) << t.name;
  }
}

// Q4_K_M and MXFP4_MOE made by strata quantize from the F32 split file and by mkmodel: the same
// type for every tensor (the quantizer reads head_count_kv 1 and the 3-D attn_k_b / attn_v_b).
TEST_F(Deepseek2GeneratorTest, QuantizeAndGenerateGiveTheSameMix) {
  const GenerateOptions f32 = options(DType::kF32, true, "split-f32");
  ASSERT_TRUE(generate_model(f32).ok());
  struct Mix {
    const char* name;
    DType type;
    uint32_t mix;
  };
  for (Mix m : {Mix{"q4_k_m", DType::kQ4_K, 0}, Mix{"mxfp4_moe", DType::kMXFP4, 38}}) {
    QuantizeOptions q;
    q.in_path = f32.out_path;
    q.file_type = m.name;
    auto quantized = plan_quantize(q);
    ASSERT_TRUE(quantized.ok()) << quantized.status().ToString();
    GenerateOptions g = options(m.type, true, "unused");
    g.mix = m.mix;
    auto generated = plan_model(g);
    ASSERT_TRUE(generated.ok()) << generated.status().ToString();
    ASSERT_EQ(quantized->tensors.size(), generated->plan.tensors.size());
    for (size_t i = 0; i < quantized->tensors.size(); ++i) {
      const PlannedTensor& t = generated->plan.tensors[i];
      EXPECT_EQ(quantized->tensors[i].name, t.name) << m.name;
      EXPECT_EQ(quantized->tensors[i].to, t.type) << m.name << " " << t.name;
    }
  }
}

}  // namespace
}  // namespace strata
