// The packed IQ4_NL layout beyond what packed_matmul_test.cc checks for every layout: packed
// or not, a matrix gives the same bits on every SIMD table (the packed arithmetic is the
// unpacked kernels'), the extreme levels are exact, and packing puts a file block's codes
// where packed_iq4nl.h says.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/packed_iq4nl.h"
#include "kernels/packed_test_support.h"

namespace strata::kernels {
namespace {

// y of `table` for w, one thread.
std::vector<float> run(const KernelTable& table, const WeightMatrix& w, const std::vector<float>& x, int n_rows) {
  ThreadPool pool(1);
  AlignedBuffer scratch;
  std::vector<float> y(static_cast<size_t>(n_rows * w.n_out), 7.0f);
  matmul_with_table(table, w, x.data(), n_rows, y.data(), scratch, pool);
  return y;
}

TEST(PackedIq4Nl, PackedAndUnpackedGiveTheSameBitsOnEverySimdTable) {
  const testing::PackedFormat f = testing::packed_format(DType::kIQ4_NL);
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads IQ4_NL packed";
  for (const int64_t n_out : {37, 48}) {  // a padded last group; whole groups
    const int64_t n_in = 96;
    testing::PackedWeights w(f, n_out, n_in, 12);
    for (int n_rows : {1, 2, 3, 5}) {
      std::vector<float> x(static_cast<size_t>(n_rows * n_in));
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 23) - 11.0f + 0.25f * (i % 3);
      for (const KernelTable* table : tables) {
        const std::vector<float> packed = run(*table, w.packed, x, n_rows);
        const std::vector<float> plain = run(*table, w.plain.matrix(), x, n_rows);
        EXPECT_EQ(0, std::memcmp(packed.data(), plain.data(), packed.size() * sizeof(float)))
            << table->name << " n_out " << n_out << " rows " << n_rows;
      }
    }
  }
}

TEST(PackedIq4Nl, ExtremeLevelsAreExactOnEverySimdTable) {
  // Even rows: level -127 (code 0) everywhere; odd rows: level 113 (code 15); activations at
  // +-127. The AVX2 kernel's int16 pairs reach 2 * 127 * 127 here and the AVX-512 kernel's
  // biased levels 1 and 241.
  const testing::PackedFormat f = testing::packed_format(DType::kIQ4_NL);
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads IQ4_NL packed";
  testing::PackedWeights w(f, 20, 128, 21);
  for (size_t blk = 0; blk < w.bytes.size(); blk += kPackedIQ4NLBlockBytes) {
    for (int i = 0; i < 16; ++i) {  // every d 2^-10 (fp16 0x1400)
      w.bytes[blk + 2 * i] = std::byte{0x00};
      w.bytes[blk + 2 * i + 1] = std::byte{0x14};
    }
    for (size_t k = 0; k < 4 * 64; ++k) {
      const size_t row = (k % 64) / 4;
      w.bytes[blk + kPackedIQ4NLCodesOffset + k] = row % 2 == 0 ? std::byte{0x00} : std::byte{0xff};
    }
  }
  for (const KernelTable* table : tables) {
    const testing::OracleRuns runs =
        testing::run_against_oracle(*table, f, w.packed, testing::extreme_inputs(4, 128), 4);
    EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
    EXPECT_NE(0.0f, runs.want[0]);
  }
}

TEST(PackedIq4Nl, PackingPlacesCodesAndScalesPerTheLayout) {
  BlockIQ4_NL b[2]{};
  b[0].d = 0x3c00;
  b[0].qs[6] = 0x9a;  // input 6 code 10 (line 1, byte 2, low), input 22 code 9 (high)
  b[1].d = 0x4000;
  b[1].qs[15] = 0x0c;  // block 1: input 15 code 12 (line 3, byte 3, low)
  const WeightMatrix w{DType::kIQ4_NL, b, 1, 2 * kQK, sizeof b};
  std::vector<std::byte> packed(packed_iq4_nl_bytes(1, 2 * kQK));
  ASSERT_EQ(2 * kPackedIQ4NLBlockBytes, packed.size());
  pack_iq4_nl(w, packed.data());
  const auto* bytes = reinterpret_cast<const uint8_t*>(packed.data());
  EXPECT_EQ(0x00, bytes[0]);
  EXPECT_EQ(0x3c, bytes[1]);
  EXPECT_EQ(10, bytes[kPackedIQ4NLCodesOffset + 64 * 1 + 2] & 0x0f);
  EXPECT_EQ(9, bytes[kPackedIQ4NLCodesOffset + 64 * 1 + 2] >> 4);
  EXPECT_EQ(0, bytes[kPackedIQ4NLCodesOffset + 64 * 1 + 4 + 2]);  // row 1 is padding
  const uint8_t* second = bytes + kPackedIQ4NLBlockBytes;
  EXPECT_EQ(0x40, second[1]);
  EXPECT_EQ(12, second[kPackedIQ4NLCodesOffset + 64 * 3 + 3] & 0x0f);
}

}  // namespace
}  // namespace strata::kernels
