// The packed IQ4_XS layout beyond what packed_matmul_test.cc checks for every layout: the
// extreme levels and scales are exact on every SIMD table, and packing puts a file block's
// codes and scales where packed_iq4xs.h says.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/packed_iq4xs.h"
#include "kernels/packed_test_support.h"

namespace strata::kernels {
namespace {

TEST(PackedIq4Xs, ExtremeLevelsAndScalesAreExactOnEverySimdTable) {
  // Even rows: level -127 (code 0) everywhere with scale -32; odd rows: level 113 (code 15)
  // with scale 31; activations at +-127. The AVX2 kernel's int16 pairs reach 2 * 127 * 127
  // here and the AVX-512 kernel's biased levels 1 and 241.
  const testing::PackedFormat f = testing::packed_format(DType::kIQ4_XS);
  const std::vector<const KernelTable*> tables = testing::packed_simd_tables(f);
  if (tables.empty()) GTEST_SKIP() << "no SIMD table of this CPU reads IQ4_XS packed";
  testing::PackedWeights w(f, 20, 512, 21);
  for (size_t blk = 0; blk < w.bytes.size(); blk += kPackedIQ4XSBlockBytes) {
    for (int i = 0; i < 16; ++i) {  // every d 2^-10 (fp16 0x1400)
      w.bytes[blk + 2 * i] = std::byte{0x00};
      w.bytes[blk + 2 * i + 1] = std::byte{0x14};
    }
    for (size_t k = 0; k < 128; ++k) {
      const size_t row = (k % 32) / 2;
      w.bytes[blk + kPackedIQ4XSScalesOffset + k] = row % 2 == 0 ? std::byte{0xe0} : std::byte{0x1f};
    }
    for (size_t k = 0; k < 32 * 64; ++k) {
      const size_t row = (k % 64) / 4;
      w.bytes[blk + kPackedIQ4XSCodesOffset + k] = row % 2 == 0 ? std::byte{0x00} : std::byte{0xff};
    }
  }
  for (const KernelTable* table : tables) {
    const testing::OracleRuns runs =
        testing::run_against_oracle(*table, f, w.packed, testing::extreme_inputs(4, 512), 4);
    EXPECT_EQ(0, std::memcmp(runs.got.data(), runs.want.data(), runs.got.size() * sizeof(float))) << table->name;
    EXPECT_NE(0.0f, runs.want[0]);
  }
}

TEST(PackedIq4Xs, PackingPlacesCodesAndScalesPerTheLayout) {
  BlockIQ4_XS b{};
  b.d = 0x3c00;
  b.scales_h = 0x0003;       // sub-block 0's scale gets high bits 3: 0x35 = 53, stored 21
  b.scales_l[0] = 0x75;      // sub-block 0 low bits 5, sub-block 1 low bits 7 (7 - 32 = -25)
  b.qs[3] = 0x9a;            // sub-block 0: element 3 code 10, element 19 code 9
  b.qs[16 + 5] = 0x0c;       // sub-block 1: element 5 code 12
  const WeightMatrix w{DType::kIQ4_XS, &b, 1, kQKK, sizeof b};
  std::vector<std::byte> packed(packed_iq4_xs_bytes(1, kQKK));
  pack_iq4_xs(w, packed.data());
  const auto* bytes = reinterpret_cast<const uint8_t*>(packed.data());
  EXPECT_EQ(0x00, bytes[0]);
  EXPECT_EQ(0x3c, bytes[1]);
  EXPECT_EQ(21, static_cast<int8_t>(bytes[kPackedIQ4XSScalesOffset + 0]));
  EXPECT_EQ(-25, static_cast<int8_t>(bytes[kPackedIQ4XSScalesOffset + 1]));
  // Input 3 (line 0, byte 3) low nibble; input 32 + 5 (sub-block 1 element 5: line 1, byte 1)
  // high nibble; input 19 (line 4, byte 3) low nibble.
  EXPECT_EQ(10, bytes[kPackedIQ4XSCodesOffset + 3] & 0x0f);
  EXPECT_EQ(12, bytes[kPackedIQ4XSCodesOffset + 64 * 1 + 1] >> 4);
  EXPECT_EQ(9, bytes[kPackedIQ4XSCodesOffset + 64 * 4 + 3] & 0x0f);
  EXPECT_EQ(0, bytes[kPackedIQ4XSCodesOffset + 64 * 16 + 4]);  // row 1 is padding
}

}  // namespace
}  // namespace strata::kernels
