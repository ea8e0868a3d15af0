// MXFP4 (GGUF type 39, OCP microscaling FP4 as ggml stores it; gpt-oss's expert tensors): the
// 16 levels a 4-bit code selects and the block scale its E8M0 exponent byte stands for. Facts
// of the format, as constants; the block layout is BlockMXFP4 (block_layouts.h).
//
// An element is an E2M1 value (0, 0.5, 1, 1.5, 2, 3, 4, 6, sign in bit 3) times 2^(e - 127).
// ggml keeps the E2M1 values doubled, as integers, and halves the scale instead:
// x = kMxfp4Values[code] * mxfp4_scale(e), mxfp4_scale(e) = 2^(e - 128). Every such product is
// exact in float unless it overflows.
//
// e = 255 is NaN in the OCP specification; here, as in ggml, it is the scale 2^127 (so every
// byte decodes as ggml decodes it, and a level of 2 or more overflows to +-Inf). The encoder
// never writes it (quantize_iq4.cc: e <= 252 for finite input).
//
// `static` functions (internal linkage): this header is included by files built with SIMD
// flags too (see kernels/quant_blocks.h on mixed-ISA objects).
#pragma once

#include <bit>
#include <cstdint>

namespace strata {

inline constexpr int8_t kMxfp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// 2^(e - 128) as a float: normal for e >= 2 (bits (e - 1) << 23), subnormal below it (e = 1:
// 2^-127, bits 0x00400000; e = 0: 2^-128, bits 0x00200000).
static constexpr float mxfp4_scale(uint8_t e) {
  const uint32_t bits = e >= 2 ? static_cast<uint32_t>(e - 1) << 23 : 0x00200000u << e;
  return std::bit_cast<float>(bits);
}

}  // namespace strata
