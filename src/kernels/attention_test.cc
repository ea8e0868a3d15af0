// K/V conversions and paged attention: against float64 formulas, SIMD against scalar,
// and bit-identical results whatever the block addresses and other heads' threads.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <cstring>
#include <immintrin.h>
#include <algorithm>
#include <random>
#include <vector>

#include "kernels/attention_oracle.h"
#include "kernels/fp16.h"
#include "kernels/table_list.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

using testing::random_floats;
using testing::runnable_tables;

__attribute__((target("f16c"))) uint16_t f16c_convert(float f) {
  return static_cast<uint16_t>(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT), 0));
}

TEST(Fp16, ScalarConversionMatchesF16cBitForBit) {
  // avx2_table() is there only where the CPU has F16C (clang 14 cannot name f16c in
  // __builtin_cpu_supports).
  if (avx2_table() == nullptr) GTEST_SKIP() << "no AVX2 + FMA + F16C";
  // Every float whose top 20 bits vary (covers all exponents, rounding ties, subnormals,
  // overflow, Inf and NaN) plus random low bits.
  std::mt19937 rng(1);
  for (uint32_t hi = 0; hi < (1u << 20); ++hi) {
    for (uint32_t low : {0u, 0x1000u, 0x0fffu, 0x1001u, static_cast<uint32_t>(rng() & 0xfffu)}) {
      const float f = bits_to_float((hi << 12) | low);
      ASSERT_EQ(f16c_convert(f), fp32_to_fp16(f)) << std::hex << float_to_bits(f);
    }
  }
  for (uint32_t h = 0; h < 65536; ++h) {
    const float back = fp16_to_fp32(static_cast<uint16_t>(h));
    if (back == back) {
      ASSERT_EQ(h, fp32_to_fp16(back)) << "half " << h << " must round-trip";
    }
  }
}

TEST(KvConvert, EveryTableStoresTheSameBytesAndLoadsTheSameFloats) {
  for (DType type : {DType::kF32, DType::kF16, DType::kQ8_0}) {
    const int n = 160;
    std::vector<float> x = random_floats(n, 3);
    x[5] = 0.0f;
    const size_t bytes = *dtype_row_bytes(type, n);
    std::vector<std::byte> want(bytes), got(bytes);
    std::vector<float> want_back(n), got_back(n);
    reference_table().store_kv(x.data(), n, type, want.data());
    reference_table().load_kv(want.data(), n, type, want_back.data());
    for (const KernelTable* t : runnable_tables()) {
      t->store_kv(x.data(), n, type, got.data());
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), bytes)) << t->name << " " << dtype_name(type);
      t->load_kv(got.data(), n, type, got_back.data());
      EXPECT_EQ(0, std::memcmp(want_back.data(), got_back.data(), n * sizeof(float))) << t->name;
    }
    for (int i = 0; i < n; ++i) {
      // F16: 11-bit significand; Q8_0: half a step of amax / 127 (plus the f16 scale).
      float amax = 0;
      for (int k = i / 32 * 32; k < i / 32 * 32 + 32; ++k) amax = std::max(amax, std::fabs(x[k]));
      const float tol = type == DType::kF32 ? 0.0f : type == DType::kF16 ? std::fabs(x[i]) / 2048 : amax / 127 * 0.51f + amax * 1e-3f;
      EXPECT_NEAR(want_back[i], x[i], tol) << dtype_name(type) << " " << i;
    }
  }
}

TEST(KvConvert, RejectsTypesAndSizesItCannotStore) {
  EXPECT_FALSE(kv_type_supported(DType::kQ4_0, 64));
  EXPECT_FALSE(kv_type_supported(DType::kQ8_0, 48));
  EXPECT_TRUE(kv_type_supported(DType::kF16, 48));
  std::vector<float> out(48, 1.0f);
  std::vector<std::byte> src(64);
  load_kv(src.data(), 48, DType::kQ8_0, out.data());
  EXPECT_TRUE(std::isnan(out[0]));
}

// A sequence's K/V in a paged cache whose blocks sit at shuffled addresses.
struct PagedKv {
  std::vector<std::byte> pool;
  std::vector<const void*> k_blocks, v_blocks;
  AttentionArgs args;

