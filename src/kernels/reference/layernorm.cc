// Scalar layer norm (Cohere's, without a bias): mean and variance in double, as rmsnorm sums.
#include <cmath>

#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

void layernorm(const float* x, const float* weight, int n, float eps, float* out) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += x[i];
  const double mean = sum / n;
  double sq = 0.0;
  for (int i = 0; i < n; ++i) sq += (x[i] - mean) * (x[i] - mean);
  const float mean_f = static_cast<float>(mean);
  const float scale = 1.0f / std::sqrt(static_cast<float>(sq / n) + eps);
  for (int i = 0; i < n; ++i) out[i] = ((x[i] - mean_f) * scale) * weight[i];
}

}  // namespace strata::kernels::reference
