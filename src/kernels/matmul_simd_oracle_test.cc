// The SIMD Q4_1, Q5_1, IQ4_NL, MXFP4, IQ4_XS, Q3_K, Q2_K and lattice i-quant (IQ3_S, IQ3_XXS,
// IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S, IQ1_M) matmuls against their scalar oracles, bit for bit. Per
// output, 8 float lanes; lane k gets the exact integer dot product of elements 4k..4k+3 of
// each 32-element block (weight codes times activation codes) and, per step (an IQ4_NL or
// MXFP4 block of 32; a super-block of 256 for the others, its sub-block products times their
// scales summed as integers, less Q3_K's offset), one fused multiply-add with d_w * d_x (Q2_K
// then one more, minus its mins times dmin_w * d_x; Q4_1 / Q5_1 one more in lane 0, the
// block's activation code sum times m_w * d_x). The lanes are then summed as
// ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/test_weights.h"
#include "tensor/half.h"
#include "tensor/iq_grids.h"
#include "tensor/mxfp4.h"

namespace strata::kernels {
namespace {

// Lane k's integer dot product of one 32-element block: 16 bytes of nibbles (codes of
// `levels`, IQ4_NL's unless given) against x.
int lane_dot(const uint8_t* qs, const int8_t* x, int k, const int8_t* levels = iq::kIq4nlValues) {
  int dot = 0;
  for (int i = 4 * k; i < 4 * k + 4; ++i) {
    const int level = levels[i < 16 ? qs[i] & 0x0f : qs[i - 16] >> 4];
    dot += level * x[i];
  }
  return dot;
}

float lane_sum(const float* a) { return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7])); }

// IQ4_NL and MXFP4: per block, lane k += dot_k * (d_w * d_x), d_w the f16 d or mxfp4_scale(e).
template <class Block>
float oracle_levels4(const std::byte* row, const Q8Row& x, int64_t n_in) {
  const auto* w = reinterpret_cast<const Block*>(row);
  float acc[8] = {};
  for (int64_t s = 0; s < n_in / kQK; ++s) {
    float scale;
    if constexpr (std::is_same_v<Block, BlockMXFP4>) {
      scale = mxfp4_scale(w[s].e) * x.d[s];
    } else {
      scale = half_to_float(w[s].d) * x.d[s];
    }
    const int8_t* levels = std::is_same_v<Block, BlockMXFP4> ? kMxfp4Values : iq::kIq4nlValues;
    for (int k = 0; k < 8; ++k) {
      acc[k] = std::fma(static_cast<float>(lane_dot(w[s].qs, x.q + s * kQK, k, levels)), scale, acc[k]);
    }
  }
  return lane_sum(acc);
}

float oracle_iq4_xs(const std::byte* row, const Q8Row& x, int64_t n_in) {
  const auto* w = reinterpret_cast<const BlockIQ4_XS*>(row);
  float acc[8] = {};
  for (int64_t s = 0; s < n_in / kQKK; ++s) {
    int sum[8] = {};
    for (int j = 0; j < 8; ++j) {
      const int ls = ((w[s].scales_l[j / 2] >> (4 * (j % 2))) & 0x0f) | (((w[s].scales_h >> (2 * j)) & 3) << 4);
      for (int k = 0; k < 8; ++k) sum[k] += (ls - 32) * lane_dot(w[s].qs + 16 * j, x.q + s * kQKK + 32 * j, k);
    }
    const float scale = half_to_float(w[s].d) * x.d[s];
    for (int k = 0; k < 8; ++k) acc[k] = std::fma(static_cast<float>(sum[k]), scale, acc[k]);
  }
  return lane_sum(acc);
}

