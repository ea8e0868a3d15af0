// Scalar decoding of every weight type matmul supports, straight from the GGUF block
// layouts. The float expressions (d * sc first, then * q, then - m) follow the order
// the GGUF tools use, so results match other decoders bit-for-bit.
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/reference/reference.h"
#include "tensor/quantize.h"

namespace strata::kernels::reference {

namespace {

void dequantize_q8_0(const BlockQ8_0* b, int64_t n_blocks, float* out) {
  for (int64_t k = 0; k < n_blocks; ++k, out += kQK) {
    const float d = fp16_to_fp32(b[k].d);
    for (int i = 0; i < kQK; ++i) out[i] = b[k].qs[i] * d;
  }
}

void dequantize_q4_0(const BlockQ4_0* b, int64_t n_blocks, float* out) {
  for (int64_t k = 0; k < n_blocks; ++k, out += kQK) {
    const float d = fp16_to_fp32(b[k].d);
    for (int j = 0; j < kQK / 2; ++j) {
      out[j] = ((b[k].qs[j] & 0x0f) - 8) * d;
      out[j + 16] = ((b[k].qs[j] >> 4) - 8) * d;
    }
  }
}

void dequantize_q5_0(const BlockQ5_0* b, int64_t n_blocks, float* out) {
  for (int64_t k = 0; k < n_blocks; ++k, out += kQK) {
    const float d = fp16_to_fp32(b[k].d);
    uint32_t qh;
    std::memcpy(&qh, b[k].qh, sizeof qh);
    for (int j = 0; j < kQK / 2; ++j) {
      const int hi0 = static_cast<int>((qh >> j) & 1u) << 4;
      const int hi1 = static_cast<int>((qh >> (j + 16)) & 1u) << 4;
      out[j] = (((b[k].qs[j] & 0x0f) | hi0) - 16) * d;
      out[j + 16] = (((b[k].qs[j] >> 4) | hi1) - 16) * d;
    }
  }
}

// Q4_K and Q5_K share the sub-block scheme: each 64-element chunk c uses sub-blocks 2c
// (low nibbles) and 2c+1 (high nibbles) of 32 bytes of qs; Q5_K's 5th bit of element l of
// chunk c lives in bit 2c (low half) or 2c+1 (high half) of qh[l].
template <typename Block, bool kHasHigh>
void dequantize_k4(const Block* b, int64_t n_blocks, float* out) {
  for (int64_t k = 0; k < n_blocks; ++k) {
    const float d = fp16_to_fp32(b[k].d);
    const float dmin = fp16_to_fp32(b[k].dmin);
    const uint8_t* q = b[k].qs;
    for (int c = 0; c < 4; ++c, q += 32) {
      uint8_t sc0, m0, sc1, m1;
      k_scale_min(b[k].scales, 2 * c, &sc0, &m0);
      k_scale_min(b[k].scales, 2 * c + 1, &sc1, &m1);
      const float d1 = d * sc0, min1 = dmin * m0;
      const float d2 = d * sc1, min2 = dmin * m1;
      for (int l = 0; l < 32; ++l) {
        int lo = q[l] & 0x0f, hi = q[l] >> 4;
        if constexpr (kHasHigh) {
          lo |= ((b[k].qh[l] >> (2 * c)) & 1) << 4;
          hi |= ((b[k].qh[l] >> (2 * c + 1)) & 1) << 4;
        }
        out[l] = d1 * lo - min1;
        out[l + 32] = d2 * hi - min2;
      }
      out += 64;
    }
  }
}

void dequantize_q6_k(const BlockQ6_K* b, int64_t n_blocks, float* out) {
  for (int64_t k = 0; k < n_blocks; ++k) {
    const float d = fp16_to_fp32(b[k].d);
    const uint8_t* ql = b[k].ql;
    const uint8_t* qh = b[k].qh;
    const int8_t* sc = b[k].scales;
    for (int half = 0; half < 2; ++half, ql += 64, qh += 32, sc += 8, out += 128) {
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int q1 = ((ql[l] & 0x0f) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int q2 = ((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        out[l] = d * sc[is] * q1;
        out[l + 32] = d * sc[is + 2] * q2;
        out[l + 64] = d * sc[is + 4] * q3;
        out[l + 96] = d * sc[is + 6] * q4;
      }
    }
  }
}

}  // namespace

bool dequantize(DType type, const void* src, int64_t n, float* out) {
  switch (type) {
    case DType::kF32:
      std::memcpy(out, src, static_cast<size_t>(n) * sizeof(float));
      return true;
    case DType::kF16: {
      const auto* h = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) out[i] = fp16_to_fp32(h[i]);
      return true;
    }
    case DType::kBF16: {
      const auto* h = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) out[i] = bf16_to_fp32(h[i]);
      return true;
    }
    case DType::kQ8_0: dequantize_q8_0(static_cast<const BlockQ8_0*>(src), n / kQK, out); return true;
    case DType::kQ4_0: dequantize_q4_0(static_cast<const BlockQ4_0*>(src), n / kQK, out); return true;
    case DType::kQ5_0: dequantize_q5_0(static_cast<const BlockQ5_0*>(src), n / kQK, out); return true;
    case DType::kQ4_K:
      dequantize_k4<BlockQ4_K, false>(static_cast<const BlockQ4_K*>(src), n / kQKK, out);
      return true;
    case DType::kQ5_K:
      dequantize_k4<BlockQ5_K, true>(static_cast<const BlockQ5_K*>(src), n / kQKK, out);
      return true;
    case DType::kQ6_K: dequantize_q6_k(static_cast<const BlockQ6_K*>(src), n / kQKK, out); return true;
    default:
      // The other GGUF types (Q2_K, Q3_K, Q4_1, Q5_1, the i-quants) have one decoder, the
      // tensor module's.
      return strata::can_dequantize(type) && strata::dequantize_row(type, src, out, static_cast<size_t>(n)).ok();
  }
}

}  // namespace strata::kernels::reference
