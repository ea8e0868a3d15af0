// Microsoft's BitNet files (bitnet-b1.58 with I2_S matrices: one scale per tensor) load by reading
// each I2_S matrix as TQ2_0 (tensor/i2s.h), so they give exactly the logits of the same model
// stored as TQ2_0, and the float64 reference's.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gguf/gguf_writer.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/reference_forward.h"
#include "model/test_model.h"
#include "tensor/half.h"

namespace strata {
namespace {

constexpr int kTokens = 6;
constexpr float kScale = 0.0625f;  // each matrix's one scale: exact in fp16

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "/" + name; }

// TQ2_0 bytes with every block's fp16 scale set to kScale.
std::vector<uint8_t> with_one_scale(const GgufTensor& t) {
  std::vector<uint8_t> bytes(t.n_bytes);
  std::memcpy(bytes.data(), t.data, t.n_bytes);
  const uint16_t d = float_to_half(kScale);
  for (size_t b = 0; b < bytes.size(); b += 66) std::memcpy(bytes.data() + b + 64, &d, sizeof d);
  return bytes;
}

// The same codes as I2_S: each block's 64 code bytes with their bit pairs in the other order, then
// the tensor's scale, padded to 32 bytes.
std::vector<uint8_t> as_i2s(const std::vector<uint8_t>& tq2) {
  std::vector<uint8_t> out;
  for (size_t b = 0; b < tq2.size(); b += 66) {
    for (size_t i = 0; i < 64; ++i) {
      const uint8_t c = tq2[b + i];
      out.push_back(static_cast<uint8_t>((c >> 6) | ((c >> 2) & 0x0C) | ((c << 2) & 0x30) | (c << 6)));
    }
  }
  std::vector<uint8_t> scale(32, 0);
  std::memcpy(scale.data(), &kScale, sizeof kScale);
  out.insert(out.end(), scale.begin(), scale.end());
  return out;
}

// base's metadata and tensors, its TQ2_0 matrices given one scale each, stored as I2_S or TQ2_0.
Status write_one_scale(const GgufFile& base, bool i2s, const std::string& path) {
  GgufWriter w;
  for (const auto& [k, v] : base.metadata()) w.set(k, v);
  for (const GgufTensor& t : base.tensors()) {
    if (t.type != DType::kTQ2_0) {
      w.add_tensor(t.name, t.type, t.dims, [&t](uint8_t* dst) { std::memcpy(dst, t.data, t.n_bytes); });
      continue;
    }
    std::vector<uint8_t> tq2 = with_one_scale(t);
    w.add_tensor_bytes(t.name, i2s ? DType::kI2_S : DType::kTQ2_0, t.dims, i2s ? as_i2s(tq2) : tq2);
  }
  return w.write(path);
}

std::vector<float> logits_of(const std::string& path) {
  auto model = Model::Load(path);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return {};
  const Model& m = **model;
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, kTokens).value());
  auto scratch = m.make_scratch(kTokens, kTokens);
  ThreadPool pool(2);
  std::vector<Row> rows;
  for (int pos = 0; pos < kTokens; ++pos) rows.push_back(Row{0, pos, (pos * 37 + 5) % m.hparams().n_vocab, true});
  std::vector<float> logits(static_cast<size_t>(kTokens) * m.hparams().n_vocab);
  m.forward(rows, *kv, logits.data(), *scratch, pool);
  return logits;
}

TEST(I2sModel, GivesTheLogitsOfTheSameModelStoredAsTq2_0) {
  testing::TestModelSpec spec;
  spec.arch = "bitnet-b1.58";
  spec.type = DType::kTQ2_0;
  const std::string base_path = temp_path("bitnet_tq2.gguf");
  ASSERT_TRUE(testing::write_test_model(spec, base_path).ok());
  auto base = GgufFile::Open(base_path);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  const std::string tq2_path = temp_path("bitnet_one_scale_tq2.gguf"), i2s_path = temp_path("bitnet_i2s.gguf");
  ASSERT_TRUE(write_one_scale(*base, false, tq2_path).ok());
  ASSERT_TRUE(write_one_scale(*base, true, i2s_path).ok());
  auto i2s_file = GgufFile::Open(i2s_path);
  ASSERT_TRUE(i2s_file.ok()) << i2s_file.status().ToString();
  EXPECT_EQ(i2s_file->find_tensor("blk.0.ffn_down.weight")->type, DType::kI2_S);

  const std::vector<float> tq2 = logits_of(tq2_path), i2s = logits_of(i2s_path);
  ASSERT_FALSE(tq2.empty());
  ASSERT_EQ(tq2.size(), i2s.size());
  EXPECT_EQ(std::memcmp(tq2.data(), i2s.data(), sizeof(float) * tq2.size()), 0);

  auto ref = testing::ReferenceForward::Load(*GgufFile::Open(tq2_path));
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  std::vector<int32_t> tokens;
  for (int pos = 0; pos < kTokens; ++pos) tokens.push_back((pos * 37 + 5) % ref->hparams().n_vocab);
  const auto [rms_rel, max_rel] = testing::logit_errors(*ref, tokens, i2s.data());
  EXPECT_LT(rms_rel, 0.04);  // the activation rounding of the quantised types (quant_types_test.cc)
  for (const std::string& p : {base_path, tq2_path, i2s_path}) std::remove(p.c_str());
}

// An I2_S scale fp16 cannot hold exactly is refused, naming the tensor.
TEST(I2sModel, RefusesAScaleTq2_0CannotHold) {
  testing::TestModelSpec spec;
  spec.arch = "bitnet-b1.58";
  spec.type = DType::kTQ2_0;
  const std::string base_path = temp_path("bitnet_tq2_b.gguf"), i2s_path = temp_path("bitnet_i2s_b.gguf");
  ASSERT_TRUE(testing::write_test_model(spec, base_path).ok());
  auto base = GgufFile::Open(base_path);
  ASSERT_TRUE(base.ok());
  GgufWriter w;
  for (const auto& [k, v] : base->metadata()) w.set(k, v);
  for (const GgufTensor& t : base->tensors()) {
    if (t.type != DType::kTQ2_0) {
      w.add_tensor(t.name, t.type, t.dims, [&t](uint8_t* dst) { std::memcpy(dst, t.data, t.n_bytes); });
      continue;
    }
    std::vector<uint8_t> bytes = as_i2s(with_one_scale(t));
    const float odd = 0.1f;
    std::memcpy(bytes.data() + bytes.size() - 32, &odd, sizeof odd);
    w.add_tensor_bytes(t.name, DType::kI2_S, t.dims, bytes);
  }
  ASSERT_TRUE(w.write(i2s_path).ok());
  auto model = Model::Load(i2s_path);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("tensor token_embd.weight: I2_S: scale 0.1"), std::string::npos)
      << model.status().ToString();
  EXPECT_NE(model.status().message().find("is not exactly an fp16 value"), std::string::npos);
  for (const std::string& p : {base_path, i2s_path}) std::remove(p.c_str());
}

}  // namespace
}  // namespace strata
