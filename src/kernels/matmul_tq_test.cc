// The TQ1_0 and TQ2_0 matmuls (cpu/avx2_matmul_tq.cc) against their scalar oracle, bit for
// bit, on every SIMD table this CPU runs: per output 8 float lanes; per super-block, lane k gets
// the exact integer sum of the codes u = t + 1 (TQ2_0's 2-bit code as it is, TQ1_0's trit)
// times the activation codes over elements 4k..4k+3 of each 32, less the activation sum of
// elements 32k..32k+31, then one fused multiply-add by d_w * d_x; the lanes are summed as
// ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)). Also: rows alone and in batches give the
// same bits on every path (tiles for one input row, strips from two, one-row strips for long
// rows, tiles again past the strip's size), and quantized ternary weights agree with a
// float64 dot product within the float32 rounding of the lanes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/table_list.h"
#include "kernels/test_weights.h"
#include "tensor/half.h"
#include "tensor/quantize.h"

namespace strata::kernels {
namespace {

// The code (0..3) of element e of a TQ1_0 / TQ2_0 super-block, from the layout facts.
int tq_code(DType type, const std::byte* block, int e) {
  if (type == DType::kTQ2_0) {
    const auto& b = *reinterpret_cast<const BlockTQ2_0*>(block);
    return (b.qs[e / 128 * 32 + e % 32] >> (2 * (e % 128 / 32))) & 3;
  }
  const auto& b = *reinterpret_cast<const BlockTQ1_0*>(block);
  static constexpr int kPow3[5] = {1, 3, 9, 27, 81};
  int byte, n;
  if (e < 160) {
    byte = b.qs[e % 32], n = e / 32;
  } else if (e < 240) {
    byte = b.qs[32 + (e - 160) % 16], n = (e - 160) / 16;
  } else {
    byte = b.qh[(e - 240) % 4], n = (e - 240) / 4;
  }
  return ((byte * kPow3[n]) % 256 * 3) >> 8;
}

float tq_lane_sum(const float* a) { return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7])); }

float tq_oracle(DType type, const std::byte* row, const Q8Row& x, int64_t n_in) {
  const size_t block_bytes = dtype_info(type).block_bytes;
  float acc[8] = {};
  for (int64_t s = 0; s < n_in / kQKK; ++s) {
    const std::byte* block = row + s * block_bytes;
    int lanes[8] = {};
    for (int e = 0; e < kQKK; ++e) lanes[e % 32 / 4] += tq_code(type, block, e) * x.q[s * kQKK + e];
    for (int k = 0; k < 8; ++k) lanes[k] -= x.sum16[s * 16 + 2 * k] + x.sum16[s * 16 + 2 * k + 1];
    uint16_t d_bits;
    std::memcpy(&d_bits, block + block_bytes - 2, sizeof d_bits);  // d is the block's last field
    const float scale = half_to_float(d_bits) * x.d[s];
    for (int k = 0; k < 8; ++k) acc[k] = std::fma(static_cast<float>(lanes[k]), scale, acc[k]);
  }
  return tq_lane_sum(acc);
}

std::vector<const KernelTable*> tq_simd_tables() {
  std::vector<const KernelTable*> tables = testing::runnable_tables();
  tables.erase(tables.begin());  // the scalar reference (float64 dots, not the oracle's steps)
  return tables;
}

