// Matmul results against float64 dot products, for every type and kernel table.
//
// Two bounds, both derived rather than tuned:
//  * against the dequantised Q8 activations (the values the integer path multiplies):
//    only float32 rounding differs. Each output sums n_in / 32 block partials (and one
//    correction per super-block) into one 8-lane accumulator; with the scale products
//    rounded once, the error stays below (blocks + 16) * 2^-23 * sum |w_i * xq_i|. We
//    allow 4x that: the K-quant mins and the Q6_K offset are separate terms that cancel
//    part of the sum, and the dequantised reference weights carry their own rounding.
//  * against the exact float inputs: the activation rounding adds at most
//    sum_i |w_i| * d_x(block of i) / 2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/reference/reference.h"
#include "kernels/table_list.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

using testing::TestWeights;

struct AccuracyCase {
  const KernelTable* table;
  DType type;
};

std::vector<AccuracyCase> accuracy_cases() {
  const std::vector<const KernelTable*> tables = testing::runnable_tables();
  std::vector<AccuracyCase> cases;
  for (const KernelTable* t : tables) {
    for (DType type : testing::matmul_types()) cases.push_back({t, type});
  }
  return cases;
}

std::string accuracy_case_name(const ::testing::TestParamInfo<AccuracyCase>& info) {
  return std::string(info.param.table->name) + "_" + std::string(dtype_name(info.param.type));
}

bool is_float_type(DType t) { return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16; }

class MatmulAccuracy : public ::testing::TestWithParam<AccuracyCase> {};

constexpr int64_t kIn = 1024;
constexpr int64_t kAccuracyOut = 40;
constexpr int kAccuracyRows = 3;

TEST_P(MatmulAccuracy, MatchesFloat64DotOfTheValuesItMultiplies) {
  const AccuracyCase& c = GetParam();
  TestWeights weights(c.type, kAccuracyOut, kIn, 21);
  const std::vector<float> x = testing::random_floats(kAccuracyRows * kIn, 22);
  std::vector<float> y(kAccuracyRows * kAccuracyOut);
  AlignedBuffer scratch;
  ThreadPool pool(2);
  matmul_with_table(*c.table, weights.matrix(), x.data(), kAccuracyRows, y.data(), scratch, pool);

  const Q8RowLayout layout = make_q8_row_layout(kIn, q8_block_for(c.type));
  std::vector<std::byte> xq(layout.row_bytes);
  for (int r = 0; r < kAccuracyRows; ++r) {
    const float* xr = x.data() + r * kIn;
    reference::quantize_q8_row(xr, kIn, layout.block, xq.data());
    const Q8Row q8 = q8_row(xq.data(), layout);
    for (int64_t o = 0; o < kAccuracyOut; ++o) {
      const std::vector<float> w = weights.row_floats(o);
      double exact_seen = 0.0, abs_seen = 0.0, exact_x = 0.0, rounding = 0.0;
      for (int64_t i = 0; i < kIn; ++i) {
        const double dx = is_float_type(c.type) ? 0.0 : q8.d[i / layout.block];
        const double xi = is_float_type(c.type) ? xr[i] : dx * q8.q[i];
        exact_seen += w[i] * xi;
        abs_seen += std::fabs(w[i] * xi);
        exact_x += static_cast<double>(w[i]) * xr[i];
        rounding += std::fabs(w[i]) * dx / 2;
      }
      const double got = y[r * kAccuracyOut + o];
      const double float_bound = 4.0 * (kIn / 32.0 + 16.0) * std::ldexp(1.0, -23) * abs_seen + 1e-30;
      EXPECT_NEAR(got, exact_seen, float_bound) << "row " << r << " out " << o;
      EXPECT_NEAR(got, exact_x, float_bound + rounding * (1 + 1e-6)) << "row " << r << " out " << o;
    }
  }
}

TEST_P(MatmulAccuracy, AgreesWithTheScalarTable) {
  const AccuracyCase& c = GetParam();
  TestWeights weights(c.type, kAccuracyOut, kIn, 31);
  const std::vector<float> x = testing::random_floats(kAccuracyRows * kIn, 32);
  std::vector<float> got(kAccuracyRows * kAccuracyOut), want(kAccuracyRows * kAccuracyOut);
  AlignedBuffer scratch;
  ThreadPool pool(1);
  matmul_with_table(*c.table, weights.matrix(), x.data(), kAccuracyRows, got.data(), scratch, pool);
  matmul_with_table(reference_table(), weights.matrix(), x.data(), kAccuracyRows, want.data(), scratch, pool);
  double scale = 0.0;  // the largest output magnitude of this matrix
  for (float v : want) scale = std::max(scale, std::fabs(static_cast<double>(v)));
  double max_rel = 0.0;
  for (size_t i = 0; i < got.size(); ++i) max_rel = std::max(max_rel, std::fabs(got[i] - want[i]) / scale);
  // Same integer products; float32 accumulation of ~n_in / 32 partials vs double.
  EXPECT_LT(max_rel, 2e-5) << "largest difference relative to the largest output";
}

INSTANTIATE_TEST_SUITE_P(AllTypes, MatmulAccuracy, ::testing::ValuesIn(accuracy_cases()), accuracy_case_name);

TEST(QuantizeQ8Row, SimdMatchesScalarBitForBit) {
  for (const KernelTable* simd : testing::runnable_tables()) {
  for (int block : {32, 256}) {
    for (int64_t n : {256, 2048, 5632}) {
      std::vector<float> x = testing::random_floats(n, static_cast<uint32_t>(n));
      for (int64_t i = 0; i < block; ++i) x[i] = 0.0f;  // an all-zero block: d = 0
      if (n > 300) x[300] = NAN;  // a NaN in a later block (n = 256 is the zero block alone)
      const Q8RowLayout layout = make_q8_row_layout(n, block);
      std::vector<std::byte> a(layout.row_bytes), b(layout.row_bytes);
      reference_table().quantize_q8_row(x.data(), n, block, a.data());
      simd->quantize_q8_row(x.data(), n, block, b.data());
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), layout.row_bytes))
          << simd->name << " n_in " << n << " block " << block;
    }
  }
  }
}

TEST(QuantizeQ8Row, CodesReconstructTheInputWithinHalfAStep) {
  const int64_t n = 512;
  const std::vector<float> x = testing::random_floats(n, 3);
  for (int block : {32, 256}) {
    const Q8RowLayout layout = make_q8_row_layout(n, block);
    std::vector<std::byte> buf(layout.row_bytes);
    active_table().quantize_q8_row(x.data(), n, block, buf.data());
    const Q8Row q = q8_row(buf.data(), layout);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_NEAR(q.d[i / block] * q.q[i], x[i], q.d[i / block] * 0.5f * (1 + 1e-5f)) << i;
    }
  }
  const Q8RowLayout layout = make_q8_row_layout(n, 32);
  std::vector<std::byte> buf(layout.row_bytes);
  active_table().quantize_q8_row(x.data(), n, 32, buf.data());
  const Q8Row q = q8_row(buf.data(), layout);
  for (int64_t h = 0; h < n / 16; ++h) {
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += q.q[h * 16 + i];
    EXPECT_EQ(sum, q.sum16[h]) << "half-block " << h;
  }
}

}  // namespace
}  // namespace strata::kernels
