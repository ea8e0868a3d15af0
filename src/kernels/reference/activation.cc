// Scalar SwiGLU gate: silu(g) * u with silu(g) = g / (1 + e^-g).
#include <cmath>

#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

void silu_mul(float* gate, const float* up, int n) {
  for (int i = 0; i < n; ++i) {
    const float g = gate[i];
    gate[i] = g / (1.0f + std::exp(-g)) * up[i];
  }
}

}  // namespace strata::kernels::reference