// Every SIMD table against the oracle for w and each row count of rows (x holds the most).
void expect_tq_oracle_bits(const WeightMatrix& w, const std::vector<float>& x, std::initializer_list<int> rows) {
  const Q8RowLayout layout = make_q8_row_layout(w.n_in, q8_block_for(w.type));
  ASSERT_EQ(layout.block, kQKK);
  const int max_rows = std::max(rows);
  std::vector<std::byte> xq(layout.row_bytes * max_rows);
  for (int r = 0; r < max_rows; ++r) {
    reference_table().quantize_q8_row(x.data() + r * w.n_in, w.n_in, layout.block, &xq[r * layout.row_bytes]);
  }
  const std::vector<const KernelTable*> tables = tq_simd_tables();
  if (tables.empty()) GTEST_SKIP() << "no AVX2 on this CPU";
  // A row's oracle bits are the same in every batch: computed once, for the most rows.
  std::vector<float> want(static_cast<size_t>(max_rows) * w.n_out);
  for (int r = 0; r < max_rows; ++r) {
    const Q8Row xr = q8_row(&xq[r * layout.row_bytes], layout);
    for (int64_t o = 0; o < w.n_out; ++o) {
      want[r * w.n_out + o] = tq_oracle(w.type, static_cast<const std::byte*>(w.data) + o * w.row_bytes, xr, w.n_in);
    }
  }
  ThreadPool pool(2);
  AlignedBuffer scratch;
  for (const KernelTable* table : tables) {
    for (int n_rows : rows) {
      std::vector<float> y(static_cast<size_t>(n_rows) * w.n_out);
      matmul_with_table(*table, w, x.data(), n_rows, y.data(), scratch, pool);
      for (size_t k = 0; k < y.size(); ++k) {
        ASSERT_EQ(0, std::memcmp(&want[k], &y[k], sizeof(float)))
            << dtype_name(w.type) << " on " << table->name << ", rows " << n_rows << ", output (" << k / w.n_out
            << ", " << k % w.n_out << "): " << y[k] << " vs oracle " << want[k];
      }
    }
  }
}

void expect_tq_oracle_bits_for(DType type, int64_t n_out, int64_t n_in, std::initializer_list<int> rows) {
  testing::TestWeights weights(type, n_out, n_in, 23);
  expect_tq_oracle_bits(weights.matrix(), testing::random_floats(std::max(rows) * n_in, 24), rows);
}

// Random bytes (every TQ1_0 byte value, TQ2_0's code 3 too): one input row (tiles of 4, 2 and
// 1 weight rows), strips of 2 weight rows with every tile remainder, one-row strips (70
// super-blocks), the tiles past the strip (130), and more input rows than one row block.
void expect_tq_paths(DType type) {
  expect_tq_oracle_bits_for(type, 37, 512, {1, 2, 3, 4, 5});
  expect_tq_oracle_bits_for(type, 21, 2560, {8, 9, 10, 11, 14});
  expect_tq_oracle_bits_for(type, 3, 256 * 70, {1, 7});
  expect_tq_oracle_bits_for(type, 2, 256 * 130, {1, 2, 3, 8});
  expect_tq_oracle_bits_for(type, 3, 512, {770});
}

TEST(MatmulTernary, Tq1TablesGiveTheOracleBits) { expect_tq_paths(DType::kTQ1_0); }

TEST(MatmulTernary, Tq2TablesGiveTheOracleBits) { expect_tq_paths(DType::kTQ2_0); }

// Weights as the quantizer writes them (codes 0..2 only, the extremes in every block) and
// activations with large outliers.
std::vector<uint8_t> quantized_ternary(DType type, int64_t n_out, int64_t n_in, std::vector<float>* floats) {
  *floats = testing::random_floats(static_cast<size_t>(n_out * n_in), 51, 0.02f);
  std::vector<uint8_t> bytes(*dtype_row_bytes(type, static_cast<uint64_t>(n_out * n_in)));
  EXPECT_TRUE(strata::quantize_row(type, floats->data(), bytes.data(), floats->size()).ok());
  return bytes;
}

TEST(MatmulTernary, QuantizedWeightsGiveTheOracleBits) {
  for (DType type : {DType::kTQ1_0, DType::kTQ2_0}) {
    std::vector<float> floats;
    std::vector<uint8_t> bytes = quantized_ternary(type, 21, 1536, &floats);
    const WeightMatrix w{type, bytes.data(), 21, 1536, *dtype_row_bytes(type, 1536)};
    expect_tq_oracle_bits(w, testing::random_floats(6 * 1536, 52, 3.0f), {1, 2, 6});
  }
}

