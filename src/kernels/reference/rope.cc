// Rotary position embedding, with per-pair frequency factors, linear position scaling and
// YaRN as the GGUF rope_freqs tensor and rope.scaling.* metadata describe them. Each
// pair's angle is computed directly from its index (not by repeated multiplication), in
// double, then rounded once.
#include <algorithm>
#include <cmath>

#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Pair index at which the rotation speed makes n_turns turns over the original context.
double yarn_corr_dim(int n_rot, int orig_ctx, float n_turns, float base) {
  return n_rot * std::log(orig_ctx / (n_turns * 2.0 * kPi)) / (2.0 * std::log(static_cast<double>(base)));
}

struct Yarn {
  bool on = false;
  double low = 0.0, high = 0.0;  // ramp between these pair indices
  double mscale = 1.0;           // magnitude correction for the extended context
};

Yarn yarn_setup(const RopeParams& p) {
  Yarn y;
  y.mscale = p.yarn_attn_factor;
  if (p.yarn_ext_factor == 0.0f || p.yarn_orig_ctx <= 0) return y;
  y.on = true;
  y.low = std::max(0.0, std::floor(yarn_corr_dim(p.n_rot, p.yarn_orig_ctx, p.yarn_beta_fast, p.freq_base)));
  y.high = std::min(p.n_rot - 1.0, std::ceil(yarn_corr_dim(p.n_rot, p.yarn_orig_ctx, p.yarn_beta_slow, p.freq_base)));
  if (p.freq_scale > 0.0f) y.mscale *= 1.0 + 0.1 * std::log(1.0 / p.freq_scale);
  return y;
}

// Angle and magnitude for pair i (dims 2i, 2i+1 of the rotated part) at position pos.
void pair_rotation(const RopeParams& p, const Yarn& y, int pos, int i, double* theta, double* mag) {
  double extrap = pos * std::pow(static_cast<double>(p.freq_base), -2.0 * i / p.n_rot);
  if (p.freq_factors != nullptr) extrap /= p.freq_factors[i];
  const double interp = p.freq_scale * extrap;
  *theta = interp;
  *mag = y.mscale;
  if (y.on) {
    const double t = (i - y.low) / std::max(0.001, y.high - y.low);
    const double ramp = (1.0 - std::clamp(t, 0.0, 1.0)) * p.yarn_ext_factor;
    *theta = interp * (1.0 - ramp) + extrap * ramp;
  }
}

}  // namespace

void rope(float* x, int n_heads, int pos, const RopeParams& p) {
  const Yarn y = yarn_setup(p);
  const int half_rot = p.n_rot / 2;
  for (int i = 0; i < half_rot; ++i) {
    double theta, mag;
    pair_rotation(p, y, p.pos0_pairs != nullptr && p.pos0_pairs[i] ? 0 : pos, i, &theta, &mag);
    const float c = static_cast<float>(std::cos(theta) * mag);
    const float s = static_cast<float>(std::sin(theta) * mag);
    const int i0 = p.neox ? i : 2 * i;
    const int i1 = p.neox ? i + half_rot : 2 * i + 1;
    for (int h = 0; h < n_heads; ++h) {
      float* head = x + static_cast<int64_t>(h) * p.head_dim;
      const float a = head[i0], b = head[i1];
      head[i0] = a * c - b * s;
      head[i1] = a * s + b * c;
    }
  }
}

}  // namespace strata::kernels::reference