  PagedKv(DType type, int n_tokens, int n_head, int n_head_kv, int head_dim, int block_tokens, uint32_t placement_seed,
          const std::vector<float>& k, const std::vector<float>& v) {
    const size_t token_bytes = *dtype_row_bytes(type, static_cast<uint64_t>(n_head_kv) * head_dim);
    const int n_blocks = (n_tokens + block_tokens - 1) / block_tokens;
    const int n_slots = n_blocks * 2 + 3;
    const size_t block_bytes = token_bytes * block_tokens;
    pool.assign(block_bytes * 2 * n_slots, std::byte{0x7f});
    std::vector<int> slots(n_slots);
    for (int i = 0; i < n_slots; ++i) slots[i] = i;
    std::shuffle(slots.begin(), slots.end(), std::mt19937(placement_seed));
    for (int b = 0; b < n_blocks; ++b) {
      std::byte* kb = pool.data() + slots[b] * 2 * block_bytes;
      std::byte* vb = kb + block_bytes;
      for (int t = 0; t < block_tokens && b * block_tokens + t < n_tokens; ++t) {
        const size_t src = static_cast<size_t>(b * block_tokens + t) * n_head_kv * head_dim;
        for (int h = 0; h < n_head_kv; ++h) {
          const size_t head_bytes = token_bytes / n_head_kv;
          reference_table().store_kv(&k[src + h * head_dim], head_dim, type, kb + t * token_bytes + h * head_bytes);
          reference_table().store_kv(&v[src + h * head_dim], head_dim, type, vb + t * token_bytes + h * head_bytes);
        }
      }
      k_blocks.push_back(kb);
      v_blocks.push_back(vb);
    }
    args.block_k = k_blocks.data();
    args.block_v = v_blocks.data();
    args.block_tokens = block_tokens;
    args.token_stride_bytes = token_bytes;
    args.n_tokens = n_tokens;
    args.n_head = n_head;
    args.n_head_kv = n_head_kv;
    args.head_dim = head_dim;
    args.kv_type = type;
    args.scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  }
};

struct AttnCase {
  DType type;
  int n_tokens, n_head, n_head_kv, head_dim, block_tokens;
};

class Attention : public ::testing::TestWithParam<AttnCase> {};

// K and V after the K/V type's rounding (what the kernels read back), for float64 references.
std::vector<float> stored_values(const AttnCase& c, const std::vector<float>& x) {
  std::vector<float> out(x.size());
  std::vector<std::byte> tmp(*dtype_row_bytes(c.type, c.head_dim));
  for (size_t i = 0; i < x.size(); i += c.head_dim) {
    reference_table().store_kv(&x[i], c.head_dim, c.type, tmp.data());
    reference_table().load_kv(tmp.data(), c.head_dim, c.type, &out[i]);
  }
  return out;
}

// out against the float64 softmax of q over the stored keys [first, c.n_tokens).
void expect_float64_softmax(const AttnCase& c, const std::vector<float>& q, const std::vector<float>& ks,
                            const std::vector<float>& vs, float scale_qk, int first, const std::vector<float>& out,
                            const std::string& what, const float* sinks = nullptr, double softcap = 0.0) {
  const int group = c.n_head / c.n_head_kv;
  for (int h = 0; h < c.n_head; ++h) {
    const int kvh = h / group;
    std::vector<double> s(c.n_tokens);
    double mx = -1e300, den = 0.0;
    for (int p = first; p < c.n_tokens; ++p) {
      double d = 0.0;
      for (int i = 0; i < c.head_dim; ++i) d += static_cast<double>(q[h * c.head_dim + i]) * ks[(static_cast<size_t>(p) * c.n_head_kv + kvh) * c.head_dim + i];
      s[p] = softcap > 0.0 ? softcap * std::tanh(d * scale_qk / softcap) : d * scale_qk;
      mx = std::max(mx, s[p]);
    }
    for (int p = first; p < c.n_tokens; ++p) den += std::exp(s[p] - mx);
    if (sinks != nullptr) den += std::exp(static_cast<double>(sinks[h]) - mx);
    for (int i = 0; i < c.head_dim; ++i) {
      double want = 0.0, scale = 0.0;
      for (int p = first; p < c.n_tokens; ++p) {
        const double vv = vs[(static_cast<size_t>(p) * c.n_head_kv + kvh) * c.head_dim + i];
        want += std::exp(s[p] - mx) / den * vv;
        scale = std::max(scale, std::fabs(vv));
      }
      // float32 scores (head_dim products), exps within 2 ulp and n_tokens-term sums.
      ASSERT_NEAR(out[h * c.head_dim + i], want, scale * 2e-5) << what << " head " << h << " dim " << i;
    }
  }
}

