// The single-input-row i-quant kernels (cpu/avx2_matmul_iq_row.cc: what a decode step
// runs) against the tiled kernels, which matmul_simd_oracle_test.cc holds to the oracle
// bit for bit. The matrix is large enough (1024 super-blocks) that random codes reach every
// grid index, sign pattern and scale, so a wrong table byte or lane order shows up.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/thread_pool.h"
#include "kernels/kernel_table.h"
#include "kernels/table_list.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

// Three input rows, which the AVX2 table runs tiled for IQ1_S and IQ1_M and in strips for
// the other lattice types (the tiles' bits, held to the oracle by matmul_simd_oracle_test.cc;
// two IQ1_M rows go one at a time through the single-row kernel).
void expect_single_row_equals_tiled(DType type) {
  constexpr int64_t kIn = 4096, kOut = 64;
  constexpr int kTiledRows = 3;
  testing::TestWeights weights(type, kOut, kIn, 23);
  const std::vector<float> x = testing::random_floats(kTiledRows * kIn, 29);
  ThreadPool pool(2);
  AlignedBuffer scratch;
  for (const KernelTable* table : testing::runnable_tables()) {
    if (table == &reference_table()) continue;
    std::vector<float> alone(kOut), tiled(kTiledRows * kOut);
    matmul_with_table(*table, weights.matrix(), x.data(), 1, alone.data(), scratch, pool);
    matmul_with_table(*table, weights.matrix(), x.data(), kTiledRows, tiled.data(), scratch, pool);
    for (int64_t o = 0; o < kOut; ++o) {
      ASSERT_EQ(0, std::memcmp(&alone[o], &tiled[o], sizeof(float)))
          << dtype_name(type) << " on " << table->name << ", output " << o << ": " << alone[o] << " alone vs "
          << tiled[o] << " tiled";
    }
  }
}

TEST(MatmulIqSingleRow, Iq3SOneInputRowGivesTheTiledBits) { expect_single_row_equals_tiled(DType::kIQ3_S); }
TEST(MatmulIqSingleRow, Iq3XxsOneInputRowGivesTheTiledBits) { expect_single_row_equals_tiled(DType::kIQ3_XXS); }
TEST(MatmulIqSingleRow, Iq2XxsOneInputRowGivesTheTiledBits) { expect_single_row_equals_tiled(DType::kIQ2_XXS); }
TEST(MatmulIqSingleRow, Iq2XsOneInputRowGivesTheTiledBits) { expect_single_row_equals_tiled(DType::kIQ2_XS); }
TEST(MatmulIqSingleRow, Iq2SOneInputRowGivesTheTiledBits) { expect_single_row_equals_tiled(DType::kIQ2_S); }
TEST(MatmulIqSingleRow, Iq1SOneInputRowGivesTheTiledBits) { expect_single_row_equals_tiled(DType::kIQ1_S); }
TEST(MatmulIqSingleRow, Iq1MOneInputRowGivesTheTiledBits) { expect_single_row_equals_tiled(DType::kIQ1_M); }

}  // namespace
}  // namespace strata::kernels
