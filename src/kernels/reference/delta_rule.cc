// The gated delta rule, one position of one value head, in plain loops (kernels.h says what it
// computes). Each state row is decayed and read against k in one pass, then written and read
// against q in a second, so a row stays in L1 between the passes.
#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

void delta_rule(float* state, const float* q, const float* k, const float* v, float decay, float beta,
                float scale, int dk, int dv, float* out) {
  for (int i = 0; i < dv; ++i) {
    float* row = state + static_cast<size_t>(i) * dk;
    float recalled = 0.0f;
    for (int j = 0; j < dk; ++j) {
      row[j] *= decay;
      recalled += row[j] * k[j];
    }
    const float delta = beta * (v[i] - recalled);
    float read = 0.0f;
    for (int j = 0; j < dk; ++j) {
      row[j] += delta * k[j];
      read += row[j] * q[j];
    }
    out[i] = read * scale;
  }
}

}  // namespace strata::kernels::reference