TEST_P(Attention, MatchesFloat64SoftmaxOfTheStoredValues) {
  const AttnCase c = GetParam();
  const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
  const std::vector<float> k = random_floats(kv_n, 1), v = random_floats(kv_n, 2);
  const std::vector<float> q = random_floats(static_cast<size_t>(c.n_head) * c.head_dim, 3, 2.0f);
  PagedKv kv(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 1, k, v);
  const std::vector<float> ks = stored_values(c, k), vs = stored_values(c, v);
  std::vector<float> scratch(attention_scratch_floats(kv.args));
  for (const KernelTable* t : runnable_tables()) {
    std::vector<float> out(q.size());
    t->attention(kv.args, q.data(), out.data(), scratch.data(), 0, c.n_head_kv);
    expect_float64_softmax(c, q, ks, vs, kv.args.scale, 0, out, t->name);
  }
}

// A row starting past position 0 (a sliding window) attends over keys [first_token, n_tokens)
// only, from a start inside a block, at a block's first key, or at the last key: every table
// gives the float64 softmax over those keys, the SIMD tables the oracle's bytes, and a start
// at 0 the bytes of a row without one.
TEST_P(Attention, RowStartingPastZeroAttendsOverItsWindowOnly) {
  const AttnCase c = GetParam();
  const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
  const std::vector<float> k = random_floats(kv_n, 31), v = random_floats(kv_n, 32);
  const std::vector<float> q = random_floats(static_cast<size_t>(c.n_head) * c.head_dim, 33, 2.0f);
  PagedKv kv(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 15, k, v);
  const std::vector<float> ks = stored_values(c, k), vs = stored_values(c, v);
  std::vector<float> scratch(attention_scratch_floats(kv.args));
  for (int first : {0, 1, c.block_tokens - 1, c.block_tokens, c.block_tokens + 3, c.n_tokens / 2, c.n_tokens - 1}) {
    if (first < 0 || first >= c.n_tokens) continue;
    AttentionArgs a = kv.args;
    a.first_token = first;
    ASSERT_TRUE(check_attention_args(a).ok()) << first;
    std::vector<float> want(q.size()), whole(q.size());
    attention_oracle(a, q.data(), want.data());
    attention_oracle(kv.args, q.data(), whole.data());
    if (first == 0) EXPECT_EQ(0, std::memcmp(want.data(), whole.data(), q.size() * sizeof(float)));
    for (const KernelTable* t : runnable_tables()) {
      const std::string what = std::string(t->name) + " first " + std::to_string(first);
      std::vector<float> got(q.size(), 1.0f);
      t->attention(a, q.data(), got.data(), scratch.data(), 0, c.n_head_kv);
      expect_float64_softmax(c, q, ks, vs, a.scale, first, got, what);
      // The decode path's shapes (its vectors: 8 dims on AVX2, 16 on AVX-512); others run the
      // scalar reference.
      const int dim_step = std::string(t->name) == "avx512" ? 16 : 8;
      if (t != &reference_table() && c.head_dim % dim_step == 0 && c.n_head / c.n_head_kv <= 8) {
        EXPECT_EQ(0, std::memcmp(want.data(), got.data(), q.size() * sizeof(float))) << what;
      }
    }
  }
}

// A tile of rows on every table: row r attends over the first tokens[r] keys of base's cache
// (with base's sinks, if any). Each row gets the bytes it gets alone, and on the SIMD tables the
// oracle's; check(table, got) looks further at a table's output.
void expect_tile_rows_get_their_solo_bytes(
    const AttnCase& c, const AttentionArgs& base, const std::vector<int>& tokens, const std::vector<float>& q,
    const std::string& what, const std::function<void(const KernelTable*, const std::vector<float>&)>& check = {}) {
  const size_t row = static_cast<size_t>(c.n_head) * c.head_dim;
  AttentionArgs tile = base;
  tile.n_rows = static_cast<int>(tokens.size());
  tile.row_tokens = tokens.data();
  std::vector<float> want(q.size());
  attention_oracle(tile, q.data(), want.data());
  std::vector<float> scratch(attention_scratch_floats(tile));
  for (const KernelTable* t : runnable_tables()) {
    std::vector<float> got(q.size(), 1.0f), solo(q.size(), 2.0f);
    t->attention(tile, q.data(), got.data(), scratch.data(), 0, c.n_head_kv);
    AttentionArgs one = base;
    for (size_t r = 0; r < tokens.size(); ++r) {
      one.n_tokens = tokens[r];
      t->attention(one, q.data() + r * row, solo.data() + r * row, scratch.data(), 0, c.n_head_kv);
    }
    EXPECT_EQ(0, std::memcmp(solo.data(), got.data(), q.size() * sizeof(float))) << t->name << what;
    if (t != &reference_table() && c.head_dim % 8 == 0) {
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), q.size() * sizeof(float))) << t->name << what;
    }
    if (check) check(t, got);
  }
}

