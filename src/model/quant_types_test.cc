// Models whose weights use the types added with issue 12 (Q2_K, Q3_K, Q4_1, Q5_1 and the
// i-quants) load and run, every one on its SIMD kernels. Each ../shared/quants/qref-TYPE.gguf
// (a 2-layer llama quantised by llama.cpp) is checked against the float64 reference forward
// (reference_forward.h), which decodes the same weights with the same decoder, so only the
// activation rounding (and the float summation order) differs.
//
// Bounds, as in reference_forward_test.cc: each matmul input is rounded to 8 bits per block
// of 32 (Q4_1, Q5_1, IQ4_NL) or 256 (the super-block types), an error uniform in +-d/2 with
// d = amax / 127. For 256 inputs amax is ~3 sigma rather than ~2.1, so the per-input error
// is ~0.7% of the activation RMS instead of ~0.5%, and ~11 roundings reach a logit:
// rms_rel ~sqrt(11) * 0.7% ~ 2.3%. Measured 1.1-1.7%, max_rel 4.4-7.4%. Bound: rms_rel < 4%,
// max_rel < 20%. A wrong decoder or a wrong activation block gives errors of order 100%.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/reference_forward.h"

namespace strata {
namespace {

const std::string kQuants = std::string(STRATA_SHARED_DIR) + "/quants/";
constexpr int kPrompt = 8;   // tokens checked against the reference
constexpr int kGreedy = 8;   // greedy decode steps after them
constexpr int kMaxTokens = kPrompt + kGreedy;

class QuantTypesTest : public ::testing::TestWithParam<const char*> {};

TEST_P(QuantTypesTest, LoadsAndMatchesTheFloat64ReferenceThenDecodesGreedily) {
  const std::string path = kQuants + "qref-" + GetParam() + ".gguf";
  auto model = Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto gguf = GgufFile::Open(path);
  ASSERT_TRUE(gguf.ok());
  auto ref = testing::ReferenceForward::Load(*gguf);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();

  const Model& m = **model;
  const int n_vocab = m.hparams().n_vocab;
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, kMaxTokens).value());
  auto scratch = m.make_scratch(kMaxTokens, kMaxTokens);
  ThreadPool pool(2);
  std::vector<int32_t> tokens;
  std::vector<Row> rows;
  for (int pos = 0; pos < kPrompt; ++pos) {
    tokens.push_back(static_cast<int32_t>((pos * 37 + 5) % n_vocab));
    rows.push_back(Row{0, pos, tokens.back(), true});
  }
  std::vector<float> logits(static_cast<size_t>(kPrompt) * n_vocab);
  m.forward(rows, *kv, logits.data(), *scratch, pool);

  const auto [rms_rel, max_rel] = testing::logit_errors(*ref, tokens, logits.data());
  EXPECT_LT(rms_rel, 0.04) << GetParam();
  EXPECT_LT(max_rel, 0.20) << GetParam();
  RecordProperty("rms_rel", std::to_string(rms_rel));
  RecordProperty("max_rel", std::to_string(max_rel));

  int32_t token = kernels::argmax(logits.data() + static_cast<size_t>(kPrompt - 1) * n_vocab, n_vocab);
  std::vector<float> step_logits(n_vocab);
  for (int pos = kPrompt; pos < kMaxTokens; ++pos) {
    const Row row{0, pos, token, true};
    m.forward(std::span<const Row>(&row, 1), *kv, step_logits.data(), *scratch, pool);
    for (float v : step_logits) ASSERT_TRUE(std::isfinite(v)) << GetParam() << " at position " << pos;
    token = kernels::argmax(step_logits.data(), n_vocab);
    ASSERT_GE(token, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantTypesTest,
                         ::testing::Values("Q2_K", "Q3_K_S", "Q4_1", "Q5_1", "IQ4_NL", "IQ4_XS", "IQ3_S", "IQ3_XXS",
                                           "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ1_S", "IQ1_M"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace strata
