// The packed Q3_K layout's own cases (the checks every packed layout shares are in
// packed_matmul_test.cc): its size, the high bits landing in their codes, and the extreme
// codes and scales that give the largest integer sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <vector>

#include "kernels/packed_q3k.h"
#include "kernels/packed_test_support.h"

namespace strata::kernels {
namespace {

using testing::PackedWeights;

const testing::PackedFormat& q3k_format() {
  static const testing::PackedFormat f = testing::packed_format(DType::kQ3_K);
  return f;
}

TEST(PackedQ3K, SizeIsQ3_KPlusTheDecodedScales) {
  // Per 16 rows and super-block: 16 x 110 bytes of Q3_K, plus 64 bytes for the scales
  // decoded from 12 bytes per row into 16.
  EXPECT_EQ(packed_q3_k_bytes(64, 2048), (*dtype_row_bytes(DType::kQ3_K, 2048) * 16 + 8 * 64) * 4);
  EXPECT_EQ(packed_q3_k_bytes(65, 2048), packed_q3_k_bytes(80, 2048));  // padded group
}

TEST(PackedQ3K, HighBitsLandInTheirCodes) {
  // A Q3_K matrix whose low bits are all 0 and whose high bits differ per input and row: the
  // oracle (which reads the layout's high lines) must agree with the plain kernel (which
  // reads the file's hmask) on every row.
  PackedWeights w(q3k_format(), 16, 256, 13);
  auto* blocks = reinterpret_cast<BlockQ3_K*>(const_cast<void*>(w.plain.matrix().data));
  for (int row = 0; row < 16; ++row) {
    std::fill(std::begin(blocks[row].qs), std::end(blocks[row].qs), uint8_t{0});
    for (int l = 0; l < 32; ++l) blocks[row].hmask[l] = static_cast<uint8_t>((l * 37 + row * 11) & 0xff);
  }
  std::fill(w.bytes.begin(), w.bytes.end(), std::byte{0});
  q3k_format().pack(w.plain.matrix(), w.bytes.data());
  const std::vector<float> x = testing::random_floats(256, 14);
  ThreadPool pool(1);
  AlignedBuffer scratch;
  std::vector<float> got(16), want(16);
  matmul_with_table(q3k_format().oracle_table(), w.packed, x.data(), 1, got.data(), scratch, pool);
  matmul_with_table(reference_table(), w.plain.matrix(), x.data(), 1, want.data(), scratch, pool);
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "row " << i;
}

TEST(PackedQ3K, ExtremeCodesAreExactOnEverySimdTable) {
  // Codes 7 (every low and high bit set) against activations at +-127, scales -32 (even rows)
  // and 31 (odd rows): the largest integer sums, where the AVX2 kernel's four-line int16 sums
  // reach 7112 and the AVX-512 kernel's sub-block dots (held as int16) 14224.
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(q3k_format());
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads Q3_K packed";
  PackedWeights w(q3k_format(), 20, 512, 11);
  std::fill(w.bytes.begin(), w.bytes.end(), std::byte{0xff});
  for (size_t blk = 0; blk < w.bytes.size(); blk += kPackedQ3KBlockBytes) {
    for (int h = 0; h < 16; ++h) {  // every d 2^-10 (fp16 0x1400)
      w.bytes[blk + 2 * h] = std::byte{0x00};
      w.bytes[blk + 2 * h + 1] = std::byte{0x14};
    }
    for (size_t k = 0; k < 8 * 32; ++k) {  // byte 32q + 2i + e: row i = (k % 32) / 2
      const bool even = ((k % 32) / 2) % 2 == 0;
      w.bytes[blk + kPackedQ3KScalesOffset + k] = even ? std::byte{0xe0} : std::byte{31};
    }
  }
  for (const KernelTable* table : tables) {
    const testing::OracleRuns runs =
        testing::run_against_oracle(*table, q3k_format(), w.packed, testing::extreme_inputs(4, 512), 4);
    EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
    EXPECT_NE(0.0f, runs.want[0]);
  }
}

}  // namespace
}  // namespace strata::kernels
