// The packed Q4_K layout's own cases (the checks every packed layout shares are in
// packed_matmul_test.cc): its size, and the extreme codes and scales that give the largest integer sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/packed_test_support.h"

namespace strata::kernels {
namespace {

using testing::PackedWeights;

const testing::PackedFormat& format() {
  static const testing::PackedFormat f = testing::packed_format(DType::kQ4_K);
  return f;
}

TEST(PackedQ4K, SizeIsQ4_KPlusTheUnpackedScalesAndMins) {
  // Per 16 rows and super-block: 16 x 144 bytes of Q4_K, plus 64 bytes of unpacked scales.
  EXPECT_EQ(packed_q4_k_bytes(64, 2048), (*dtype_row_bytes(DType::kQ4_K, 2048) * 16 + 8 * 64) * 4);
  EXPECT_EQ(packed_q4_k_bytes(65, 2048), packed_q4_k_bytes(80, 2048));  // padded group
}

TEST(PackedQ4K, SimdKernelsHandleExtremeCodesAndScalesExactly) {
  // All codes 15, scales and mins 63 and activations at +-127: the largest integer sums.
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(format());
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads this layout";
  PackedWeights w(format(), 20, 512, 11);
  std::fill(w.bytes.begin(), w.bytes.end(), std::byte{0xff});
  for (size_t blk = 0; blk < w.bytes.size(); blk += kPackedQ4KBlockBytes) {
    for (int h = 0; h < 32; ++h) {  // every d and dmin 2^-10 (fp16 0x1400)
      w.bytes[blk + 2 * h] = std::byte{0x00};
      w.bytes[blk + 2 * h + 1] = std::byte{0x14};
    }
    for (size_t k = kPackedQ4KScalesOffset; k < kPackedQ4KCodesOffset; ++k) w.bytes[blk + k] = std::byte{63};
  }
  for (const KernelTable* table : tables) {
    const testing::OracleRuns runs =
        testing::run_against_oracle(*table, format(), w.packed, testing::extreme_inputs(4, 512), 4);
    EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
    EXPECT_NE(0.0f, runs.want[0]);
  }
}

}  // namespace
}  // namespace strata::kernels
