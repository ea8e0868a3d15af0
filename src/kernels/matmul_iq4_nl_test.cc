// The SIMD IQ4_NL matmul against its scalar oracle, bit for bit: per output, 8 float lanes;
// lane k of each 32-element block gets the exact integer dot product of elements 4k..4k+3
// (level codes times activation codes), fused-multiply-added with d_w * d_x in block order;
// the lanes are then summed as ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/test_weights.h"
#include "tensor/half.h"
#include "tensor/iq_grids.h"

namespace strata::kernels {
namespace {

float oracle(const BlockIQ4_NL* w, const Q8Row& x, int64_t n_in) {
  float acc[8] = {};
  for (int64_t s = 0; s < n_in / kQK; ++s) {
    int levels[kQK];
    for (int j = 0; j < 16; ++j) {
      levels[j] = iq::kIq4nlValues[w[s].qs[j] & 0x0f];
      levels[j + 16] = iq::kIq4nlValues[w[s].qs[j] >> 4];
    }
    const float scale = half_to_float(w[s].d) * x.d[s];
    for (int k = 0; k < 8; ++k) {
      int dot = 0;
      for (int i = 4 * k; i < 4 * k + 4; ++i) dot += levels[i] * x.q[s * kQK + i];
      acc[k] = std::fma(static_cast<float>(dot), scale, acc[k]);
    }
  }
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

TEST(MatmulIQ4_NL, SimdTablesGiveTheOracleBits) {
  constexpr int64_t kIn = 512, kOut = 37;
  constexpr int kRows = 5;
  testing::TestWeights weights(DType::kIQ4_NL, kOut, kIn, 17);
  const WeightMatrix& w = weights.matrix();
  const std::vector<float> x = testing::random_floats(kRows * kIn, 18);
  const Q8RowLayout layout = make_q8_row_layout(kIn, q8_block_for(DType::kIQ4_NL));
  ASSERT_EQ(layout.block, kQK);
  std::vector<std::byte> xq(layout.row_bytes * kRows);
  for (int r = 0; r < kRows; ++r) {
    reference_table().quantize_q8_row(x.data() + r * kIn, kIn, kQK, &xq[r * layout.row_bytes]);
  }
  ThreadPool pool(2);
  AlignedBuffer scratch;
  int n_tables = 0;
  for (const KernelTable* table : {avx2_table(), avx512_table()}) {
    if (table == nullptr) continue;
    ++n_tables;
    for (int n_rows : {1, 2, kRows}) {
      std::vector<float> y(static_cast<size_t>(n_rows) * kOut);
      matmul_with_table(*table, w, x.data(), n_rows, y.data(), scratch, pool);
      for (int r = 0; r < n_rows; ++r) {
        const Q8Row xr = q8_row(&xq[r * layout.row_bytes], layout);
        for (int64_t o = 0; o < kOut; ++o) {
          const auto* base = static_cast<const std::byte*>(w.data);
          const float want = oracle(reinterpret_cast<const BlockIQ4_NL*>(base + o * w.row_bytes), xr, kIn);
          ASSERT_EQ(0, std::memcmp(&want, &y[r * kOut + o], sizeof want))
              << table->name << " rows " << n_rows << " output (" << r << ", " << o << "): " << y[r * kOut + o]
              << " vs oracle " << want;
        }
      }
    }
  }
  if (n_tables == 0) GTEST_SKIP() << "no AVX2 on this CPU";
}

}  // namespace
}  // namespace strata::kernels
