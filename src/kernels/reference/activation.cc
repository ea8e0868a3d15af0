// Scalar gates: SwiGLU silu(g) * u with silu(g) = g / (1 + e^-g), and GELU (tanh form) g * u.
#include <cmath>

#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

void silu_mul(float* gate, const float* up, int n) {
  for (int i = 0; i < n; ++i) {
    const float g = gate[i];
    gate[i] = g / (1.0f + std::exp(-g)) * up[i];
  }
}

// The tanh form of GELU, as written.
void gelu_mul(float* gate, const float* up, int n) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  for (int i = 0; i < n; ++i) {
    const float g = gate[i];
    gate[i] = 0.5f * g * (1.0f + std::tanh(kSqrt2OverPi * (g + 0.044715f * g * g * g))) * up[i];
  }
}

}  // namespace strata::kernels::reference
