// The packed Q6_K layout's own cases (the checks every packed layout shares are in
// packed_matmul_test.cc): its size, and the extreme codes and scales that give the largest integer sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/packed_test_support.h"

namespace strata::kernels {
namespace {

using testing::PackedWeights;

const testing::PackedFormat& q6k_format() {
  static const testing::PackedFormat f = testing::packed_format(DType::kQ6_K);
  return f;
}

TEST(PackedQ6K, SameSizeAsQ6_KWhenRowsFillWholeGroups) {
  EXPECT_EQ(packed_q6_k_bytes(64, 2048), *dtype_row_bytes(DType::kQ6_K, 2048) * 64);
  EXPECT_EQ(packed_q6_k_bytes(65, 2048), packed_q6_k_bytes(80, 2048));  // padded group
}

TEST(PackedQ6K, SimdKernelsHandleExtremeCodesAndScalesExactly) {
  // Codes 63 and 0 with scales -128 / 127 and activations at +-127: the largest integer sums.
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(q6k_format());
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads this layout";
  for (const std::byte code_fill : {std::byte{0xff}, std::byte{0x00}}) {
    PackedWeights w(q6k_format(), 20, 512, 11);
    std::fill(w.bytes.begin(), w.bytes.end(), code_fill);
    for (size_t blk = 0; blk < w.bytes.size(); blk += kPackedQ6KBlockBytes) {
      for (int h = 0; h < 16; ++h) {  // every d 2^-10 (fp16 0x1400)
        w.bytes[blk + 2 * h] = std::byte{0x00};
        w.bytes[blk + 2 * h + 1] = std::byte{0x14};
      }
      for (size_t k = kPackedQ6KScalesOffset; k < kPackedQ6KLowOffset; ++k) {
        w.bytes[blk + k] = k % 3 == 0 ? std::byte{0x7f} : std::byte{0x80};
      }
    }
    for (const KernelTable* table : tables) {
      const testing::OracleRuns runs =
          testing::run_against_oracle(*table, q6k_format(), w.packed, testing::extreme_inputs(4, 512), 4);
      EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
      EXPECT_NE(0.0f, runs.want[0]);
    }
  }
}

}  // namespace
}  // namespace strata::kernels