// One row (a's first_token, sinks and softcap) on every table: the float64 softmax of the
// stored keys, and on the SIMD tables the oracle's bytes `want`.
void expect_every_table_row(const AttnCase& c, const AttentionArgs& a, const std::vector<float>& q,
                            const std::vector<float>& ks, const std::vector<float>& vs, const std::vector<float>& want,
                            const std::string& label) {
  const size_t row = static_cast<size_t>(c.n_head) * c.head_dim;
  std::vector<float> scratch(attention_scratch_floats(a));
  for (const KernelTable* t : runnable_tables()) {
    const std::string what = std::string(t->name) + label;
    std::vector<float> got(row, 1.0f);
    t->attention(a, q.data(), got.data(), scratch.data(), 0, c.n_head_kv);
    expect_float64_softmax(c, q, ks, vs, a.scale, a.first_token, got, what, a.sinks, a.softcap);
    // A row starting past 0 runs the scalar reference where the decode path does not fit.
    const int dim_step = std::string(t->name) == "avx512" ? 16 : 8;
    const bool decode_fits = c.head_dim % dim_step == 0 && c.n_head / c.n_head_kv <= 8;
    if (t != &reference_table() && c.head_dim % 8 == 0 && (a.first_token == 0 || decode_fits)) {
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), row * sizeof(float))) << what;
    }
  }
}

// Attention sinks (gpt-oss): each query head's sink is a key of value zero in its softmax.
// Every table gives the float64 softmax with the sink in the denominator, for one row (the
// decode paths), a row whose window starts past 0, and a tile of rows (the tile path); the
// SIMD tables give the oracle's bytes, and every row of a tile its solo bytes. The sinks span
// one that dominates every score, one that vanishes, and ordinary ones.
TEST_P(Attention, SinksJoinEveryHeadsSoftmaxAsAKeyOfValueZero) {
  const AttnCase c = GetParam();
  const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
  const std::vector<float> k = random_floats(kv_n, 51), v = random_floats(kv_n, 52);
  PagedKv kv(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 17, k, v);
  const std::vector<float> ks = stored_values(c, k), vs = stored_values(c, v);
  std::vector<float> sinks = random_floats(static_cast<size_t>(c.n_head), 53, 3.0f);
  sinks[0] = 40.0f;
  if (c.n_head > 1) sinks[c.n_head - 1] = -60.0f;
  const size_t row = static_cast<size_t>(c.n_head) * c.head_dim;
  const int n_rows = 6;
  std::vector<int> tokens;
  for (int r = 0; r < n_rows; ++r) tokens.push_back(std::max(1, c.n_tokens - (n_rows - 1 - r) * 5));
  const std::vector<float> q = random_floats(row * n_rows, 54, 2.0f);
  for (int first : {0, c.n_tokens / 2}) {
    AttentionArgs a = kv.args;
    a.sinks = sinks.data();
    a.first_token = first;
    std::vector<float> want(row), without(row);
    attention_oracle(a, q.data(), want.data());
    AttentionArgs plain = a;
    plain.sinks = nullptr;
    attention_oracle(plain, q.data(), without.data());
    EXPECT_NE(0, std::memcmp(want.data(), without.data(), row * sizeof(float))) << "the sinks changed nothing";
    expect_every_table_row(c, a, q, ks, vs, want, " first " + std::to_string(first));
  }
  AttentionArgs with_sinks = kv.args;
  with_sinks.sinks = sinks.data();
  expect_tile_rows_get_their_solo_bytes(c, with_sinks, tokens, q, " tile with sinks");
}