// A row's bits alone and in batches of every size up to 11 (tiles of 2 or 4 input rows, more
// than one of them, and every remainder), on 1 and 3 threads, at BitNet b1.58 2B's width (the
// oracle tests above cover the long rows' paths; matmul_batch_invariance_test.cc 17 rows and the
// scalar table).
TEST(MatmulTernary, EachRowMatchesRunningItAlone) {
  constexpr int kRows = 11;
  constexpr int64_t kOut = 37;
  ThreadPool single(1), three(3);
  AlignedBuffer scratch;
  for (const KernelTable* table : tq_simd_tables()) {
    for (DType type : {DType::kTQ1_0, DType::kTQ2_0}) {
      for (int64_t n_in : {2560}) {
        testing::TestWeights weights(type, kOut, n_in, 61);
        const std::vector<float> x = testing::random_floats(kRows * n_in, 62);
        std::vector<float> alone(kRows * kOut), batch(kRows * kOut);
        for (int r = 0; r < kRows; ++r) {
          matmul_with_table(*table, weights.matrix(), x.data() + r * n_in, 1, alone.data() + r * kOut, scratch, single);
        }
        for (int n_rows = 2; n_rows <= kRows; ++n_rows) {
          matmul_with_table(*table, weights.matrix(), x.data(), n_rows, batch.data(), scratch,
                            n_rows % 2 ? three : single);
          ASSERT_EQ(0, std::memcmp(batch.data(), alone.data(), n_rows * kOut * sizeof(float)))
              << table->name << " " << dtype_name(type) << " n_in " << n_in << ", a batch of " << n_rows;
        }
      }
    }
  }
}

// Against float64 sums of the decoded weights times the quantized activations: each output
// rounds one product d_w * d_x and one fused multiply-add per super-block and lane, and 7 lane
// additions, each by at most 2^-24 of what it sums. A lane holds u * x less activation sums
// (u = t + 1), so what it sums is at most sum (|t| + 2) |x| d_w d_x: the output is within
// (n_in / 256 + 8) * 2^-23 of that (2^-23 for the product's rounding carried along).
TEST(MatmulTernary, AgreesWithFloat64WithinTheFloatRounding) {
  constexpr int64_t kIn = 6912, kOut = 9;  // BitNet b1.58 2B's ffn_down width
  for (DType type : {DType::kTQ1_0, DType::kTQ2_0}) {
    std::vector<float> floats;
    std::vector<uint8_t> bytes = quantized_ternary(type, kOut, kIn, &floats);
    const WeightMatrix w{type, bytes.data(), kOut, kIn, *dtype_row_bytes(type, kIn)};
    const std::vector<float> x = testing::random_floats(2 * kIn, 71);
    const Q8RowLayout layout = make_q8_row_layout(kIn, kQKK);
    std::vector<std::byte> xq(layout.row_bytes);
    std::vector<float> wf(kIn), y(2 * kOut);
    ThreadPool pool(2);
    AlignedBuffer scratch;
    for (const KernelTable* table : testing::runnable_tables()) {
      matmul_with_table(*table, w, x.data(), 2, y.data(), scratch, pool);
      for (int r = 0; r < 2; ++r) {
        reference_table().quantize_q8_row(x.data() + r * kIn, kIn, kQKK, xq.data());
        const Q8Row q8 = q8_row(xq.data(), layout);
        for (int64_t o = 0; o < kOut; ++o) {
          ASSERT_TRUE(strata::dequantize_row(type, bytes.data() + o * w.row_bytes, wf.data(), kIn).ok());
          double exact = 0.0, magnitude = 0.0;
          for (int64_t i = 0; i < kIn; ++i) {
            const double xi = static_cast<double>(q8.d[i / kQKK]) * q8.q[i];
            uint16_t d_bits;  // the block's d: its last two bytes
            std::memcpy(&d_bits, bytes.data() + o * w.row_bytes + (i / kQKK + 1) * dtype_info(type).block_bytes - 2, 2);
            exact += static_cast<double>(wf[i]) * xi;
            magnitude += (std::fabs(wf[i]) + 2.0 * half_to_float(d_bits)) * std::fabs(xi);
          }
          const double bound = (kIn / kQKK + 8) * std::ldexp(1.0, -23) * magnitude;
          EXPECT_NEAR(y[r * kOut + o], exact, bound) << table->name << " " << dtype_name(type) << " " << r << " " << o;
        }
      }
    }
  }
}

}  // namespace
}  // namespace strata::kernels
