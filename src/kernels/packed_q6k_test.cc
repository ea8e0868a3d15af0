// The packed Q6_K path: its scalar oracle computes the same numbers as the plain Q6_K
// kernels, the AVX-512 kernel gives the oracle's bits, and it is batch-invariant.
#include "kernels/packed_q6k.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

// A Q6_K test matrix with its packed form attached.
struct PackedWeights {
  testing::TestWeights plain;
  std::vector<std::byte> bytes;
  WeightMatrix packed;

  PackedWeights(int64_t n_out, int64_t n_in, uint32_t seed) : plain(DType::kQ6_K, n_out, n_in, seed) {
    bytes.resize(packed_q6_k_bytes(n_out, n_in));
    pack_q6_k(plain.matrix(), bytes.data());
    packed = plain.matrix();
    packed.packed = bytes.data();
  }
};

KernelTable oracle_table() {
  KernelTable t = reference_table();
  t.matmul_packed_q6_k_rows = reference::matmul_packed_q6_k_rows;
  return t;
}

struct Shape {
  int64_t n_out, n_in;
};
const Shape kShapes[] = {{75, 512}, {64, 256}, {16, 768}, {5, 256}};

TEST(PackedQ6K, SameSizeAsQ6_KWhenRowsFillWholeGroups) {
  EXPECT_EQ(packed_q6_k_bytes(64, 2048), *dtype_row_bytes(DType::kQ6_K, 2048) * 64);
  EXPECT_EQ(packed_q6_k_bytes(65, 2048), packed_q6_k_bytes(80, 2048));  // padded group
}

TEST(PackedQ6K, OracleAgreesWithThePlainQ6_KKernel) {
  const KernelTable oracle = oracle_table();
  ThreadPool pool(1);
  AlignedBuffer scratch;
  for (const Shape& sh : kShapes) {
    PackedWeights w(sh.n_out, sh.n_in, 3);
    const int n_rows = 3;
    const std::vector<float> x = testing::random_floats(n_rows * sh.n_in, 4);
    std::vector<float> got(n_rows * sh.n_out), want(n_rows * sh.n_out);
    matmul_with_table(oracle, w.packed, x.data(), n_rows, got.data(), scratch, pool);
    matmul_with_table(reference_table(), w.plain.matrix(), x.data(), n_rows, want.data(), scratch, pool);
    double scale = 0.0;
    for (float v : want) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    for (size_t i = 0; i < got.size(); ++i) {
      // Same integer sub-block products; only the float summation order differs.
      EXPECT_NEAR(got[i], want[i], scale * 2e-5) << "n_out " << sh.n_out << " n_in " << sh.n_in << " at " << i;
    }
  }
}

TEST(PackedQ6K, Avx512GivesTheOraclesBitsForEveryBatchSize) {
  const KernelTable* avx512 = avx512_table();
  if (avx512 == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  const KernelTable oracle = oracle_table();
  ThreadPool pool(3);
  AlignedBuffer scratch;
  for (const Shape& sh : kShapes) {
    PackedWeights w(sh.n_out, sh.n_in, 5);
    const std::vector<float> x = testing::random_floats(17 * sh.n_in, 6);
    for (int n_rows = 1; n_rows <= 17; ++n_rows) {
      std::vector<float> got(n_rows * sh.n_out, 7.0f), want(n_rows * sh.n_out);
      matmul_with_table(*avx512, w.packed, x.data(), n_rows, got.data(), scratch, pool);
      matmul_with_table(oracle, w.packed, x.data(), n_rows, want.data(), scratch, pool);
      ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)))
          << "n_out " << sh.n_out << " n_in " << sh.n_in << " rows " << n_rows;
    }
  }
}

TEST(PackedQ6K, Avx512HandlesExtremeCodesAndScalesExactly) {
  // Codes 63 and 0 with scales -128 / 127 and activations at +-127: the largest integer sums.
  const KernelTable* avx512 = avx512_table();
  if (avx512 == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  for (const std::byte code_fill : {std::byte{0xff}, std::byte{0x00}}) {
    PackedWeights w(20, 512, 11);
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
    std::vector<float> x(4 * 512);
    for (size_t i = 0; i < x.size(); ++i) x[i] = (i / 512) % 2 == 0 ? 1.0f : (i % 7 == 0 ? 0.5f : -1.0f);
    const KernelTable oracle = oracle_table();
    ThreadPool pool(1);
    AlignedBuffer scratch;
    std::vector<float> got(4 * 20), want(4 * 20);
    matmul_with_table(*avx512, w.packed, x.data(), 4, got.data(), scratch, pool);
    matmul_with_table(oracle, w.packed, x.data(), 4, want.data(), scratch, pool);
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)));
    EXPECT_NE(0.0f, want[0]);
  }
}

TEST(PackedQ6K, Avx512RowsMatchThemselvesAloneInAnyBatchAndThreadCount) {
  const KernelTable* avx512 = avx512_table();
  if (avx512 == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  const Shape sh{75, 512};
  PackedWeights w(sh.n_out, sh.n_in, 8);
  constexpr int kRows = 17;
  const std::vector<float> x = testing::random_floats(kRows * sh.n_in, 9);
  AlignedBuffer scratch;
  ThreadPool single(1);
  std::vector<float> alone(kRows * sh.n_out);
  for (int r = 0; r < kRows; ++r) {
    matmul_with_table(*avx512, w.packed, x.data() + r * sh.n_in, 1, alone.data() + r * sh.n_out, scratch, single);
  }
  std::vector<std::unique_ptr<ThreadPool>> pools;
  for (int n = 1; n <= 3; ++n) pools.push_back(std::make_unique<ThreadPool>(n));
  for (int n_rows = 1; n_rows <= kRows; ++n_rows) {
    std::vector<float> batch_x(n_rows * sh.n_in), batch_y(n_rows * sh.n_out);
    std::vector<int> src(n_rows);
    for (int i = 0; i < n_rows; ++i) src[i] = (n_rows * 5 + i * 7) % kRows;
    for (int i = 0; i < n_rows; ++i) std::memcpy(&batch_x[i * sh.n_in], &x[src[i] * sh.n_in], sh.n_in * sizeof(float));
    matmul_with_table(*avx512, w.packed, batch_x.data(), n_rows, batch_y.data(), scratch, *pools[n_rows % 3]);
    for (int i = 0; i < n_rows; ++i) {
      ASSERT_EQ(0, std::memcmp(&batch_y[i * sh.n_out], &alone[src[i] * sh.n_out], sh.n_out * sizeof(float)))
          << "row " << i << " of a batch of " << n_rows;
    }
  }
}

TEST(PackedQ6K, Q6_KIsPackedOnlyByATableWithAPackedQ6_KPath) {
  testing::TestWeights q6k(DType::kQ6_K, 32, 512, 1);
  const size_t want = active_table().matmul_packed_q6_k_rows != nullptr ? packed_q6_k_bytes(32, 512) : 0;
  EXPECT_EQ(want, packed_matrix_bytes(q6k.matrix()));
  testing::TestWeights q5k(DType::kQ5_K, 32, 512, 1);
  EXPECT_EQ(0u, packed_matrix_bytes(q5k.matrix()));
}

}  // namespace
}  // namespace strata::kernels
