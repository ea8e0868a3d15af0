// The gated delta rule, one position of one value head, in plain loops (kernels.h says what it
// computes), with one decay for the whole state or one per key. Each state row is decayed and
// read against k in one pass, then written and read against q in a second, so a row stays in L1
// between the passes.
#include "kernels/reference/reference.h"

#include <limits>

namespace strata::kernels::reference {

namespace {

// Both forms: decay_of(j) is key j's decay.
template <typename DecayOf>
void delta_rule_rows(float* state, const float* q, const float* k, const float* v, DecayOf decay_of, float beta,
                     float scale, int dk, int dv, float* out) {
  for (int i = 0; i < dv; ++i) {
    float* row = state + static_cast<size_t>(i) * dk;
    float recalled = 0.0f;
    for (int j = 0; j < dk; ++j) {
      row[j] *= decay_of(j);
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

}  // namespace

void delta_rule(float* state, const float* q, const float* k, const float* v, float decay, float beta,
                float scale, int dk, int dv, float* out) {
  delta_rule_rows(state, q, k, v, [decay](int) { return decay; }, beta, scale, dk, dv, out);
}

// The SIMD tables' bound on dk (a stack copy of the decayed keys) holds here too, so that every
// table answers a too-long row alike.
void delta_rule_keys(float* state, const float* q, const float* k, const float* v, const float* decay, float beta,
                     float scale, int dk, int dv, float* out) {
  if (dk > kMaxDeltaRuleKeys) {
    for (int i = 0; i < dv; ++i) out[i] = std::numeric_limits<float>::quiet_NaN();
    return;
  }
  delta_rule_rows(state, q, k, v, [decay](int j) { return decay[j]; }, beta, scale, dk, dv, out);
}

}  // namespace strata::kernels::reference
