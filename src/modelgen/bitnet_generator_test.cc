// Generated bitnet / bitnet-b1.58 (BitNet b1.58) files: bitnet.hidden_activation only where the file must
// name the gate, the sub-norms and no output matrix; every ternary matrix's values -s, 0 or +s with s an
// f16 value and the std of other matrices, so that TQ1_0 and TQ2_0 hold them exactly; and `strata quantize`
// giving a generated F32 file the same types as generating it quantized.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "gguf/gguf_file.h"
#include "modelgen/generator_test_fixture.h"
#include "modelgen/model_generator.h"
#include "modelgen/narrow_spec_test_util.h"
#include "modelgen/plan_test_util.h"
#include "tensor/half.h"
#include "tensor/quantize.h"

namespace strata {
namespace {

class BitnetGeneratorTest : public testing::GeneratorTest {};

// 2B4T's spec as arch, narrowed to 1 layer: a file of a few MiB.
ModelSpec narrowed_2b4t(const std::string& arch) { return narrowed_preset(arch, "bitnet-b1.58-2b-4t", 1); }

// small as bitnet gates by SiLU, so no hidden_activation (llama.cpp's default); 2B4T as bitnet says relu2;
// as bitnet-b1.58 nothing (its arch's gate). Every file: the sub-norms in F32, no output.weight, whole heads
// rotated.
TEST_F(BitnetGeneratorTest, WritesTheGateKeyOnlyWhereTheFileMustSayIt) {
  auto f = generate(options("bitnet", "small", DType::kQ8_0, "small"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_string("general.architecture"), "bitnet");
  EXPECT_EQ(f->find("bitnet.hidden_activation"), nullptr);
  EXPECT_EQ(f->get_uint("bitnet.rope.dimension_count"), 32u);
  EXPECT_EQ(f->get_uint("bitnet.attention.head_count_kv"), 4u);
  EXPECT_EQ(f->find_tensor("output.weight"), nullptr);
  const GgufTensor* sub = f->find_tensor("blk.3.ffn_sub_norm.weight");
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->type, DType::kF32);
  EXPECT_EQ(sub->dims, (std::vector<uint64_t>{768}));
  EXPECT_EQ(f->find_tensor("blk.3.attn_sub_norm.weight")->dims, (std::vector<uint64_t>{256}));
  EXPECT_EQ(f->find_tensor("blk.0.attn_q.weight")->type, DType::kQ8_0);

  auto relu2 = generate_spec(narrowed_2b4t("bitnet"), DType::kF32, "relu2");
  ASSERT_TRUE(relu2.ok()) << relu2.status().ToString();
  EXPECT_EQ(relu2->get_string("bitnet.hidden_activation"), "relu2");
  auto own = generate_spec(narrowed_2b4t(""), DType::kF32, "own");
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  const std::string a = "bitnet-b1.58.";
  EXPECT_EQ(own->get_string("general.architecture"), "bitnet-b1.58");
  EXPECT_EQ(own->find(a + "hidden_activation"), nullptr);
  EXPECT_EQ(own->get_uint(a + "context_length"), 4096u);
  EXPECT_FLOAT_EQ(own->get_float(a + "rope.freq_base").value_or(0), 500000.0f);
  EXPECT_EQ(own->find_tensor("output.weight"), nullptr);
}

// Row r of an F32 tensor round-tripped through type: the same floats, bit for bit.
bool row_survives(const GgufTensor& t, uint64_t r, DType type) {
  const uint64_t n = t.dims[0];
  const float* row = reinterpret_cast<const float*>(t.data) + r * n;
  std::vector<uint8_t> packed(*dtype_row_bytes(type, n));
  std::vector<float> back(n);
  if (!quantize_row(type, row, packed.data(), n).ok() || !dequantize_row(type, packed.data(), back.data(), n).ok()) {
    return false;
  }
  return std::memcmp(row, back.data(), n * sizeof(float)) == 0;
}

// small as bitnet-b1.58 in F32: each ternary matrix holds -s, 0 and +s only, s = sqrt(3 / (2 n_in)) as an
// f16, about a third each, so its std is a matrix's 1/sqrt(n_in); every row encodes to TQ1_0 and TQ2_0
// and decodes to the same floats. token_embd is not ternary.
TEST_F(BitnetGeneratorTest, TernaryMatricesAreExactInTq1AndTq2) {
  auto f = generate(options("bitnet-b1.58", "small", DType::kF32, "ternary"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto plan = planned_tensors_of("bitnet-b1.58", "small", DType::kF32);
  int n_ternary = 0;
  for (const auto& [name, planned] : plan) {
    if (planned.kind != WeightKind::kTernary) continue;
    ++n_ternary;
    const GgufTensor* t = f->find_tensor(name);
    ASSERT_NE(t, nullptr) << name;
    const uint64_t n_in = t->dims[0];
    const float s = std::sqrt(1.5f / static_cast<float>(n_in));
    const float s16 = half_to_float(float_to_half(s));
    EXPECT_NEAR(s16, s, s * 1e-3f) << name;
    const auto* x = reinterpret_cast<const float*>(t->data);
    uint64_t zeros = 0, others = 0;
    for (uint64_t i = 0; i < t->n_elements; ++i) {
      zeros += x[i] == 0.0f;
      others += x[i] != 0.0f && std::fabs(x[i]) != s16;
    }
    EXPECT_EQ(others, 0u) << name;
    EXPECT_NEAR(static_cast<double>(zeros) / static_cast<double>(t->n_elements), 1.0 / 3.0, 0.02) << name;
    for (uint64_t r = 0; r < t->n_elements / n_in; ++r) {
      ASSERT_TRUE(row_survives(*t, r, DType::kTQ2_0)) << name << " row " << r;
      ASSERT_TRUE(row_survives(*t, r, DType::kTQ1_0)) << name << " row " << r;
    }
  }
  EXPECT_EQ(n_ternary, 4 * 7);
  const GgufTensor* embd = f->find_tensor("token_embd.weight");
  ASSERT_NE(embd, nullptr);
  const auto* e = reinterpret_cast<const float*>(embd->data);
  EXPECT_GT(std::set<float>(e, e + 256).size(), 200u);
}

// small as bitnet-b1.58 in TQ2_0 (`mkmodel --type tq2_0`) and in F32 of the same seed: every ternary
// matrix TQ2_0, decoding to exactly the F32 file's values; the sub-norms F32.
TEST_F(BitnetGeneratorTest, Tq2FileDecodesToTheF32FilesValues) {
  auto f32 = generate(options("bitnet-b1.58", "small", DType::kF32, "f32"));
  auto tq2 = generate(options("bitnet-b1.58", "small", DType::kTQ2_0, "tq2"));
  ASSERT_TRUE(f32.ok() && tq2.ok()) << f32.status().ToString() << tq2.status().ToString();
  int n_ternary = 0;
  for (const auto& [name, planned] : planned_tensors_of("bitnet-b1.58", "small", DType::kTQ2_0)) {
    const GgufTensor* q = tq2->find_tensor(name);
    const GgufTensor* x = f32->find_tensor(name);
    ASSERT_TRUE(q != nullptr && x != nullptr) << name;
    if (planned.kind != WeightKind::kTernary) continue;
    ++n_ternary;
    ASSERT_EQ(q->type, DType::kTQ2_0) << name;
    std::vector<float> back(x->n_elements);
    ASSERT_TRUE(dequantize_row(DType::kTQ2_0, q->data, back.data(), x->n_elements).ok()) << name;
    EXPECT_EQ(std::memcmp(back.data(), x->data, x->n_elements * sizeof(float)), 0) << name;
  }
  EXPECT_EQ(n_ternary, 4 * 7);
  EXPECT_EQ(tq2->find_tensor("blk.0.ffn_sub_norm.weight")->type, DType::kF32);
}

// small as bitnet and 2B4T narrowed: llama's numbering (attn_v and ffn_down raised in blocks 2 and 3 of 4),
// token_embd taking the output's Q6_K as in every tied model, the sub-norms F32; in TQ2_0 every ternary
// matrix TQ2_0.
TEST_F(BitnetGeneratorTest, QuantizeAndGenerateAgree) {
  auto small = quantized_as_planned(*model_preset("bitnet", "small"), "q4_k_m", DType::kQ4_K, "bitnet4");
  EXPECT_EQ(small["token_embd.weight"].type, DType::kQ6_K);
  EXPECT_EQ(small["blk.3.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(small["blk.0.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(small["blk.1.ffn_down.weight"].type, DType::kQ4_K);
  EXPECT_EQ(small["blk.1.ffn_sub_norm.weight"].type, DType::kF32);
  auto own = quantized_as_planned(narrowed_2b4t(""), "q4_k_m", DType::kQ4_K, "own4");
  EXPECT_EQ(own["blk.0.attn_sub_norm.weight"].type, DType::kF32);
  EXPECT_EQ(own["blk.0.ffn_down.weight"].type, DType::kQ6_K);
  EXPECT_EQ(own.count("output.weight"), 0u);
  auto tq2 = quantized_as_planned(*model_preset("bitnet", "small"), "tq2_0", DType::kTQ2_0, "bitnet-tq2");
  EXPECT_EQ(tq2["blk.0.attn_q.weight"].type, DType::kTQ2_0);
  EXPECT_EQ(tq2["blk.3.ffn_down.weight"].type, DType::kTQ2_0);
  EXPECT_EQ(tq2["blk.3.ffn_sub_norm.weight"].type, DType::kF32);
}

}  // namespace
}  // namespace strata
