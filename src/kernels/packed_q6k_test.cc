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

const testing::PackedFormat& format() {
  static const testing::PackedFormat f = testing::packed_format(DType::kQ6_K);
  return f;
}

KernelTable oracle_table() { return format().oracle_table(); }

TEST(PackedQ6K, SameSizeAsQ6_KWhenRowsFillWholeGroups) {
  EXPECT_EQ(packed_q6_k_bytes(64, 2048), *dtype_row_bytes(DType::kQ6_K, 2048) * 64);
  EXPECT_EQ(packed_q6_k_bytes(65, 2048), packed_q6_k_bytes(80, 2048));  // padded group
}

TEST(PackedQ6K, Avx512HandlesExtremeCodesAndScalesExactly) {
  // Codes 63 and 0 with scales -128 / 127 and activations at +-127: the largest integer sums.
  const KernelTable* avx512 = avx512_table();
  if (avx512 == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  for (const std::byte code_fill : {std::byte{0xff}, std::byte{0x00}}) {
    PackedWeights w(format(), 20, 512, 11);
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

}  // namespace
}  // namespace strata::kernels
