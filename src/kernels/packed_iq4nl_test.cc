// The packed IQ4_NL and MXFP4 layouts beyond what packed_matmul_test.cc checks for every
// layout: the extreme levels are exact, MXFP4's scales are exact for every exponent byte
// (matmul_simd_oracle_test.cc checks the unpacked kernels' too), and packing puts a file block's codes and scale where
// packed_iq4nl.h says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
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

TEST(PackedIq4Nl, ExtremeLevelsAreExactOnEverySimdTable) {
  // Even rows: the lowest level everywhere, odd rows the highest; activations at +-127.
  // IQ4_NL: -127 (code 0) and 113 (code 15), every d 2^-10 (fp16 0x1400): the AVX2 kernel's
  // int16 pairs reach 2 * 127 * 127 here and the VNNI kernels' biased levels 1 and 241.
  // MXFP4: -12 (code 15) and 12 (code 7), every e 118 (2^-10, bf16 0x3a80): the AVX2 kernel's
  // int16 sums of level + 12 reach 4 * 2 * 24 * 127 = 24384, the VNNI kernels' biased levels
  // 116 and 140.
  struct Extremes {
    DType type;
    size_t codes_offset;
    std::vector<std::byte> scales;  // the 16 rows' scale bytes
    std::byte even, odd;            // a code byte of the even and the odd rows
  };
  std::vector<std::byte> iq4_nl_scales, mxfp4_scales;
  for (int i = 0; i < 16; ++i) {
    iq4_nl_scales.insert(iq4_nl_scales.end(), {std::byte{0x00}, std::byte{0x14}});
    mxfp4_scales.insert(mxfp4_scales.end(), {std::byte{0x80}, std::byte{0x3a}});
  }
  for (const Extremes& x : {Extremes{DType::kIQ4_NL, kPackedIQ4NLCodesOffset, iq4_nl_scales, std::byte{0x00},
                                     std::byte{0xff}},
                            Extremes{DType::kMXFP4, kPackedMXFP4CodesOffset, mxfp4_scales, std::byte{0xff},
                                     std::byte{0x77}}}) {
    const testing::PackedFormat f = testing::packed_format(x.type);
    const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
    if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads " << f.name << " packed";
    testing::PackedWeights w(f, 20, 128, 21);
    const size_t block_bytes = f.bytes(16, kQK);
    for (size_t blk = 0; blk < w.bytes.size(); blk += block_bytes) {
      std::copy(x.scales.begin(), x.scales.end(), w.bytes.begin() + static_cast<ptrdiff_t>(blk));
      for (size_t k = 0; k < 4 * 64; ++k) w.bytes[blk + x.codes_offset + k] = (k % 64) / 4 % 2 == 0 ? x.even : x.odd;
    }
    for (const KernelTable* table : tables) {
      const testing::OracleRuns runs =
          testing::run_against_oracle(*table, f, w.packed, testing::extreme_inputs(4, 128), 4);
      EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float)))
          << f.name << " on " << table->name;
      EXPECT_NE(0.0f, runs.want[0]) << f.name;
    }
  }
}

