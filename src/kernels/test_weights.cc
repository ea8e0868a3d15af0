#include "kernels/test_weights.h"

#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"
#include "kernels/reference/reference.h"

namespace strata::kernels::testing {

namespace {

uint16_t random_scale(std::mt19937& rng, float lo, float hi) {
  return fp32_to_fp16(std::uniform_real_distribution<float>(lo, hi)(rng));
}

void put_scale(uint8_t* b, size_t offset, uint16_t h) { std::memcpy(b + offset, &h, 2); }

// Q4_1, Q5_1, Q2_K, Q3_K, the i-quants, MXFP4, TQ1_0 and TQ2_0: every code field may hold any bits (all
// grid indices are in range); only the scales need realistic values.
bool fill_reference_only_block(DType type, uint8_t* b, std::mt19937& rng) {
  switch (type) {
    case DType::kQ4_1: case DType::kQ5_1:
      put_scale(b, 0, random_scale(rng, 0.001f, 0.01f));
      put_scale(b, 2, static_cast<uint16_t>(random_scale(rng, 0.01f, 0.1f) | 0x8000u));  // a negative min
      return true;
    case DType::kQ2_K:
      put_scale(b, offsetof(BlockQ2_K, d), random_scale(rng, 0.001f, 0.004f));
      put_scale(b, offsetof(BlockQ2_K, dmin), random_scale(rng, 0.0005f, 0.002f));
      return true;
    case DType::kQ3_K:
      put_scale(b, offsetof(BlockQ3_K, d), random_scale(rng, 0.0002f, 0.001f));
      return true;
    case DType::kIQ4_NL: case DType::kIQ4_XS:
      put_scale(b, 0, random_scale(rng, 0.00002f, 0.0002f));
      return true;
    case DType::kIQ3_S: case DType::kIQ3_XXS: case DType::kIQ2_XXS: case DType::kIQ2_XS: case DType::kIQ2_S:
    case DType::kIQ1_S:
      put_scale(b, 0, random_scale(rng, 0.0002f, 0.002f));
      return true;
    case DType::kTQ1_0:  // every byte decodes to five trits; the f16 d is the block's last field
      put_scale(b, offsetof(BlockTQ1_0, d), random_scale(rng, 0.005f, 0.05f));
      return true;
    case DType::kTQ2_0:  // code 3 (never written by ggml) decodes to +2
      put_scale(b, offsetof(BlockTQ2_0, d), random_scale(rng, 0.005f, 0.05f));
      return true;
    case DType::kMXFP4:  // scales 2^-13 .. 2^-7 (e 115 .. 121): weights up to 12 scales, ~0.001 to 0.1
      b[offsetof(BlockMXFP4, e)] = static_cast<uint8_t>(std::uniform_int_distribution<int>(115, 121)(rng));
      return true;
    case DType::kIQ1_M: {
      // The f16 scale is spread over the top nibbles of the four u16 scale words.
      const uint16_t d = random_scale(rng, 0.002f, 0.02f);
      uint16_t words[4];
      std::memcpy(words, b + offsetof(BlockIQ1_M, scales), sizeof words);
      for (int k = 0; k < 4; ++k) {
        words[k] = static_cast<uint16_t>((words[k] & 0x0fffu) | (((d >> (4 * k)) & 0xfu) << 12));
      }
      std::memcpy(b + offsetof(BlockIQ1_M, scales), words, sizeof words);
      return true;
    }
    default:
      return false;
  }
}

void fill_block(DType type, uint8_t* b, std::mt19937& rng) {
  const size_t n = dtype_info(type).block_bytes;
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(rng());
  if (fill_reference_only_block(type, b, rng)) return;
  uint16_t d;
  switch (type) {
    case DType::kQ8_0: case DType::kQ4_0: case DType::kQ5_0:
      d = random_scale(rng, 0.001f, 0.02f);
      std::memcpy(b, &d, 2);
      break;
    case DType::kQ4_K: case DType::kQ5_K: {
      d = random_scale(rng, 0.0005f, 0.002f);
      uint16_t dmin = random_scale(rng, 0.0005f, 0.002f);
      std::memcpy(b, &d, 2);
      std::memcpy(b + 2, &dmin, 2);
      break;
    }
    case DType::kQ6_K:
      d = random_scale(rng, 0.00005f, 0.0002f);
      std::memcpy(b + offsetof(BlockQ6_K, d), &d, 2);
      break;
    default:
      break;
  }
}

}  // namespace

TestWeights::TestWeights(DType type, int64_t n_out, int64_t n_in, uint32_t seed) {
  std::mt19937 rng(seed);
  const size_t row_bytes = *dtype_row_bytes(type, static_cast<uint64_t>(n_in));
  bytes_.resize(row_bytes * n_out);
  if (type == DType::kF32 || type == DType::kF16 || type == DType::kBF16) {
    std::normal_distribution<float> dist(0.0f, 0.05f);
    for (int64_t i = 0; i < n_out * n_in; ++i) {
      const float v = dist(rng);
      if (type == DType::kF32) {
        std::memcpy(&bytes_[i * 4], &v, 4);
      } else {
        const uint16_t h = type == DType::kF16 ? fp32_to_fp16(v) : static_cast<uint16_t>(float_to_bits(v) >> 16);
        std::memcpy(&bytes_[i * 2], &h, 2);
      }
    }
  } else {
    const size_t block_bytes = dtype_info(type).block_bytes;
    for (size_t off = 0; off < bytes_.size(); off += block_bytes) fill_block(type, &bytes_[off], rng);
  }
  w_ = WeightMatrix{type, bytes_.data(), n_out, n_in, row_bytes};
}

std::vector<float> TestWeights::row_floats(int64_t o) const {
  std::vector<float> out(w_.n_in);
  reference::dequantize(w_.type, bytes_.data() + o * w_.row_bytes, w_.n_in, out.data());
  return out;
}

std::vector<float> random_floats(size_t n, uint32_t seed, float sigma) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  for (size_t i = seed % 97; i < n; i += 97) v[i] *= 8.0f;
  return v;
}

std::vector<DType> matmul_types() {
  // The first nine, then those added with the GGUF files' other types (issue 12), then MXFP4,
  // then the ternary types.
  return {DType::kF32,     DType::kF16,    DType::kBF16,   DType::kQ8_0,  DType::kQ4_0,   DType::kQ5_0,
          DType::kQ4_K,    DType::kQ5_K,   DType::kQ6_K,   DType::kQ4_1,  DType::kQ5_1,   DType::kQ2_K,
          DType::kQ3_K,    DType::kIQ4_NL, DType::kIQ4_XS, DType::kIQ3_S, DType::kIQ3_XXS, DType::kIQ2_XXS,
          DType::kIQ2_XS,  DType::kIQ2_S,  DType::kIQ1_S,  DType::kIQ1_M,  DType::kMXFP4,  DType::kTQ1_0,
          DType::kTQ2_0};
}

}  // namespace strata::kernels::testing
