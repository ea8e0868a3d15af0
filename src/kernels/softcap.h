// Gemma 2's soft-capping of attention scores and output logits: cap * tanh(x / cap), squashing
// x into (-cap, cap). One scalar function in float, these operations in this order, used by
// every attention path (the SIMD tables, their oracle, the reference table) and the output
// logits, so a score gets the same bits whichever path computes it. Pure.
#pragma once

#include <cmath>

namespace strata::kernels {

inline float softcap(float x, float cap) { return cap * std::tanh(x / cap); }

}  // namespace strata::kernels
