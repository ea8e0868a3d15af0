// Scalar RMS norm: the sum of squares in double, as the GGUF reference implementation does.
#include <cmath>

#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

void rmsnorm(const float* x, const float* weight, int n, float eps, float* out) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  const float mean = static_cast<float>(sum / n);
  const float scale = 1.0f / std::sqrt(mean + eps);
  for (int i = 0; i < n; ++i) out[i] = (x[i] * scale) * weight[i];
}

}  // namespace strata::kernels::reference
