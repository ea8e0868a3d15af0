// The AVX-512 table is the AVX2 sources built with VNNI and 32 registers; its contract is
// that every kernel gives the AVX2 table's bits (see cpu/avx2.h). Checked with memcmp.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/thread_pool.h"
#include "kernels/kernel_table.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

struct TablePair {
  const KernelTable* avx2;
  const KernelTable* avx512;
};

TablePair tables_or_skip() { return {avx2_table(), avx512_table()}; }

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(SimdTables, Avx512MatmulGivesTheAvx2BitsForEveryTypeAndBatchSize) {
  const TablePair t = tables_or_skip();
  if (t.avx512 == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  constexpr int64_t kOut = 75;  // not a multiple of any tile width
  constexpr int kMaxRows = 9;
  ThreadPool pool(2);
  AlignedBuffer scratch;
  for (DType type : testing::matmul_types()) {
    for (int64_t n_in : {512, 96}) {
      if (n_in % dtype_info(type).block_size != 0) continue;
      testing::TestWeights weights(type, kOut, n_in, 5);
      const std::vector<float> x = testing::random_floats(kMaxRows * n_in, 9);
      for (int n_rows = 1; n_rows <= kMaxRows; ++n_rows) {
        std::vector<float> a(n_rows * kOut), b(n_rows * kOut);
        matmul_with_table(*t.avx2, weights.matrix(), x.data(), n_rows, a.data(), scratch, pool);
        matmul_with_table(*t.avx512, weights.matrix(), x.data(), n_rows, b.data(), scratch, pool);
        ASSERT_TRUE(same_bits(a, b)) << dtype_name(type) << " n_in " << n_in << " rows " << n_rows;
      }
    }
  }
}

TEST(SimdTables, Avx512ElementwiseKernelsGiveTheAvx2Bits) {
  const TablePair t = tables_or_skip();
  if (t.avx512 == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  for (int n : {8, 64, 2048, 5632}) {
    const std::vector<float> x = testing::random_floats(n, 1), w = testing::random_floats(n, 2);
    std::vector<float> a(n), b(n);
    t.avx2->rmsnorm(x.data(), w.data(), n, 1e-5f, a.data());
    t.avx512->rmsnorm(x.data(), w.data(), n, 1e-5f, b.data());
    EXPECT_TRUE(same_bits(a, b)) << "rmsnorm n " << n;
    std::vector<float> ga = testing::random_floats(n, 3, 4.0f), gb = ga;
    t.avx2->silu_mul(ga.data(), w.data(), n);
    t.avx512->silu_mul(gb.data(), w.data(), n);
    EXPECT_TRUE(same_bits(ga, gb)) << "silu_mul n " << n;
    ga = testing::random_floats(n, 4, 4.0f);
    gb = ga;
    t.avx2->gelu_mul(ga.data(), w.data(), n);
    t.avx512->gelu_mul(gb.data(), w.data(), n);
    EXPECT_TRUE(same_bits(ga, gb)) << "gelu_mul n " << n;
    ga = testing::random_floats(n, 5, 10.0f);
    gb = ga;
    t.avx2->swiglu_oai(ga.data(), w.data(), n);
    t.avx512->swiglu_oai(gb.data(), w.data(), n);
    EXPECT_TRUE(same_bits(ga, gb)) << "swiglu_oai n " << n;
    for (int block : {32, 256}) {
      if (n % block != 0) continue;
      const Q8RowLayout layout = make_q8_row_layout(n, block);
      std::vector<std::byte> qa(layout.row_bytes), qb(layout.row_bytes);
      t.avx2->quantize_q8_row(x.data(), n, block, qa.data());
      t.avx512->quantize_q8_row(x.data(), n, block, qb.data());
      EXPECT_EQ(0, std::memcmp(qa.data(), qb.data(), qa.size())) << "quantize n " << n << " block " << block;
    }
  }
}

}  // namespace
}  // namespace strata::kernels
