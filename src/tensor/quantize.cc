#include "tensor/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "tensor/block_layouts.h"
#include "tensor/half.h"

namespace strata {

namespace {

using QuantizeFn = void (*)(const float*, void*, size_t);
using DequantizeFn = void (*)(const void*, float*, size_t);

void quantize_row_f32(const float* src, void* dst, size_t n) { std::memcpy(dst, src, n * sizeof(float)); }
void dequantize_row_f32(const void* src, float* dst, size_t n) { std::memcpy(dst, src, n * sizeof(float)); }

struct Codec {
  DType type;
  QuantizeFn quantize;
  DequantizeFn dequantize;
};

constexpr Codec kCodecs[] = {
    {DType::kF32, quantize_row_f32, dequantize_row_f32},
    {DType::kF16, quantize_row_f16, dequantize_row_f16},
    {DType::kBF16, quantize_row_bf16, dequantize_row_bf16},
    {DType::kQ8_0, quantize_row_q8_0, dequantize_row_q8_0},
    {DType::kQ4_0, quantize_row_q4_0, dequantize_row_q4_0},
    {DType::kQ5_0, quantize_row_q5_0, dequantize_row_q5_0},
    {DType::kQ4_K, quantize_row_q4_k, dequantize_row_q4_k},
    {DType::kQ5_K, quantize_row_q5_k, dequantize_row_q5_k},
    {DType::kQ6_K, quantize_row_q6_k, dequantize_row_q6_k},
    {DType::kQ4_1, quantize_row_q4_1, dequantize_row_q4_1},
    {DType::kQ5_1, quantize_row_q5_1, dequantize_row_q5_1},
    {DType::kQ2_K, quantize_row_q2_k, dequantize_row_q2_k},
    {DType::kQ3_K, quantize_row_q3_k, dequantize_row_q3_k},
    {DType::kIQ4_NL, quantize_row_iq4_nl, dequantize_row_iq4_nl},
    {DType::kIQ4_XS, quantize_row_iq4_xs, dequantize_row_iq4_xs},
    {DType::kMXFP4, quantize_row_mxfp4, dequantize_row_mxfp4},
    {DType::kIQ3_S, quantize_row_iq3_s, dequantize_row_iq3_s},
    {DType::kIQ3_XXS, quantize_row_iq3_xxs, dequantize_row_iq3_xxs},
    {DType::kIQ2_XXS, quantize_row_iq2_xxs, dequantize_row_iq2_xxs},
    {DType::kIQ2_XS, quantize_row_iq2_xs, dequantize_row_iq2_xs},
    {DType::kIQ2_S, quantize_row_iq2_s, dequantize_row_iq2_s},
    {DType::kIQ1_S, quantize_row_iq1_s, dequantize_row_iq1_s},
    {DType::kIQ1_M, quantize_row_iq1_m, dequantize_row_iq1_m},
    {DType::kTQ1_0, quantize_row_tq1_0, dequantize_row_tq1_0},
    {DType::kTQ2_0, quantize_row_tq2_0, dequantize_row_tq2_0},
};

const Codec* find_codec(DType type) {
  for (const auto& c : kCodecs) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// The codec of type when it has the direction asked for (quantize or dequantize), else nullptr.
const Codec* find_codec(DType type, bool quantize) {
  const Codec* c = find_codec(type);
  if (c == nullptr) return nullptr;
  return (quantize ? c->quantize != nullptr : c->dequantize != nullptr) ? c : nullptr;
}

Status check_row(DType type, size_t n, bool quantize) {
  const char* what = quantize ? "quantize" : "dequantize";
  if (find_codec(type, quantize) == nullptr) {
    return Status::Unsupported(std::string("cannot ") + what + " type " + std::string(dtype_name(type)));
  }
  uint32_t block = dtype_info(type).block_size;
  if (n % block != 0) {
    return Status::InvalidArgument(std::string(what) + " " + std::string(dtype_name(type)) + ": " +
                                   std::to_string(n) + " elements are not whole blocks of " + std::to_string(block));
  }
  return Status::Ok();
}

// The element of largest magnitude, with its sign (Q4_0 / Q5_0 map it to the code 0).
float signed_max(const float* x, int n) {
  float amax = 0, max = 0;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      max = x[i];
    }
  }
  return max;
}

}  // namespace

