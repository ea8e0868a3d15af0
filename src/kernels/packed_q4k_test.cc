// The packed Q4_K layout's own cases (the checks every packed layout shares are in
// packed_matmul_test.cc): its size, and the extreme codes and scales that give the largest integer sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstring>
#include <vector>

#include "kernels/packed_test_support.h"

namespace strata::kernels {
namespace {

using testing::PackedWeights;

const testing::PackedFormat& q4k_format() {
  static const testing::PackedFormat f = testing::packed_format(DType::kQ4_K);
  return f;
}

TEST(PackedQ4K, SizeIsQ4_KPlusTheUnpackedScalesAndMins) {
  // Per 16 rows and super-block: 16 x 144 bytes of Q4_K, plus 64 bytes of unpacked scales.
  EXPECT_EQ(packed_q4_k_bytes(64, 2048), (*dtype_row_bytes(DType::kQ4_K, 2048) * 16 + 8 * 64) * 4);
  EXPECT_EQ(packed_q4_k_bytes(65, 2048), packed_q4_k_bytes(80, 2048));  // padded group
}

// All codes at their largest (15; Q5_K 31), scales and mins 63 and activations at +-127: the
// largest integer sums, where the AVX2 kernel's int16 partial sums come closest to overflowing.
void expect_extreme_codes_exact(const testing::PackedFormat& f, size_t block_bytes) {
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads this layout";
  PackedWeights w(f, 20, 512, 11);
  std::fill(w.bytes.begin(), w.bytes.end(), std::byte{0xff});
  for (size_t blk = 0; blk < w.bytes.size(); blk += block_bytes) {
    for (int h = 0; h < 32; ++h) {  // every d and dmin 2^-10 (fp16 0x1400)
      w.bytes[blk + 2 * h] = std::byte{0x00};
      w.bytes[blk + 2 * h + 1] = std::byte{0x14};
    }
    for (size_t k = kPackedQ4KScalesOffset; k < kPackedQ4KCodesOffset; ++k) w.bytes[blk + k] = std::byte{63};
  }
  for (const KernelTable* table : tables) {
    const testing::OracleRuns runs =
        testing::run_against_oracle(*table, f, w.packed, testing::extreme_inputs(4, 512), 4);
    EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
    EXPECT_NE(0.0f, runs.want[0]);
  }
}

TEST(PackedQ4K, SimdKernelsHandleExtremeCodesAndScalesExactly) {
  expect_extreme_codes_exact(q4k_format(), kPackedQ4KBlockBytes);
}

TEST(PackedQ5K, SizeIsQ5_KPlusTheUnpackedScalesAndMins) {
  EXPECT_EQ(packed_q5_k_bytes(64, 2048), (*dtype_row_bytes(DType::kQ5_K, 2048) * 16 + 8 * 64) * 4);
  EXPECT_EQ(packed_q5_k_bytes(65, 2048), packed_q5_k_bytes(80, 2048));  // padded group
}

TEST(PackedQ5K, FifthBitsLandInTheirCodes) {
  // A Q5_K matrix whose only nonzero codes are 5th bits: the oracle (which reads the layout's
  // high lines) must agree with the plain kernel (which reads the file's qh) on every row.
  const testing::PackedFormat f = testing::packed_format(DType::kQ5_K);
  PackedWeights w(f, 16, 256, 13);
  auto* blocks = reinterpret_cast<BlockQ5_K*>(const_cast<void*>(w.plain.matrix().data));
  for (int row = 0; row < 16; ++row) {
    std::fill(std::begin(blocks[row].qs), std::end(blocks[row].qs), uint8_t{0});
    for (int l = 0; l < 32; ++l) blocks[row].qh[l] = static_cast<uint8_t>((l * 37 + row * 11) & 0xff);
  }
  std::fill(w.bytes.begin(), w.bytes.end(), std::byte{0});
  f.pack(w.plain.matrix(), w.bytes.data());
  const std::vector<float> x = testing::random_floats(256, 14);
  ThreadPool pool(1);
  AlignedBuffer scratch;
  std::vector<float> got(16), want(16);
  matmul_with_table(f.oracle_table(), w.packed, x.data(), 1, got.data(), scratch, pool);
  matmul_with_table(reference_table(), w.plain.matrix(), x.data(), 1, want.data(), scratch, pool);
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "row " << i;
}

TEST(PackedQ5K, SimdKernelsHandleExtremeCodesAndScalesExactly) {
  expect_extreme_codes_exact(testing::packed_format(DType::kQ5_K), kPackedQ5KBlockBytes);
}

}  // namespace
}  // namespace strata::kernels