// Soft-capped scores (Gemma 2): every score becomes cap * tanh(score / cap) before the softmax.
// Every table gives the float64 softmax of the capped scores, for one row (the decode paths), a
// row whose window starts past 0, and a tile of rows; the SIMD tables give the oracle's bytes,
// every row of a tile its solo bytes; the cap (2, below the spread of the scores) changes them.
TEST_P(Attention, SoftcapSquashesEveryScoreBeforeTheSoftmax) {
  const AttnCase c = GetParam();
  const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
  const std::vector<float> k = random_floats(kv_n, 61), v = random_floats(kv_n, 62);
  PagedKv kv(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 19, k, v);
  const std::vector<float> ks = stored_values(c, k), vs = stored_values(c, v);
  const size_t row = static_cast<size_t>(c.n_head) * c.head_dim;
  const int n_rows = 5;
  std::vector<int> tokens;
  for (int r = 0; r < n_rows; ++r) tokens.push_back(std::max(1, c.n_tokens - (n_rows - 1 - r) * 7));
  const std::vector<float> q = random_floats(row * n_rows, 63, 8.0f);
  constexpr float kCap = 2.0f;
  for (int first : {0, c.n_tokens / 2}) {
    AttentionArgs a = kv.args;
    a.softcap = kCap;
    a.first_token = first;
    ASSERT_TRUE(check_attention_args(a).ok());
    std::vector<float> want(row), uncapped(row);
    attention_oracle(a, q.data(), want.data());
    AttentionArgs plain = a;
    plain.softcap = 0.0f;
    attention_oracle(plain, q.data(), uncapped.data());
    if (c.n_tokens - first > 1) {  // (over a single key, any score gives weight 1)
      EXPECT_NE(0, std::memcmp(want.data(), uncapped.data(), row * sizeof(float))) << "the cap changed nothing";
    }
    expect_every_table_row(c, a, q, ks, vs, want, " softcap, first " + std::to_string(first));
  }
  AttentionArgs capped = kv.args;
  capped.softcap = kCap;
  expect_tile_rows_get_their_solo_bytes(c, capped, tokens, q, " tile with softcap");
  AttentionArgs bad = kv.args;
  bad.softcap = -1.0f;
  EXPECT_FALSE(check_attention_args(bad).ok());
}

TEST_P(Attention, BitIdenticalWhateverTheBlockAddresses) {
  const AttnCase c = GetParam();
  const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
  const std::vector<float> k = random_floats(kv_n, 4), v = random_floats(kv_n, 5);
  const std::vector<float> q = random_floats(static_cast<size_t>(c.n_head) * c.head_dim, 6);
  PagedKv a(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 11, k, v);
  PagedKv b(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 12, k, v);
  std::vector<float> scratch(attention_scratch_floats(a.args));
  for (const KernelTable* t : runnable_tables()) {
    std::vector<float> out_a(q.size()), out_b(q.size(), 1.0f), out_heads(q.size());
    t->attention(a.args, q.data(), out_a.data(), scratch.data(), 0, c.n_head_kv);
    t->attention(b.args, q.data(), out_b.data(), scratch.data(), 0, c.n_head_kv);
    EXPECT_EQ(0, std::memcmp(out_a.data(), out_b.data(), q.size() * sizeof(float))) << t->name;
    // One kv head at a time (as a caller splitting heads over threads would).
    for (int h = c.n_head_kv - 1; h >= 0; --h) t->attention(b.args, q.data(), out_heads.data(), scratch.data(), h, 1);
    EXPECT_EQ(0, std::memcmp(out_a.data(), out_heads.data(), q.size() * sizeof(float))) << t->name;
  }
}