bool can_quantize(DType type) { return find_codec(type, true) != nullptr; }
bool can_dequantize(DType type) { return find_codec(type, false) != nullptr; }

Status quantize_row(DType type, const float* src, void* dst, size_t n) {
  STRATA_RETURN_IF_ERROR(check_row(type, n, true));
  find_codec(type)->quantize(src, dst, n);
  return Status::Ok();
}

Status dequantize_row(DType type, const void* src, float* dst, size_t n) {
  STRATA_RETURN_IF_ERROR(check_row(type, n, false));
  find_codec(type)->dequantize(src, dst, n);
  return Status::Ok();
}

void quantize_row_f16(const float* src, void* dst, size_t n) {
  auto* out = static_cast<uint16_t*>(dst);
  for (size_t i = 0; i < n; ++i) out[i] = float_to_half(src[i]);
}

void dequantize_row_f16(const void* src, float* dst, size_t n) {
  const auto* in = static_cast<const uint16_t*>(src);
  for (size_t i = 0; i < n; ++i) dst[i] = half_to_float(in[i]);
}

void quantize_row_bf16(const float* src, void* dst, size_t n) {
  auto* out = static_cast<uint16_t*>(dst);
  for (size_t i = 0; i < n; ++i) out[i] = float_to_bf16(src[i]);
}

void dequantize_row_bf16(const void* src, float* dst, size_t n) {
  const auto* in = static_cast<const uint16_t*>(src);
  for (size_t i = 0; i < n; ++i) dst[i] = bf16_to_float(in[i]);
}

void quantize_row_q8_0(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ8_0*>(dst);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    const float* x = src + b * kBlock32;
    float amax = 0;
    for (int i = 0; i < kBlock32; ++i) amax = std::max(amax, std::fabs(x[i]));
    float d = amax / 127.0f;
    float inv_d = d != 0 ? 1.0f / d : 0.0f;
    blocks[b].d = float_to_half(d);
    for (int i = 0; i < kBlock32; ++i) blocks[b].qs[i] = static_cast<int8_t>(std::lround(x[i] * inv_d));
  }
}

void dequantize_row_q8_0(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ8_0*>(src);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    float d = half_to_float(blocks[b].d);
    for (int i = 0; i < kBlock32; ++i) dst[b * kBlock32 + i] = blocks[b].qs[i] * d;
  }
}