// Q3_K: lane k adds, per block j of 32, scale 2j (k < 4) or 2j + 1 (k >= 4) times the dot
// product of the unsigned codes u (0..7) over elements 4k..4k+3, less 4 * (scale 2k * the
// activation sum of sub-block 2k + scale 2k+1 * that of 2k+1) for the codes' offset of 4.
float oracle_q3_k(const std::byte* row, const Q8Row& x, int64_t n_in) {
  const auto* w = reinterpret_cast<const BlockQ3_K*>(row);
  float acc[8] = {};
  for (int64_t s = 0; s < n_in / kQKK; ++s) {
    int scale[16];
    for (int j = 0; j < 16; ++j) {
      const int low4 = j < 8 ? w[s].scales[j] & 0x0f : w[s].scales[j - 8] >> 4;
      scale[j] = (low4 | (((w[s].scales[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
    }
    int lanes[8] = {};
    for (int e = 0; e < kQKK; ++e) {
      const int half = e / 128, jj = (e % 128) / 32, l = e % 32;
      const int u = ((w[s].qs[32 * half + l] >> (2 * jj)) & 3) | (((w[s].hmask[l] >> (4 * half + jj)) & 1) << 2);
      const int k = (e % 32) / 4;
      lanes[k] += scale[2 * (e / 32) + (k >= 4 ? 1 : 0)] * u * x.q[s * kQKK + e];
    }
    const int16_t* sum16 = x.sum16 + s * 16;
    for (int k = 0; k < 8; ++k) lanes[k] -= 4 * (scale[2 * k] * sum16[2 * k] + scale[2 * k + 1] * sum16[2 * k + 1]);
    const float d = half_to_float(w[s].d) * x.d[s];
    for (int k = 0; k < 8; ++k) acc[k] = std::fma(static_cast<float>(lanes[k]), d, acc[k]);
  }
  return lane_sum(acc);
}

// Q2_K: lane k adds, per block j of 32, scale 2j (k < 4) or 2j + 1 (k >= 4) times the dot
// product of the codes over elements 4k..4k+3; its min term is min 2k * the activation sum
// of sub-block 2k + min 2k+1 * that of 2k+1.
float oracle_q2_k(const std::byte* row, const Q8Row& x, int64_t n_in) {
  const auto* w = reinterpret_cast<const BlockQ2_K*>(row);
  float acc[8] = {};
  for (int64_t s = 0; s < n_in / kQKK; ++s) {
    int lanes[8] = {}, mins[8] = {};
    for (int e = 0; e < kQKK; ++e) {
      const int half = e / 128, jj = (e % 128) / 32, l = e % 32;
      const int u = (w[s].qs[32 * half + l] >> (2 * jj)) & 3;
      const int k = (e % 32) / 4;
      lanes[k] += (w[s].scales[2 * (e / 32) + (k >= 4 ? 1 : 0)] & 0x0f) * u * x.q[s * kQKK + e];
    }
    const int16_t* sum16 = x.sum16 + s * 16;
    for (int k = 0; k < 8; ++k) {
      mins[k] = (w[s].scales[2 * k] >> 4) * sum16[2 * k] + (w[s].scales[2 * k + 1] >> 4) * sum16[2 * k + 1];
    }
    const float d = half_to_float(w[s].d) * x.d[s], dmin = half_to_float(w[s].dmin) * x.d[s];
    for (int k = 0; k < 8; ++k) {
      acc[k] = std::fma(static_cast<float>(lanes[k]), d, acc[k]);
      acc[k] = std::fma(-static_cast<float>(mins[k]), dmin, acc[k]);
    }
  }
  return lane_sum(acc);
}

// Q4_1 / Q5_1: codes u = nibble (+ 16 * the qh bit); the min term goes to lane 0.
template <bool kFiveBit>
float oracle_min_block(const std::byte* row, const Q8Row& x, int64_t n_in) {
  using Block = std::conditional_t<kFiveBit, BlockQ5_1, BlockQ4_1>;
  const auto* w = reinterpret_cast<const Block*>(row);
  float acc[8] = {};
  for (int64_t s = 0; s < n_in / kQK; ++s) {
    uint32_t qh = 0;
    if constexpr (kFiveBit) std::memcpy(&qh, w[s].qh, sizeof qh);
    int lanes[8] = {}, sum = 0;
    for (int i = 0; i < kQK; ++i) {
      const int u = (i < 16 ? w[s].qs[i] & 0x0f : w[s].qs[i - 16] >> 4) | static_cast<int>(((qh >> i) & 1u) << 4);
      lanes[i / 4] += u * x.q[s * kQK + i];
      sum += x.q[s * kQK + i];
    }
    const float d = half_to_float(w[s].d) * x.d[s], m = half_to_float(w[s].m) * x.d[s];
    for (int k = 0; k < 8; ++k) {
      acc[k] = std::fma(static_cast<float>(lanes[k]), d, acc[k]);
      acc[k] = std::fma(k == 0 ? static_cast<float>(sum) : 0.0f, m, acc[k]);
    }
  }
  return lane_sum(acc);
}

// The lattice i-quants: per sub-block j of 32, the signed integer weights (grid magnitude
// times sign; IQ1_S / IQ1_M: 8 * grid value + the group's shift sign) and the odd integer
// scale of elements 0-15 and 16-31 (equal but for IQ2_XS, IQ2_S and IQ1_M); lane k adds its
// scale times the weights' dot product with the codes over elements 4k..4k+3; per
// super-block one fused multiply-add by (d_w * f) * d_x, f the format's power of two
// (IQ3_S 1, IQ3_XXS 1/4, IQ2_* and IQ1_* 1/8).
struct LatticeSubBlock {
  int w[32];
  int scale_lo, scale_hi;
};

void put_group(uint64_t entry, uint8_t signs, int n, int* w) {
  for (int i = 0; i < n; ++i) w[i] = iq::grid_byte(entry, i) * ((signs >> i) & 1 ? -1 : 1);
}

uint32_t u32_at(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

LatticeSubBlock iq3_s_sub(const std::byte* block, int j) {
  const auto& b = *reinterpret_cast<const BlockIQ3_S*>(block);
  LatticeSubBlock out;
  for (int l = 0; l < 4; ++l) {
    const int i0 = b.qs[8 * j + 2 * l] | ((b.qh[j] << (8 - 2 * l)) & 256);
    const int i1 = b.qs[8 * j + 2 * l + 1] | ((b.qh[j] << (7 - 2 * l)) & 256);
    put_group(iq::kIq3sGrid[i0], b.signs[4 * j + l], 4, out.w + 8 * l);
    put_group(iq::kIq3sGrid[i1], static_cast<uint8_t>(b.signs[4 * j + l] >> 4), 4, out.w + 8 * l + 4);
  }
  out.scale_lo = out.scale_hi = 2 * ((b.scales[j / 2] >> (4 * (j % 2))) & 0x0f) + 1;
  return out;
}

LatticeSubBlock iq3_xxs_sub(const std::byte* block, int j) {
  const auto& b = *reinterpret_cast<const BlockIQ3_XXS*>(block);
  const uint32_t aux = u32_at(b.qs + kQKK / 4 + 4 * j);
  LatticeSubBlock out;
  for (int l = 0; l < 4; ++l) {
    const uint8_t signs = iq::sign_set_from7(aux >> (7 * l));
    put_group(iq::kIq3xxsGrid[b.qs[8 * j + 2 * l]], signs, 4, out.w + 8 * l);
    put_group(iq::kIq3xxsGrid[b.qs[8 * j + 2 * l + 1]], static_cast<uint8_t>(signs >> 4), 4, out.w + 8 * l + 4);
  }
  out.scale_lo = out.scale_hi = 2 * static_cast<int>(aux >> 28) + 1;
  return out;
}

LatticeSubBlock iq2_xxs_sub(const std::byte* block, int j) {
  const auto& b = *reinterpret_cast<const BlockIQ2_XXS*>(block);
  const uint32_t indices = u32_at(b.qs + 4 * j), aux = u32_at(b.qs + 4 * j + 2);
  LatticeSubBlock out;
  for (int l = 0; l < 4; ++l) {
    put_group(iq::kIq2xxsGrid[(indices >> (8 * l)) & 0xff], iq::sign_set_from7(aux >> (7 * l)), 8, out.w + 8 * l);
  }
  out.scale_lo = out.scale_hi = 2 * static_cast<int>(aux >> 28) + 1;
  return out;
}

LatticeSubBlock iq2_xs_sub(const std::byte* block, int j) {
  const auto& b = *reinterpret_cast<const BlockIQ2_XS*>(block);
  LatticeSubBlock out;
  for (int l = 0; l < 4; ++l) {
    const uint16_t q = b.qs[4 * j + l];
    put_group(iq::kIq2xsGrid[q & 511], iq::sign_set_from7(q >> 9), 8, out.w + 8 * l);
  }
  out.scale_lo = 2 * (b.scales[j] & 0x0f) + 1;
  out.scale_hi = 2 * (b.scales[j] >> 4) + 1;
  return out;
}

LatticeSubBlock iq2_s_sub(const std::byte* block, int j) {
  const auto& b = *reinterpret_cast<const BlockIQ2_S*>(block);
  LatticeSubBlock out;
  for (int l = 0; l < 4; ++l) {
    const int index = b.qs[4 * j + l] | (((b.qh[j] >> (2 * l)) & 3) << 8);
    put_group(iq::kIq2sGrid[index], b.qs[32 + 4 * j + l], 8, out.w + 8 * l);
  }
  out.scale_lo = 2 * (b.scales[j] & 0x0f) + 1;
  out.scale_hi = 2 * (b.scales[j] >> 4) + 1;
  return out;
}

// 8 * the IQ1 grid values (-1, 0, 1) of one group, plus its shift sign.
void put_iq1_group(uint64_t entry, bool negative_shift, int* w) {
  for (int i = 0; i < 8; ++i) w[i] = 8 * static_cast<int8_t>(iq::grid_byte(entry, i)) + (negative_shift ? -1 : 1);
}

LatticeSubBlock iq1_s_sub(const std::byte* block, int j) {
  const auto& b = *reinterpret_cast<const BlockIQ1_S*>(block);
  LatticeSubBlock out;
  const int qh = b.qh[j];
  for (int l = 0; l < 4; ++l) {
    put_iq1_group(iq::kIq1sGrid[b.qs[4 * j + l] | (((qh >> (3 * l)) & 7) << 8)], (qh & 0x8000) != 0, out.w + 8 * l);
  }
  out.scale_lo = out.scale_hi = 2 * ((qh >> 12) & 7) + 1;
  return out;
}

LatticeSubBlock iq1_m_sub(const std::byte* block, int j) {
  const auto& b = *reinterpret_cast<const BlockIQ1_M*>(block);
  LatticeSubBlock out;
  for (int l = 0; l < 4; ++l) {
    const int nibble = (b.qh[2 * j + l / 2] >> (4 * (l % 2))) & 0x0f;
    put_iq1_group(iq::kIq1sGrid[b.qs[4 * j + l] | ((nibble & 7) << 8)], (nibble & 8) != 0, out.w + 8 * l);
  }
  uint16_t sc[4];
  std::memcpy(sc, b.scales, sizeof sc);
  out.scale_lo = 2 * ((sc[j / 2] >> (6 * (j % 2))) & 7) + 1;
  out.scale_hi = 2 * ((sc[j / 2] >> (6 * (j % 2) + 3)) & 7) + 1;
  return out;
}

// The fp16 super-block scale: the block's first two bytes, or IQ1_M's spread over the top
// nibbles of its four uint16 scales.
uint16_t leading_d(const std::byte* block) {
  uint16_t d_bits;
  std::memcpy(&d_bits, block, sizeof d_bits);
  return d_bits;
}

uint16_t iq1_m_d(const std::byte* block) {
  uint16_t sc[4];
  std::memcpy(sc, block + offsetof(BlockIQ1_M, scales), sizeof sc);
  return static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
}

template <LatticeSubBlock (*kSub)(const std::byte*, int), size_t kBlockBytes, int kFactorInverse,
          uint16_t (*kD)(const std::byte*) = leading_d>
float oracle_lattice(const std::byte* row, const Q8Row& x, int64_t n_in) {
  float acc[8] = {};
  for (int64_t s = 0; s < n_in / kQKK; ++s) {
    const std::byte* block = row + s * kBlockBytes;
    int lanes[8] = {};
    for (int j = 0; j < 8; ++j) {
      const LatticeSubBlock sub = kSub(block, j);
      for (int k = 0; k < 8; ++k) {
        int dot = 0;
        for (int i = 4 * k; i < 4 * k + 4; ++i) dot += sub.w[i] * x.q[s * kQKK + 32 * j + i];
        lanes[k] += (k < 4 ? sub.scale_lo : sub.scale_hi) * dot;
      }
    }
    const float scale = half_to_float(kD(block)) * (1.0f / kFactorInverse) * x.d[s];
    for (int k = 0; k < 8; ++k) acc[k] = std::fma(static_cast<float>(lanes[k]), scale, acc[k]);
  }
  return lane_sum(acc);
}

using Oracle = float (*)(const std::byte*, const Q8Row&, int64_t);

// Every SIMD table against the oracle for w and the rows of x, for each row count of rows
// (at most x's rows).
void expect_matrix_oracle_bits(const WeightMatrix& w, Oracle oracle, const std::vector<float>& x,
                               std::initializer_list<int> rows) {
  const int64_t n_out = w.n_out, n_in = w.n_in;
  const int max_rows = std::max(rows);
  const Q8RowLayout layout = make_q8_row_layout(n_in, q8_block_for(w.type));
  std::vector<std::byte> xq(layout.row_bytes * max_rows);
  for (int r = 0; r < max_rows; ++r) {
    reference_table().quantize_q8_row(x.data() + r * n_in, n_in, layout.block, &xq[r * layout.row_bytes]);
  }
  ThreadPool pool(2);
  AlignedBuffer scratch;
  int n_tables = 0;
  for (const KernelTable* table : {avx2_table(), avx512_table()}) {
    if (table == nullptr) continue;
    ++n_tables;
    for (int n_rows : rows) {
      std::vector<float> y(static_cast<size_t>(n_rows) * n_out);
      matmul_with_table(*table, w, x.data(), n_rows, y.data(), scratch, pool);
      for (int r = 0; r < n_rows; ++r) {
        const Q8Row xr = q8_row(&xq[r * layout.row_bytes], layout);
        for (int64_t o = 0; o < n_out; ++o) {
          const float want = oracle(static_cast<const std::byte*>(w.data) + o * w.row_bytes, xr, n_in);
          ASSERT_EQ(0, std::memcmp(&want, &y[r * n_out + o], sizeof want))
              << dtype_name(w.type) << " on " << table->name << ", rows " << n_rows << ", output (" << r << ", "
              << o << "): " << y[r * n_out + o] << " vs oracle " << want;
        }
      }
    }
  }
  if (n_tables == 0) GTEST_SKIP() << "no AVX2 on this CPU";
}

// The same for random n_out x n_in weights of `type`.
void expect_oracle_bits_for(DType type, Oracle oracle, int64_t n_out, int64_t n_in, std::initializer_list<int> rows) {
  testing::TestWeights weights(type, n_out, n_in, 17);
  expect_matrix_oracle_bits(weights.matrix(), oracle, testing::random_floats(std::max(rows) * n_in, 18), rows);
}

void expect_oracle_bits(DType type, Oracle oracle) { expect_oracle_bits_for(type, oracle, 37, 512, {1, 2, 5}); }

// The lattice types' strip kernels (cpu/avx2_iq_strips.h; on AVX2 from 2 input rows, IQ1_S
// and IQ1_M from 4, as on AVX-512 without VBMI, where 3 rows are still tiled): tiles of 4
// rows with every remainder, strips of 4 (AVX-512) or 2 (AVX2) weight rows with a remainder
// in each thread's range, strips of one weight row for long rows (40 super-blocks on
// AVX-512, 70 on AVX2), the tiles past 128 super-blocks (the only ones the AVX2 table's
// IQ3_S, IQ3_XXS and IQ2 types still run, so with 2 and 3 rows too), and more input rows
// than one block of rows (768 of 512 inputs) serves.
void expect_lattice_oracle_bits(DType type, Oracle oracle) {
  expect_oracle_bits(type, oracle);
  expect_oracle_bits_for(type, oracle, 37, 512, {3, 4});
  expect_oracle_bits_for(type, oracle, 37, 512, {8, 9, 10, 11, 14});
  expect_oracle_bits_for(type, oracle, 6, 256 * 40, {9});
  expect_oracle_bits_for(type, oracle, 3, 256 * 70, {8});
  expect_oracle_bits_for(type, oracle, 2, 256 * 130, {2, 3, 8});
  expect_oracle_bits_for(type, oracle, 5, 512, {770});
}

TEST(MatmulSimdOracle, Iq4NlTablesGiveTheOracleBits) {
  expect_oracle_bits(DType::kIQ4_NL, oracle_levels4<BlockIQ4_NL>);
}

TEST(MatmulSimdOracle, Mxfp4TablesGiveTheOracleBits) { expect_oracle_bits(DType::kMXFP4, oracle_levels4<BlockMXFP4>); }

// Every exponent byte, the subnormal scales (e = 0, 1) and 2^127 (e = 255) included, as in
// packed_iq4nl_test.cc's packed case: one exponent per row, activations near 2^100 for e <= 135
// and near 2^-100 for e >= 120, so d_w * d_x stays a normal float.
TEST(MatmulSimdOracle, Mxfp4EveryExponentGivesTheOracleBits) {
  constexpr int64_t kOut = 136, kIn = 2 * kQK;
  for (const auto& [e_lo, x_scale] : {std::pair{0, 0x1p100f}, std::pair{120, 0x1p-100f}}) {
    std::vector<BlockMXFP4> file(kOut * kIn / kQK);
    for (size_t k = 0; k < file.size(); ++k) {
      file[k].e = static_cast<uint8_t>(e_lo + static_cast<int64_t>(k) / (kIn / kQK));
      for (int j = 0; j < kQK / 2; ++j) file[k].qs[j] = static_cast<uint8_t>(k * 37 + j * 101 + 7);
    }
    const WeightMatrix w{DType::kMXFP4, file.data(), kOut, kIn, kIn / kQK * sizeof(BlockMXFP4)};
    std::vector<float> x = testing::random_floats(3 * kIn, 32);
    for (float& v : x) v *= x_scale;
    expect_matrix_oracle_bits(w, oracle_levels4<BlockMXFP4>, x, {1, 3});
  }
}

TEST(MatmulSimdOracle, Iq4XsTablesGiveTheOracleBits) { expect_oracle_bits(DType::kIQ4_XS, oracle_iq4_xs); }

TEST(MatmulSimdOracle, Q3KTablesGiveTheOracleBits) { expect_oracle_bits(DType::kQ3_K, oracle_q3_k); }

TEST(MatmulSimdOracle, Q2KTablesGiveTheOracleBits) { expect_oracle_bits(DType::kQ2_K, oracle_q2_k); }

TEST(MatmulSimdOracle, Q4_1TablesGiveTheOracleBits) { expect_oracle_bits(DType::kQ4_1, oracle_min_block<false>); }

TEST(MatmulSimdOracle, Q5_1TablesGiveTheOracleBits) { expect_oracle_bits(DType::kQ5_1, oracle_min_block<true>); }

TEST(MatmulSimdOracle, Iq3STablesGiveTheOracleBits) {
  expect_lattice_oracle_bits(DType::kIQ3_S, oracle_lattice<iq3_s_sub, sizeof(BlockIQ3_S), 1>);
}

TEST(MatmulSimdOracle, Iq3XxsTablesGiveTheOracleBits) {
  expect_lattice_oracle_bits(DType::kIQ3_XXS, oracle_lattice<iq3_xxs_sub, sizeof(BlockIQ3_XXS), 4>);
}

TEST(MatmulSimdOracle, Iq2XxsTablesGiveTheOracleBits) {
  expect_lattice_oracle_bits(DType::kIQ2_XXS, oracle_lattice<iq2_xxs_sub, sizeof(BlockIQ2_XXS), 8>);
}

TEST(MatmulSimdOracle, Iq2XsTablesGiveTheOracleBits) {
  expect_lattice_oracle_bits(DType::kIQ2_XS, oracle_lattice<iq2_xs_sub, sizeof(BlockIQ2_XS), 8>);
}

TEST(MatmulSimdOracle, Iq2STablesGiveTheOracleBits) {
  expect_lattice_oracle_bits(DType::kIQ2_S, oracle_lattice<iq2_s_sub, sizeof(BlockIQ2_S), 8>);
}

TEST(MatmulSimdOracle, Iq1STablesGiveTheOracleBits) {
  expect_lattice_oracle_bits(DType::kIQ1_S, oracle_lattice<iq1_s_sub, sizeof(BlockIQ1_S), 8>);
}

TEST(MatmulSimdOracle, Iq1MTablesGiveTheOracleBits) {
  expect_lattice_oracle_bits(DType::kIQ1_M, oracle_lattice<iq1_m_sub, sizeof(BlockIQ1_M), 8, iq1_m_d>);
}

}  // namespace
}  // namespace strata::kernels
