// One position of a Mamba-2 head in plain loops (kernels.h says what it computes): each state
// row is updated and read against C in one pass.
#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

void ssm_scan(float* state, const float* x, const float* B, const float* C, float decay, float dt, int n, int p,
              float* out) {
  for (int i = 0; i < p; ++i) {
    float* row = state + static_cast<size_t>(i) * n;
    const float xdt = dt * x[i];
    float read = 0.0f;
    for (int j = 0; j < n; ++j) {
      row[j] = decay * row[j] + xdt * B[j];
      read += row[j] * C[j];
    }
    out[i] = read;
  }
}

}  // namespace strata::kernels::reference
