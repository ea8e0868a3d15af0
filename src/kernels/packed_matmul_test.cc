// Every packed layout (packed_layouts.cc: Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, Q3_K, Q2_K,
// IQ4_XS, IQ4_NL, MXFP4): its scalar oracle computes the numbers of the plain kernels, every
// SIMD kernel reading it (AVX2 and AVX-512 read all) gives the oracle's bits for every batch
// size, rows are batch-invariant, and only a table with the packed path packs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/packed_test_support.h"

namespace strata::kernels {
namespace {

using testing::PackedFormat;
using testing::PackedWeights;

struct Shape {
  int64_t n_out, n_in;
};

// n_out not a multiple of 16 (a padded group), one exact group, one short group.
std::vector<Shape> shapes(const PackedFormat& f) {
  return {{75, 2 * f.block}, {64, f.block}, {16, 3 * f.block}, {5, f.block}};
}

// Each row of any batch, on 1-3 threads, has the bits of the same row computed alone.
void expect_rows_match_alone(const KernelTable& table, const PackedFormat& f) {
  const Shape sh{75, 2 * f.block};
  PackedWeights w(f, sh.n_out, sh.n_in, 8);
  constexpr int kRows = 17;
  const std::vector<float> x = testing::random_floats(kRows * sh.n_in, 9);
  AlignedBuffer scratch;
  ThreadPool single(1);
  std::vector<float> alone(kRows * sh.n_out);
  for (int r = 0; r < kRows; ++r) {
    matmul_with_table(table, w.packed, x.data() + r * sh.n_in, 1, alone.data() + r * sh.n_out, scratch, single);
  }
  std::vector<std::unique_ptr<ThreadPool>> pools;
  for (int n = 1; n <= 3; ++n) pools.push_back(std::make_unique<ThreadPool>(n));
  for (int n_rows = 1; n_rows <= kRows; ++n_rows) {
    std::vector<float> batch_x(n_rows * sh.n_in), batch_y(n_rows * sh.n_out);
    std::vector<int> src(n_rows);
    for (int i = 0; i < n_rows; ++i) src[i] = (n_rows * 5 + i * 7) % kRows;
    for (int i = 0; i < n_rows; ++i) std::memcpy(&batch_x[i * sh.n_in], &x[src[i] * sh.n_in], sh.n_in * sizeof(float));
    matmul_with_table(table, w.packed, batch_x.data(), n_rows, batch_y.data(), scratch, *pools[n_rows % 3]);
    for (int i = 0; i < n_rows; ++i) {
      ASSERT_EQ(0, std::memcmp(&batch_y[i * sh.n_out], &alone[src[i] * sh.n_out], sh.n_out * sizeof(float)))
          << "row " << i << " of a batch of " << n_rows;
    }
  }
}

class PackedMatmul : public ::testing::TestWithParam<PackedFormat> {};

TEST_P(PackedMatmul, OracleAgreesWithThePlainKernel) {
  const PackedFormat& f = GetParam();
  const KernelTable oracle = f.oracle_table();
  ThreadPool pool(1);
  AlignedBuffer scratch;
  for (const Shape& sh : shapes(f)) {
    PackedWeights w(f, sh.n_out, sh.n_in, 3);
    const int n_rows = 3;
    const std::vector<float> x = testing::random_floats(n_rows * sh.n_in, 4);
    std::vector<float> got(n_rows * sh.n_out), want(n_rows * sh.n_out);
    matmul_with_table(oracle, w.packed, x.data(), n_rows, got.data(), scratch, pool);
    matmul_with_table(reference_table(), w.plain.matrix(), x.data(), n_rows, want.data(), scratch, pool);
    double scale = 0.0;
    for (float v : want) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    for (size_t i = 0; i < got.size(); ++i) {
      // Same integer block products; only the float summation order differs.
      ASSERT_NEAR(got[i], want[i], scale * 2e-5) << "n_out " << sh.n_out << " n_in " << sh.n_in << " at " << i;
    }
  }
}

TEST_P(PackedMatmul, SimdKernelsGiveTheOraclesBitsForEveryBatchSize) {
  const PackedFormat& f = GetParam();
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads " << f.name << " packed";
  const KernelTable oracle = f.oracle_table();
  ThreadPool pool(3);
  AlignedBuffer scratch;
  for (const KernelTable* table : tables) {
    for (const Shape& sh : shapes(f)) {
      PackedWeights w(f, sh.n_out, sh.n_in, 5);
      const std::vector<float> x = testing::random_floats(17 * sh.n_in, 6);
      for (int n_rows = 1; n_rows <= 17; ++n_rows) {
        std::vector<float> got(n_rows * sh.n_out, 7.0f), want(n_rows * sh.n_out);
        matmul_with_table(*table, w.packed, x.data(), n_rows, got.data(), scratch, pool);
        matmul_with_table(oracle, w.packed, x.data(), n_rows, want.data(), scratch, pool);
        ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)))
            << table->name << " n_out " << sh.n_out << " n_in " << sh.n_in << " rows " << n_rows;
      }
    }
  }
}

TEST_P(PackedMatmul, SimdRowsMatchThemselvesAloneInAnyBatchAndThreadCount) {
  const PackedFormat& f = GetParam();
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads " << f.name << " packed";
  for (const KernelTable* table : tables) {
    SCOPED_TRACE(table->name);
    expect_rows_match_alone(*table, f);
  }
}