// Every exponent byte, the subnormal scales (e = 0, 1) and 2^127 (e = 255) included, packs to
// its exact scale and gives the oracle's bits. Each row has one exponent in all its blocks, so
// its output is its own scale's (a wrong scale cannot hide under a larger block's), against
// activations near 2^100 (d_x ~ 2^93 .. 2^98) for e <= 135 and near 2^-100 for e >= 120, so
// that d_w * d_x stays a normal float and no sum overflows.
TEST(PackedIq4Nl, Mxfp4EveryExponentGivesTheOracleBitsOnEverySimdTable) {
  const testing::PackedFormat f = testing::packed_format(DType::kMXFP4);
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads MXFP4 packed";
  constexpr int64_t kOut = 9 * kPackedGroupRows, kIn = 2 * kQK;
  constexpr int kRows = 3;
  struct Range {
    int e_lo, e_hi;
    float x_scale;
  };
  for (const Range range : {Range{0, 135, 0x1p100f}, Range{120, 255, 0x1p-100f}}) {
    std::vector<BlockMXFP4> file(kOut * kIn / kQK);
    for (size_t k = 0; k < file.size(); ++k) {
      const int64_t o = static_cast<int64_t>(k) / (kIn / kQK);
      file[k].e = static_cast<uint8_t>(range.e_lo + o % (range.e_hi - range.e_lo + 1));
      for (int j = 0; j < kQK / 2; ++j) file[k].qs[j] = static_cast<uint8_t>(k * 37 + j * 101 + 7);
    }
    const WeightMatrix plain{DType::kMXFP4, file.data(), kOut, kIn, kIn / kQK * sizeof(BlockMXFP4)};
    std::vector<std::byte> bytes(f.bytes(kOut, kIn));
    f.pack(plain, bytes.data());
    WeightMatrix packed = plain;
    packed.packed = bytes.data();
    std::vector<float> x = testing::random_floats(kRows * kIn, 32);
    for (float& v : x) v *= range.x_scale;
    const std::vector<float> want = run(f.oracle_table(), packed, x, kRows);
    for (float y : want) ASSERT_TRUE(std::isfinite(y));
    for (const KernelTable* table : tables) {
      EXPECT_EQ(0, std::memcmp(run(*table, packed, x, kRows).data(), want.data(), want.size() * sizeof(float)))
          << table->name << ", exponents " << range.e_lo << ".." << range.e_hi;
    }
  }
}

TEST(PackedIq4Nl, PackingPlacesCodesAndScalesPerTheLayout) {
  // Two file blocks of one row: block 0 input 6 code 10 (line 1, byte 2, low nibble) and input
  // 22 code 9 (high), block 1 input 15 code 12 (line 3, byte 3, low).
  struct Layout {
    DType type;
    std::vector<uint8_t> file0, file1;      // the blocks' scale bytes: IQ4_NL's fp16 d, MXFP4's e
    std::vector<uint8_t> packed0, packed1;  // as packed: the same d; MXFP4's scale as bf16
  };
  for (const Layout& l : {Layout{DType::kIQ4_NL, {0x00, 0x3c}, {0x00, 0x40}, {0x00, 0x3c}, {0x00, 0x40}},
                          Layout{DType::kMXFP4, {127}, {3}, {0x00, 0x3f}, {0x00, 0x01}}}) {  // 2^-1, 2^-125
    const size_t file_block = l.file0.size() + kQK / 2;
    std::vector<uint8_t> file(2 * file_block, 0);
    std::copy(l.file0.begin(), l.file0.end(), file.begin());
    std::copy(l.file1.begin(), l.file1.end(), file.begin() + static_cast<ptrdiff_t>(file_block));
    file[l.file0.size() + 6] = 0x9a;
    file[file_block + l.file0.size() + 15] = 0x0c;
    const testing::PackedFormat f = testing::packed_format(l.type);
    std::vector<std::byte> packed(f.bytes(1, 2 * kQK));
    f.pack(WeightMatrix{l.type, file.data(), 1, 2 * kQK, file.size()}, packed.data());
    const auto* bytes = reinterpret_cast<const uint8_t*>(packed.data());
    const uint8_t* second = bytes + packed.size() / 2;
    for (size_t j = 0; j < 2; ++j) {
      EXPECT_EQ(l.packed0[j], bytes[j]) << f.name;
      EXPECT_EQ(0, bytes[2 + j]) << f.name;  // row 1 is padding
      EXPECT_EQ(l.packed1[j], second[j]) << f.name;
    }
    EXPECT_EQ(10, bytes[kPackedIQ4NLCodesOffset + 64 * 1 + 2] & 0x0f) << f.name;
    EXPECT_EQ(9, bytes[kPackedIQ4NLCodesOffset + 64 * 1 + 2] >> 4) << f.name;
    EXPECT_EQ(0, bytes[kPackedIQ4NLCodesOffset + 64 * 1 + 4 + 2]) << f.name;
    EXPECT_EQ(12, second[kPackedIQ4NLCodesOffset + 64 * 3 + 3] & 0x0f) << f.name;
  }
}

}  // namespace
}  // namespace strata::kernels
