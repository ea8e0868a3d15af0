// Llama 3.1-style rope frequency factors (the rope_freqs.weight tensor): pair i's rotation
// angle is divided by factor i. Pairs that turn fast (wavelength short against the
// original context) keep factor 1, slow ones get the full factor, and a smooth ramp in
// wavelength joins them. Pure functions of their arguments; thread-safe.
#pragma once

#include <vector>

#include "modelgen/model_spec.h"

namespace strata {

struct Llama3RopeScaling {
  float factor = 8.0f;            // slow pairs turn this much slower
  float low_freq_factor = 1.0f;   // wavelengths above orig_ctx / low_freq_factor get `factor`
  float high_freq_factor = 4.0f;  // wavelengths below orig_ctx / high_freq_factor keep 1
  int orig_ctx = 8192;            // the context the model was first trained for
};

// n_rot / 2 factors for a rope of n_rot dims with the given base (pair i turns at
// base^(-2i / n_rot) radians per position). Empty when n_rot < 2.
std::vector<float> llama3_rope_factors(int n_rot, float freq_base, const Llama3RopeScaling& s);

// The rope_freqs.weight generate_model() writes for spec: Gemma 4's full layers' (1 for the first
// quarter of their pairs, 1e30 for the others, as llama.cpp's converter writes its proportional
// rope); Step 3.5's full layers' (model_spec.h); EXAONE 4.0's (spec.rope_freqs_factor over
// rope_freqs_orig_ctx, over head_dim dims); empty unless spec.rope_freqs, else the default scaling over
// head_dim dims with spec.n_ctx as the original context.
std::vector<float> spec_rope_factors(const ModelSpec& spec);

}  // namespace strata
