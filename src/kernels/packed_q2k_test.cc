// The packed Q2_K layout's own cases (the checks every packed layout shares are in
// packed_matmul_test.cc): its size, and the extreme codes, scales and mins that give the
// largest integer sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/packed_q2k.h"
#include "kernels/packed_test_support.h"

namespace strata::kernels {
namespace {

using testing::PackedWeights;

TEST(PackedQ2K, SizeIsQ2_KsSize) {
  EXPECT_EQ(packed_q2_k_bytes(64, 2048), *dtype_row_bytes(DType::kQ2_K, 2048) * 64);
  EXPECT_EQ(packed_q2_k_bytes(65, 2048), *dtype_row_bytes(DType::kQ2_K, 2048) * 80);  // padded group
}

TEST(PackedQ2K, ExtremeCodesAreExactOnEverySimdTable) {
  // Codes 3 (every bit set), scales and mins 15 against activations at +-127: the largest
  // integer sums, where the AVX2 kernel's four-line int16 sums reach 3048.
  const testing::PackedFormat f = testing::packed_format(DType::kQ2_K);
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads Q2_K packed";
  PackedWeights w(f, 20, 512, 11);
  std::fill(w.bytes.begin(), w.bytes.end(), std::byte{0xff});
  for (size_t blk = 0; blk < w.bytes.size(); blk += kPackedQ2KBlockBytes) {
    for (int h = 0; h < 32; ++h) {  // every d and dmin 2^-10 (fp16 0x1400)
      w.bytes[blk + 2 * h] = std::byte{0x00};
      w.bytes[blk + 2 * h + 1] = std::byte{0x14};
    }
  }
  for (const KernelTable* table : tables) {
    const testing::OracleRuns runs =
        testing::run_against_oracle(*table, f, w.packed, testing::extreme_inputs(4, 512), 4);
    EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
    EXPECT_NE(0.0f, runs.want[0]);
  }
}

}  // namespace
}  // namespace strata::kernels