TEST_P(Attention, Avx512GivesTheAvx2Bits) {
  if (avx512_table() == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  const AttnCase c = GetParam();
  const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
  const std::vector<float> k = random_floats(kv_n, 7), v = random_floats(kv_n, 8);
  const std::vector<float> q = random_floats(static_cast<size_t>(c.n_head) * c.head_dim, 9);
  PagedKv kv(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 13, k, v);
  std::vector<float> scratch(attention_scratch_floats(kv.args));
  std::vector<float> out2(q.size()), out512(q.size(), 1.0f);
  avx2_table()->attention(kv.args, q.data(), out2.data(), scratch.data(), 0, c.n_head_kv);
  avx512_table()->attention(kv.args, q.data(), out512.data(), scratch.data(), 0, c.n_head_kv);
  EXPECT_EQ(0, std::memcmp(out2.data(), out512.data(), q.size() * sizeof(float)));
}

TEST_P(Attention, SimdTablesGiveTheOracleBytes) {
  const AttnCase c = GetParam();
  if (c.head_dim % 8 != 0) GTEST_SKIP() << "the SIMD tables run the scalar reference for this head size";
  const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
  const std::vector<float> k = random_floats(kv_n, 21), v = random_floats(kv_n, 22);
  const std::vector<float> q = random_floats(static_cast<size_t>(c.n_head) * c.head_dim, 23, 3.0f);
  PagedKv kv(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 14, k, v);
  std::vector<float> want(q.size());
  attention_oracle(kv.args, q.data(), want.data());
  std::vector<float> scratch(attention_scratch_floats(kv.args));
  for (const KernelTable* t : runnable_tables()) {
    if (t == &reference_table()) continue;
    std::vector<float> got(q.size(), 1.0f);
    t->attention(kv.args, q.data(), got.data(), scratch.data(), 0, c.n_head_kv);
    EXPECT_EQ(0, std::memcmp(want.data(), got.data(), q.size() * sizeof(float))) << t->name;
  }
}

// The decode paths walk a call's kv heads together (up to kAttentionDecodeMaxHeads padded
// heads, kKeyLanesMaxHeads key-lanes heads per walk): every range of kv heads gives its heads
// the bytes of the call over all of them, and writes nothing outside its heads' outputs.
TEST_P(Attention, EveryRangeOfKvHeadsGivesTheBytesOfTheWholeCall) {
  const AttnCase c = GetParam();
  const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
  const std::vector<float> k = random_floats(kv_n, 41), v = random_floats(kv_n, 42);
  const std::vector<float> q = random_floats(static_cast<size_t>(c.n_head) * c.head_dim, 43, 2.0f);
  PagedKv kv(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 16, k, v);
  const size_t head_floats = static_cast<size_t>(c.n_head / c.n_head_kv) * c.head_dim;
  std::vector<float> scratch(attention_scratch_floats(kv.args));
  for (const KernelTable* t : runnable_tables()) {
    std::vector<float> whole(q.size());
    t->attention(kv.args, q.data(), whole.data(), scratch.data(), 0, c.n_head_kv);
    for (int first = 0; first < c.n_head_kv; ++first) {
      for (int n = 1; first + n <= c.n_head_kv; ++n) {
        std::vector<float> got(q.size(), 7.0f);
        t->attention(kv.args, q.data(), got.data(), scratch.data(), first, n);
        const size_t lo = first * head_floats, hi = (first + n) * head_floats;
        ASSERT_EQ(0, std::memcmp(whole.data() + lo, got.data() + lo, (hi - lo) * sizeof(float)))
            << t->name << " kv heads [" << first << ", " << first + n << ")";
        for (size_t i = 0; i < q.size(); ++i) {
          if (i < lo || i >= hi) ASSERT_EQ(7.0f, got[i]) << t->name << " wrote float " << i << " outside its heads";
        }
      }
    }
  }
}

// A prompt chunk's rows in one call: row i attends over the first row_tokens[i] positions.
// Every table gives each row the bytes it gives that row alone (and the SIMD tables the
// oracle's), whatever the tile's size and its rows' lengths.
TEST_P(Attention, EveryRowOfATileGetsItsSoloBytes) {
  const AttnCase c = GetParam();
  const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
  const std::vector<float> k = random_floats(kv_n, 31), v = random_floats(kv_n, 32);
  PagedKv kv(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 15, k, v);
  const size_t row = static_cast<size_t>(c.n_head) * c.head_dim;
  // Up to the model's largest tile for this head grouping: 256 row-heads, at least 8 rows
  // (model_impl.h).
  const int largest_tile_rows = std::max(256 / (c.n_head / c.n_head_kv), 8);
  for (int n_rows : {2, 3, 5, 8, 16, 32, 64, 128, 256}) {
    if (n_rows > largest_tile_rows) break;
    std::vector<int> tokens;
    for (int r = 0; r < n_rows; ++r) tokens.push_back(std::max(0, c.n_tokens - (n_rows - 1 - r) * 3));
    if (n_rows == 5) tokens[1] = 0;  // a row with nothing to attend to gives zeros
    const std::vector<float> q = random_floats(row * n_rows, 33 + n_rows, 2.0f);
    expect_tile_rows_get_their_solo_bytes(c, kv.args, tokens, q, " rows " + std::to_string(n_rows),
                                          [&](const KernelTable* t, const std::vector<float>& got) {
                                            if (n_rows != 5) return;
                                            for (size_t i = 0; i < row; ++i) ASSERT_EQ(0.0f, got[row + i]) << t->name;
                                          });
  }
}

// The oracle's exponential (whose lane-for-lane equality with the kernels' the byte tests
// above prove) is e^x within 2 ulp over the range softmax uses, and clamps below -87.
TEST(AttentionOracle, Exp8LaneIsTheExponentialWithinTwoUlp) {
  for (float x = -87.0f; x <= 0.0f; x += 0.01f) {
    const double want = std::exp(static_cast<double>(x));
    ASSERT_NEAR(exp8_lane(x), want, want * 2.4e-7) << x;
  }
  EXPECT_EQ(1.0f, exp8_lane(0.0f));
  EXPECT_EQ(exp8_lane(-1000.0f), exp8_lane(-87.0f));
  EXPECT_EQ(exp8_lane(-INFINITY), exp8_lane(-87.0f));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Attention,
    ::testing::Values(AttnCase{DType::kF32, 1, 4, 4, 64, 16}, AttnCase{DType::kF16, 37, 8, 2, 64, 16},
                      AttnCase{DType::kQ8_0, 100, 8, 4, 64, 16}, AttnCase{DType::kF16, 50, 8, 4, 8, 16},
                      AttnCase{DType::kF32, 33, 6, 1, 32, 5}, AttnCase{DType::kQ8_0, 300, 4, 2, 128, 32},
                      AttnCase{DType::kF16, 70, 32, 4, 64, 16}, AttnCase{DType::kQ8_0, 45, 16, 8, 64, 16},
                      AttnCase{DType::kF16, 29, 4, 4, 40, 8},
                      // Decode windows of several odd-sized blocks, and blocks larger than a window.
                      AttnCase{DType::kF16, 131, 8, 1, 16, 7}, AttnCase{DType::kQ8_0, 333, 16, 2, 64, 96},
                      // Key lanes (one query head per kv head; two take the 4-head layout):
                      // qwen2moe's 128-dim heads, a window's last block short of 8 keys, and a
                      // block larger than a window.
                      AttnCase{DType::kF16, 77, 4, 4, 128, 16}, AttnCase{DType::kQ8_0, 131, 4, 2, 32, 21},
                      AttnCase{DType::kF32, 150, 2, 2, 48, 70},
                      // More kv heads than one key-lanes walk takes together (16).
                      AttnCase{DType::kF16, 60, 18, 18, 32, 16},
                      // Several padded kv heads (3-8 query heads each) per walk: groups 3, 4 and
                      // 8, odd blocks, and more kv heads than one walk takes together (8).
                      AttnCase{DType::kF16, 100, 12, 4, 64, 16}, AttnCase{DType::kQ8_0, 90, 32, 8, 32, 16},
                      AttnCase{DType::kQ8_0, 130, 48, 6, 64, 16}, AttnCase{DType::kF32, 41, 16, 4, 16, 7},
                      AttnCase{DType::kF16, 60, 30, 10, 32, 16}, AttnCase{DType::kQ8_0, 75, 40, 10, 32, 16},
                      // Groups of 3 and 4 on the 4-head layout (two keys per vector on AVX2, four on
                      // AVX-512): one key, an odd last key group, one past a window (48 keys on AVX2,
                      // 64 on AVX-512), odd blocks across windows, a block larger than a window,
                      // Llama-3 / Mixtral's 8 kv heads of 128 at depth.
                      AttnCase{DType::kF16, 1, 32, 8, 128, 16}, AttnCase{DType::kF16, 49, 32, 8, 128, 16},
                      AttnCase{DType::kQ8_0, 65, 32, 8, 128, 16}, AttnCase{DType::kF16, 97, 12, 4, 128, 16},
                      AttnCase{DType::kF32, 63, 24, 8, 64, 7}, AttnCase{DType::kQ8_0, 130, 16, 4, 64, 96},
                      AttnCase{DType::kF16, 258, 12, 4, 128, 32}, AttnCase{DType::kF16, 515, 32, 8, 128, 16},
                      // gpt-oss: 64 query heads of 64 on 8 kv heads.
                      AttnCase{DType::kF16, 140, 64, 8, 64, 16}),
    [](const ::testing::TestParamInfo<AttnCase>& info) {
      const AttnCase& c = info.param;
      return std::string(dtype_name(c.type)) + "_t" + std::to_string(c.n_tokens) + "_h" + std::to_string(c.n_head) + "_kv" +
             std::to_string(c.n_head_kv) + "_d" + std::to_string(c.head_dim) + "_b" + std::to_string(c.block_tokens);
    });

TEST(AttentionArgs, RejectsInconsistentHeads) {
  AttentionArgs a;
  a.n_head = 6;
  a.n_head_kv = 4;
  a.head_dim = 64;
  EXPECT_FALSE(check_attention_args(a).ok());
  a.n_head = 8;
  a.kv_type = DType::kQ8_0;
  a.head_dim = 48;
  EXPECT_FALSE(check_attention_args(a).ok());
  a.head_dim = 64;
  EXPECT_TRUE(check_attention_args(a).ok());
}

// A first key past 0 is for one row with keys left after it.
TEST(AttentionArgs, RejectsAFirstTokenItCannotServe) {
  AttentionArgs a;
  a.n_head = 8;
  a.n_head_kv = 4;
  a.head_dim = 64;
  a.n_tokens = 10;
  const void* blocks[1] = {nullptr};
  a.block_k = a.block_v = blocks;
  a.first_token = 9;
  EXPECT_TRUE(check_attention_args(a).ok());
  a.first_token = 10;
  EXPECT_FALSE(check_attention_args(a).ok());
  a.first_token = -1;
  EXPECT_FALSE(check_attention_args(a).ok());
  a.first_token = 3;
  a.n_rows = 2;
  EXPECT_FALSE(check_attention_args(a).ok());
}

// The model sizes attention scratch once, for its largest block; a smaller block takes more
// blocks per prompt window, and the scratch still has to hold it.
TEST(AttentionScratch, SizedForABlockCoversEverySmallerBlock) {
  AttentionArgs a;
  a.n_head = 32;
  a.n_head_kv = 4;
  a.head_dim = 64;
  a.n_rows = 8;
  for (int largest : {16, 48, 100, 256}) {
    a.block_tokens = largest;
    const size_t sized = attention_scratch_floats(a);
    for (int b = 1; b <= largest; ++b) {
      a.block_tokens = b;
      ASSERT_LE(attention_scratch_floats(a), sized) << "block " << b << " in scratch sized for " << largest;
    }
  }
}

// A decode row's walk over several kv heads keeps per-head state in scratch (replicated
// queries and running outputs): every table stays inside attention_scratch_floats().
TEST(AttentionScratch, DecodeWalkOverManyKvHeadsStaysInsideIt) {
  for (const AttnCase& c : {AttnCase{DType::kF16, 80, 32, 8, 128, 16}, AttnCase{DType::kQ8_0, 50, 80, 10, 64, 16},
                            AttnCase{DType::kF16, 40, 18, 18, 128, 16}, AttnCase{DType::kF32, 70, 16, 4, 256, 96}}) {
    const size_t kv_n = static_cast<size_t>(c.n_tokens) * c.n_head_kv * c.head_dim;
    PagedKv kv(c.type, c.n_tokens, c.n_head, c.n_head_kv, c.head_dim, c.block_tokens, 17, random_floats(kv_n, 51),
               random_floats(kv_n, 52));
    const std::vector<float> q = random_floats(static_cast<size_t>(c.n_head) * c.head_dim, 53);
    const size_t n = attention_scratch_floats(kv.args);
    constexpr size_t kGuard = 4096;
    constexpr float kUntouched = 12345.0f;
    for (const KernelTable* t : runnable_tables()) {
      std::vector<float> scratch(n + kGuard, kUntouched), out(q.size());
      t->attention(kv.args, q.data(), out.data(), scratch.data(), 0, c.n_head_kv);
      for (size_t i = n; i < n + kGuard; ++i) {
        ASSERT_EQ(kUntouched, scratch[i]) << t->name << " wrote scratch float " << i << " of " << n << ", kv heads "
                                          << c.n_head_kv << " x " << c.head_dim;
      }
    }
  }
}

}  // namespace
}  // namespace strata::kernels
