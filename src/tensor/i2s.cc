#include "tensor/i2s.h"

#include <cmath>
#include <cstring>
#include <string>

#include "tensor/half.h"

namespace strata {
namespace {

// The four 2-bit fields of b in the other order (bits 7-6 <-> 1-0, 5-4 <-> 3-2).
uint8_t reverse_pairs(uint8_t b) {
  return static_cast<uint8_t>((b >> 6) | ((b >> 2) & 0x0C) | ((b << 2) & 0x30) | (b << 6));
}

}  // namespace

Status i2s_to_tq2_0(const std::byte* src, uint64_t n_elements, std::byte* dst) {
  constexpr uint64_t kBlock = 256;      // TQ2_0's elements per block
  constexpr size_t kBlockBytes = 66;    // 64 bytes of codes, then the fp16 scale
  if (n_elements % kBlock != 0) {
    return Status::Unsupported("I2_S: " + std::to_string(n_elements) + " elements are not whole blocks of 256");
  }
  float scale = 0.0f;
  std::memcpy(&scale, src + n_elements / 4, sizeof scale);
  const uint16_t half = float_to_half(scale);
  if (!std::isfinite(scale) || half_to_float(half) != scale) {
    return Status::Unsupported("I2_S: scale " + std::to_string(scale) + " is not exactly an fp16 value");
  }
  const auto* codes = reinterpret_cast<const uint8_t*>(src);
  for (uint64_t b = 0; b < n_elements / kBlock; ++b) {
    auto* out = reinterpret_cast<uint8_t*>(dst + b * kBlockBytes);
    for (size_t i = 0; i < 64; ++i) out[i] = reverse_pairs(codes[b * 64 + i]);
    std::memcpy(out + 64, &half, sizeof half);
  }
  return Status::Ok();
}

}  // namespace strata
