#include "modelgen/rope_factors.h"

#include <algorithm>
#include <cmath>

namespace strata {

std::vector<float> llama3_rope_factors(int n_rot, float freq_base, const Llama3RopeScaling& s) {
  constexpr double kTwoPi = 6.28318530717958647692;
  std::vector<float> factors(n_rot >= 2 ? static_cast<size_t>(n_rot / 2) : 0);
  const double short_wavelen = s.orig_ctx / static_cast<double>(s.high_freq_factor);
  const double long_wavelen = s.orig_ctx / static_cast<double>(s.low_freq_factor);
  for (size_t i = 0; i < factors.size(); ++i) {
    const double wavelen = kTwoPi * std::pow(static_cast<double>(freq_base), 2.0 * static_cast<double>(i) / n_rot);
    double factor = 1.0;
    if (wavelen > long_wavelen) {
      factor = s.factor;
    } else if (wavelen >= short_wavelen && s.high_freq_factor > s.low_freq_factor) {
      // The slowed frequency is freq times a blend of 1 / factor and 1 (weight `smooth` on
      // 1); the angle's divisor is that blend's inverse.
      const double smooth = (s.orig_ctx / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
      factor = 1.0 / ((1.0 - smooth) / s.factor + smooth);
    }
    factors[i] = static_cast<float>(factor);
  }
  return factors;
}

std::vector<float> spec_rope_factors(const ModelSpec& spec) {
  if (spec.gemma4) {  // the converter's "proportional" rope: the first quarter of the pairs turn
    std::vector<float> factors(static_cast<size_t>(spec.head_dim_full / 2), 1e30f);
    std::fill_n(factors.begin(), factors.size() / 4, 1.0f);
    return factors;
  }
  if (spec.step35) {  // the full layers' half-head rope, padded with 1s to half a head
    Llama3RopeScaling s;
    s.factor = 2.0f;
    s.high_freq_factor = 32.0f;
    s.orig_ctx = std::min(131072, spec.n_ctx / 2);
    std::vector<float> factors = llama3_rope_factors(spec.head_dim / 2, spec.rope_freq_base, s);
    factors.resize(static_cast<size_t>(spec.head_dim / 2), 1.0f);
    return factors;
  }
  if (spec.rope_freqs_factor > 0.0f) {  // EXAONE 4.0's llama3 rope_scaling, over every dim of a head
    Llama3RopeScaling s;
    s.factor = spec.rope_freqs_factor;
    s.orig_ctx = spec.rope_freqs_orig_ctx;
    return llama3_rope_factors(spec.head_dim, spec.rope_freq_base, s);
  }
  if (!spec.rope_freqs) return {};
  Llama3RopeScaling s;
  s.orig_ctx = spec.n_ctx;
  return llama3_rope_factors(spec.head_dim, spec.rope_freq_base, s);
}

}  // namespace strata