TEST_P(PackedMatmul, PackedOnlyByATableWithThePackedPath) {
  const PackedFormat& f = GetParam();
  testing::TestWeights m(f.type, 32, 2 * f.block, 1);
  KernelTable active = active_table();
  const size_t want = f.slot(active) != nullptr ? f.bytes(32, 2 * f.block) : 0;
  EXPECT_EQ(want, packed_matrix_bytes(m.matrix()));
}

TEST(PackedMatmulTypes, Q8_0PacksToTheSameSizeWhenRowsFillWholeGroups) {
  EXPECT_EQ(packed_q8_0_bytes(64, 2048), *dtype_row_bytes(DType::kQ8_0, 2048) * 64);
  EXPECT_EQ(packed_q8_0_bytes(65, 2048), *dtype_row_bytes(DType::kQ8_0, 2048) * 80);  // padded group
}

TEST(PackedMatmulTypes, Q8_0ExtremeCodesAreExactOnEverySimdTable) {
  // Codes -128 (even rows) and 127 (odd rows) against activations at +-127: the largest
  // integer sums, and -128, whose magnitude only fits unsigned (the AVX2 sign trick).
  const testing::PackedFormat f = testing::packed_format(DType::kQ8_0);
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads Q8_0 packed";
  PackedWeights w(f, 20, 512, 12);
  for (size_t blk = 0; blk < w.bytes.size(); blk += kPackedGroupBlockBytes) {
    for (int h = 0; h < 16; ++h) {  // every scale 2^-10 (fp16 0x1400)
      w.bytes[blk + 2 * h] = std::byte{0x00};
      w.bytes[blk + 2 * h + 1] = std::byte{0x14};
    }
    for (size_t k = 0; k < 512; ++k) {  // stored as q + 128
      const size_t row = (k % 64) / 4;
      w.bytes[blk + 32 + k] = row % 2 == 0 ? std::byte{0x00} : std::byte{0xff};
    }
  }
  for (const KernelTable* table : tables) {
    const testing::OracleRuns runs =
        testing::run_against_oracle(*table, f, w.packed, testing::extreme_inputs(4, 512), 4);
    EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
    EXPECT_NE(0.0f, runs.want[0]);
  }
}

TEST(PackedMatmulTypes, Q4_0ExtremeCodesAreExactOnEverySimdTable) {
  // Codes 15 (even rows) and 0 (odd rows) against activations at +-127: the largest sums,
  // where the AVX2 kernel's int16 partial sums come closest to overflowing.
  const testing::PackedFormat f = testing::packed_format(DType::kQ4_0);
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads Q4_0 packed";
  PackedWeights w(f, 20, 512, 15);
  for (size_t blk = 0; blk < w.bytes.size(); blk += kPackedQ40BlockBytes) {
    for (int h = 0; h < 16; ++h) {  // every scale 2^-10 (fp16 0x1400)
      w.bytes[blk + 2 * h] = std::byte{0x00};
      w.bytes[blk + 2 * h + 1] = std::byte{0x14};
    }
    for (size_t k = 0; k < 4 * 64; ++k) {
      const size_t row = (k % 64) / 4;
      w.bytes[blk + kPackedQ40CodesOffset + k] = row % 2 == 0 ? std::byte{0xff} : std::byte{0x00};
    }
  }
  for (const KernelTable* table : tables) {
    const testing::OracleRuns runs =
        testing::run_against_oracle(*table, f, w.packed, testing::extreme_inputs(4, 512), 4);
    EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
    EXPECT_NE(0.0f, runs.want[0]);
  }
}

TEST(PackedMatmulTypes, Q5_0ExtremeCodesAreExactOnEverySimdTable) {
  // Codes 31 (even rows: every nibble and fifth bit set) and 0 (odd rows) against activations
  // at +-127: the AVX2 kernel's four-maddub int16 partial sums reach 31496 of 32767 here.
  const testing::PackedFormat f = testing::packed_format(DType::kQ5_0);
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads Q5_0 packed";
  PackedWeights w(f, 20, 512, 15);
  for (size_t blk = 0; blk < w.bytes.size(); blk += kPackedQ50BlockBytes) {
    for (int h = 0; h < 16; ++h) {  // every scale 2^-10 (fp16 0x1400)
      w.bytes[blk + 2 * h] = std::byte{0x00};
      w.bytes[blk + 2 * h + 1] = std::byte{0x14};
    }
    for (size_t k = 0; k < 64; ++k) {
      const bool even = ((k / 4) % 2) == 0;
      w.bytes[blk + kPackedQ50HighOffset + k] = even ? std::byte{0xff} : std::byte{0x00};
      for (size_t c = 0; c < 4; ++c) {
        w.bytes[blk + kPackedQ50CodesOffset + 64 * c + k] = even ? std::byte{0xff} : std::byte{0x00};
      }
    }
  }
  for (const KernelTable* table : tables) {
    const testing::OracleRuns runs =
        testing::run_against_oracle(*table, f, w.packed, testing::extreme_inputs(4, 512), 4);
    EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
    EXPECT_NE(0.0f, runs.want[0]);
  }
}

TEST(PackedMatmulTypes, OtherTypesAreNeverPacked) {
  for (DType type : {DType::kQ4_1, DType::kF16}) {
    testing::TestWeights m(type, 32, 256, 1);
    EXPECT_EQ(0u, packed_matrix_bytes(m.matrix())) << dtype_name(type);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, PackedMatmul, ::testing::ValuesIn(testing::packed_formats()),
                         [](const ::testing::TestParamInfo<PackedFormat>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace strata::kernels
