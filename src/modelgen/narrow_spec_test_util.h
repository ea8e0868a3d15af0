// For tests that generate models: a preset's spec narrowed to a file of a few MiB.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "modelgen/model_spec.h"

namespace strata {

// model_preset(arch, preset) with n_layer layers of 256 (2 heads of 128 over one K/V head, a
// feed-forward of 512) over the built-in byte vocabulary; the rest (rope, layer kinds, gate) the
// preset's. A bad preset fails the test and gives the default spec.
inline ModelSpec narrowed_preset(const std::string& arch, const std::string& preset, int n_layer) {
  auto s = model_preset(arch, preset);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  ModelSpec spec = s.ok() ? *s : ModelSpec{};
  set_layer_count(&spec, n_layer);
  spec.n_vocab = 259;
  spec.n_embd = 256;
  spec.n_head = 2;
  spec.n_head_kv = 1;
  spec.head_dim = 128;
  spec.n_ff = 512;
  return spec;
}

}  // namespace strata