void quantize_row_q4_0(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ4_0*>(dst);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    const float* x = src + b * kBlock32;
    float d = signed_max(x, kBlock32) / -8.0f;  // the largest magnitude becomes code 0 (-8)
    float inv_d = d != 0 ? 1.0f / d : 0.0f;
    blocks[b].d = float_to_half(d);
    for (int j = 0; j < kBlock32 / 2; ++j) {
      int lo = std::clamp(static_cast<int>(std::lround(x[j] * inv_d)) + 8, 0, 15);
      int hi = std::clamp(static_cast<int>(std::lround(x[j + 16] * inv_d)) + 8, 0, 15);
      blocks[b].qs[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

void dequantize_row_q4_0(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ4_0*>(src);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    float d = half_to_float(blocks[b].d);
    float* y = dst + b * kBlock32;
    for (int j = 0; j < kBlock32 / 2; ++j) {
      y[j] = ((blocks[b].qs[j] & 0x0f) - 8) * d;
      y[j + 16] = ((blocks[b].qs[j] >> 4) - 8) * d;
    }
  }
}

void quantize_row_q5_0(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ5_0*>(dst);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    const float* x = src + b * kBlock32;
    float d = signed_max(x, kBlock32) / -16.0f;
    float inv_d = d != 0 ? 1.0f / d : 0.0f;
    blocks[b].d = float_to_half(d);
    uint32_t qh = 0;
    for (int j = 0; j < kBlock32 / 2; ++j) {
      int lo = std::clamp(static_cast<int>(std::lround(x[j] * inv_d)) + 16, 0, 31);
      int hi = std::clamp(static_cast<int>(std::lround(x[j + 16] * inv_d)) + 16, 0, 31);
      blocks[b].qs[j] = static_cast<uint8_t>((lo & 0x0f) | ((hi & 0x0f) << 4));
      qh |= static_cast<uint32_t>(lo >> 4) << j;
      qh |= static_cast<uint32_t>(hi >> 4) << (j + 16);
    }
    std::memcpy(blocks[b].qh, &qh, sizeof(qh));
  }
}

void dequantize_row_q5_0(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ5_0*>(src);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    float d = half_to_float(blocks[b].d);
    uint32_t qh;
    std::memcpy(&qh, blocks[b].qh, sizeof(qh));
    float* y = dst + b * kBlock32;
    for (int j = 0; j < kBlock32 / 2; ++j) {
      int lo = (blocks[b].qs[j] & 0x0f) | static_cast<int>(((qh >> j) & 1u) << 4);
      int hi = (blocks[b].qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
      y[j] = (lo - 16) * d;
      y[j + 16] = (hi - 16) * d;
    }
  }
}

// Q4_1 / Q5_1: m is the block's minimum and d spreads the range over the codes 0..max_code;
// codes round to nearest. Decoding such a row and encoding it again gives the same bytes
// (the minimum decodes to m and the maximum to max_code * d + m).
namespace {

void fit_min_block(const float* x, int max_code, uint16_t* d_out, uint16_t* m_out, uint8_t* q) {
  const float lo = *std::min_element(x, x + kBlock32), hi = *std::max_element(x, x + kBlock32);
  *d_out = float_to_half((hi - lo) / static_cast<float>(max_code));
  *m_out = float_to_half(lo);
  const float d = half_to_float(*d_out), m = half_to_float(*m_out);
  const float inv_d = d != 0 ? 1.0f / d : 0.0f;
  for (int i = 0; i < kBlock32; ++i) {
    q[i] = static_cast<uint8_t>(std::clamp(static_cast<int>(std::lround((x[i] - m) * inv_d)), 0, max_code));
  }
}

}  // namespace

void quantize_row_q4_1(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ4_1*>(dst);
  uint8_t q[kBlock32];
  for (size_t b = 0; b < n / kBlock32; ++b) {
    fit_min_block(src + b * kBlock32, 15, &blocks[b].d, &blocks[b].m, q);
    for (int j = 0; j < kBlock32 / 2; ++j) blocks[b].qs[j] = static_cast<uint8_t>(q[j] | (q[j + 16] << 4));
  }
}

void quantize_row_q5_1(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ5_1*>(dst);
  uint8_t q[kBlock32];
  for (size_t b = 0; b < n / kBlock32; ++b) {
    fit_min_block(src + b * kBlock32, 31, &blocks[b].d, &blocks[b].m, q);
    uint32_t qh = 0;
    for (int j = 0; j < kBlock32 / 2; ++j) {
      blocks[b].qs[j] = static_cast<uint8_t>((q[j] & 0x0f) | ((q[j + 16] & 0x0f) << 4));
      qh |= static_cast<uint32_t>(q[j] >> 4) << j;
      qh |= static_cast<uint32_t>(q[j + 16] >> 4) << (j + 16);
    }
    std::memcpy(blocks[b].qh, &qh, sizeof(qh));
  }
}

// Q4_1 / Q5_1: x = q * d + m, as the GGUF tools evaluate it.
void dequantize_row_q4_1(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ4_1*>(src);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    const float d = half_to_float(blocks[b].d), m = half_to_float(blocks[b].m);
    float* y = dst + b * kBlock32;
    for (int j = 0; j < kBlock32 / 2; ++j) {
      y[j] = (blocks[b].qs[j] & 0x0f) * d + m;
      y[j + 16] = (blocks[b].qs[j] >> 4) * d + m;
    }
  }
}

void dequantize_row_q5_1(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ5_1*>(src);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    const float d = half_to_float(blocks[b].d), m = half_to_float(blocks[b].m);
    uint32_t qh;
    std::memcpy(&qh, blocks[b].qh, sizeof(qh));
    float* y = dst + b * kBlock32;
    for (int j = 0; j < kBlock32 / 2; ++j) {
      const int lo = (blocks[b].qs[j] & 0x0f) | static_cast<int>(((qh >> j) & 1u) << 4);
      const int hi = (blocks[b].qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
      y[j] = lo * d + m;
      y[j + 16] = hi * d + m;
    }
  }
}

}  // namespace strata
