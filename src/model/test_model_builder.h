// Test support, private to test_model.cc and test_model_hybrid.cc: ModelBuilder, which writes
// a test model's tensors (random weights, seeded per tensor) into a GgufWriter, and the layer
// writers test_model_hybrid.cc gives test_model.cc.
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gguf/gguf_writer.h"
#include "model/test_model.h"
#include "tensor/quantize.h"

namespace strata::testing {

// One draw of `rng` as a uniform float in [lo, hi): the value std::uniform_real_distribution<float>
// (lo, hi) gives with libstdc++ (its generate_canonical divides the 32-bit draw by 2^32 and keeps a
// rounded-up 1 below 1; checked equal over 2e8 draws), so the test models' weights are unchanged,
// without the long-double logarithm generate_canonical takes on every call: clang does not fold
// it, and in the sanitized tree it took 60% of writing a test model.
inline float uniform_draw(std::mt19937& rng, float lo, float hi) {
  float u = static_cast<float>(rng()) / 4294967296.0f;
  if (u >= 1.0f) u = std::nextafter(1.0f, 0.0f);
  return u * (hi - lo) + lo;
}

// Fills `dims` (dims[0] innermost) with uniform values in [center - half_width, center + half_width],
// encoded in type. The seed is per tensor so each tensor's values do not depend on the others.
inline void add_random(GgufWriter& w, const std::string& name, DType type, std::vector<uint64_t> dims, uint32_t seed,
                float center, float half_width) {
  const uint64_t n_in = dims[0];
  const uint64_t n_rows = dims.size() > 1 ? dims[1] * (dims.size() > 2 ? dims[2] : 1) : 1;
  w.add_tensor(name, type, dims, [=](uint8_t* dst) {
    std::mt19937 rng(seed);
    const float lo = center - half_width, hi = center + half_width;
    std::vector<float> row(n_in);
    const size_t row_bytes = *dtype_row_bytes(type, n_in);
    for (uint64_t r = 0; r < n_rows; ++r) {
      for (float& x : row) x = uniform_draw(rng, lo, hi);
      Status st = quantize_row(type, row.data(), dst + r * row_bytes, n_in);
      if (!st.ok()) std::memset(dst + r * row_bytes, 0, row_bytes);
    }
  });
}

// A 1-D tensor of exactly these values, encoded in type.
inline void add_values(GgufWriter& w, const std::string& name, DType type, const std::vector<float>& values) {
  w.add_tensor(name, type, {values.size()}, [=](uint8_t* dst) {
    Status st = quantize_row(type, values.data(), dst, values.size());
    if (!st.ok()) std::memset(dst, 0, *dtype_row_bytes(type, values.size()));
  });
}

class ModelBuilder {
 public:
  explicit ModelBuilder(const TestModelSpec& spec) : s_(spec) {}

  // n_experts > 0: a 3-D expert tensor, n_experts matrices of n_out x n_in end to end.
  void matrix(const std::string& name, int n_in, int n_out, int n_experts = 0) {
    if (skipped(name)) return;
    DType type = s_.type;
    if (s_.mixed) {
      const std::vector<DType> types = all_weight_types();
      type = types[n_tensors_ % types.size()];
    }
    if (!dtype_row_bytes(type, static_cast<uint64_t>(n_in))) type = DType::kF16;
    // Uniform on [-a, a] has variance a^2 / 3; a = sqrt(3 / n_in) gives unit-variance outputs.
    std::vector<uint64_t> dims = {static_cast<uint64_t>(n_in), static_cast<uint64_t>(n_out)};
    if (n_experts > 0) dims.push_back(static_cast<uint64_t>(n_experts));
    add_random(w_, name, type, dims, next_seed(), 0.0f, std::sqrt(3.0f / static_cast<float>(n_in)));
  }
  // An F32 matrix whatever the spec's type (routers stay F32 in quantised files). Scaled to
  // give logits of a few units, so routing is decided, not a coin toss.
  void vector_matrix(const std::string& name, int n_in, int n_out) {
    if (skipped(name)) return;
    add_random(w_, name, DType::kF32, {static_cast<uint64_t>(n_in), static_cast<uint64_t>(n_out)}, next_seed(), 0.0f,
               3.0f * std::sqrt(3.0f / static_cast<float>(n_in)));
  }
  void vector(const std::string& name, int n, float center, float half_width) {
    if (skipped(name)) return;
    add_random(w_, name, DType::kF32, {static_cast<uint64_t>(n)}, next_seed(), center, half_width);
  }
  // n_rows F32 rows of n values around center (per-expert biases: 0; Command R+'s per-head norms: 1).
  void vectors(const std::string& name, int n, int n_rows, float half_width, float center = 0.0f) {
    if (skipped(name)) return;
    add_random(w_, name, DType::kF32, {static_cast<uint64_t>(n), static_cast<uint64_t>(n_rows)}, next_seed(), center,
               half_width);
  }
  // A 1-D F32 tensor of exactly these values (drawn by the caller, e.g. Qwen3.5's negative decay
  // rates); it takes a seed as the others do, so the tensors after it keep theirs.
  void values(const std::string& name, const std::vector<float>& v) {
    if (skipped(name)) return;
    next_seed();
    add_values(w_, name, DType::kF32, v);
  }
  // The same in the shape dims (Mamba-2's {1, heads}), whose product is v.size().
  void values(const std::string& name, const std::vector<float>& v, const std::vector<uint64_t>& dims) {
    if (skipped(name)) return;
    next_seed();
    w_.add_tensor(name, DType::kF32, dims, [v](uint8_t* dst) { std::memcpy(dst, v.data(), v.size() * sizeof(float)); });
  }
  GgufWriter& writer() { return w_; }

 private:
  bool skipped(const std::string& name) {
    for (const std::string& s : s_.skip_tensors) {
      if (s == name) {
        ++n_tensors_;
        return true;
      }
    }
    return false;
  }
  uint32_t next_seed() { return s_.seed * 7919u + static_cast<uint32_t>(n_tensors_++); }

  TestModelSpec s_;
  GgufWriter w_;
  int n_tensors_ = 0;
};

// Nemotron-H's test archs (test_model_mamba2.cc).
inline bool is_nemotron_h(const std::string& arch) { return arch == "nemotron_h" || arch == "nemotron_h_moe"; }
inline bool is_lfm2(const std::string& arch) { return arch == "lfm2" || arch == "lfm2moe"; }
// Granite 4.0-H's test archs (test_model_mamba2.cc).
inline bool is_granite_hybrid(const std::string& arch) {
  return arch == "granitehybrid" || arch == "granitehybrid-dense";
}

inline int head_dim(const TestModelSpec& s) { return s.head_dim != 0 ? s.head_dim : s.n_embd / s.n_head; }

// The layers written (TestModelSpec::n_layer, 0: the arch's default).
inline int layer_count(const TestModelSpec& s) {
  if (s.n_layer != 0) return s.n_layer;
  if (is_nemotron_h(s.arch)) return 5;  // every kind of layer, and Mamba-2 after attention
  return is_hybrid_arch(s.arch) || is_granite_hybrid(s.arch) || is_lfm2(s.arch) || s.arch == "gemma4" || s.arch == "gemma4-moe" || s.arch == "step35" ||
                 s.arch == "laguna" || s.arch == "mimo2" || s.arch == "deci" || s.arch == "bailingmoe3" ||
                 s.arch == "kimi-linear"
             ? 4
             : 2;
}

// Step 3.5 (test_model_step35.cc): whether a layer slides, its query heads, its keys, a layer's
// attention tensors (q/k/v, their norms, the head gate, output), and the full layers' rope_freqs.
bool step35_layer_slides(int layer);
int step35_heads(const TestModelSpec& s, int layer);
void set_step35_metadata(const TestModelSpec& s, GgufWriter& w);
void add_step35_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);
std::vector<float> step35_rope_freqs(const TestModelSpec& s);
// Laguna (test_model_step35.cc): Step 3.5's attention tensors and layer kinds with Laguna's keys.
void set_laguna_metadata(const TestModelSpec& s, GgufWriter& w);
// Nemotron (test_model_deci.cc): its per-layer counts, and one layer's tensors (attention of its
// kind, feed-forward of its width).
void set_deci_metadata(const TestModelSpec& s, GgufWriter& w);
void add_deci_layer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);
// MiMo-V2 (test_model_step35.cc): its keys and a layer's attention tensors (q/k/v with narrow value
// heads, output, the sliding layers' sinks).
void set_mimo2_metadata(const TestModelSpec& s, GgufWriter& w);
void add_mimo2_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);

// Gemma 4 (test_model_gemma4.cc): whether a layer slides, its keys (written after the common
// ones), a layer's attention tensors (q/k/v, their norms, output) and layer_output_scale, and the
// full layers' rope_freqs; gemma4-moe's feed-forward (the dense one with experts beside it).
bool gemma4_layer_slides(const TestModelSpec& s, int layer);
void set_gemma4_metadata(const TestModelSpec& s, GgufWriter& w);
void add_gemma4_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);
std::vector<float> gemma4_rope_freqs(const TestModelSpec& s);
void add_gemma4_moe_ffn(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix);
// The feed-forward width of a gemma4 layer (double_wide_shared's shared layers: twice n_ff), and
// the per-layer input tables (after every other tensor).
int gemma4_ffn_width(const TestModelSpec& s, int layer);
void add_gemma4_per_layer_tables(ModelBuilder& b, const TestModelSpec& s);
// Gemma 3n (test_model_gemma3n.cc): its keys (after the common ones), a layer's tensors, and the
// tables after the layers (AltUp's stream maps, the per-layer inputs').
void set_gemma3n_metadata(const TestModelSpec& s, GgufWriter& w);
void add_gemma3n_layer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix);
void add_gemma3n_tables(ModelBuilder& b, const TestModelSpec& s);

// Qwen3.5's keys (qwen35, qwen35moe): the attention interval, the delta-net shapes and the
// rope dims; the experts' are written with every MoE arch's.
void set_hybrid_metadata(const TestModelSpec& s, GgufWriter& w);

// Layer `layer`'s attention part in a hybrid model: a gated delta-net layer, or every
// full_attn_interval-th layer gated attention with QK-norm.
void add_hybrid_mixer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);

// Granite 4.0-H (test_model_mamba2.cc: granitehybrid, granitehybrid-dense): whether a layer
// attends, its keys (the per-layer K/V heads, the Mamba-2 shapes, no rope, Granite's multipliers),
// and a layer's attention part (plain q/k/v/output, or a Mamba-2 layer).
bool granite_hybrid_attends(const TestModelSpec& s, int layer);
void set_granite_hybrid_metadata(const TestModelSpec& s, GgufWriter& w);
void add_granite_hybrid_mixer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);
// LFM2 (test_model_mamba2.cc): whether a layer attends, its keys, a layer's attention part.
bool lfm2_attends(int layer);
void set_lfm2_metadata(const TestModelSpec& s, GgufWriter& w);
void set_falcon_h1_metadata(const TestModelSpec& s, GgufWriter& w);
// The latent archs' specs as llama.cpp's converters write them (test_model_mla.cc): mistral4 in the
// split form with its experts as one ffn_gate_up_exps, glm-dsa split, kimi-linear split with one
// attn_q; other specs as they are.
TestModelSpec latent_converter_form(TestModelSpec s);
void set_deepseek2_metadata(const TestModelSpec& s, GgufWriter& w);
void add_mla_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& p);
void add_falcon_h1_layer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);
void add_lfm2_mixer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);
// Ling 3.0 and Kimi Linear (test_model_kda.cc): their keys after deepseek2's (per-layer K/V heads, 0
// in the KDA layers; the KDA shapes; Ling's gate keys, SwiGLU limits, NextN block and 2 of 4 expert
// groups), and a layer's attention part (KDA, or every full_attn_interval-th layer latent attention,
// Ling's with attn_gate).
void set_bailingmoe3_metadata(const TestModelSpec& s, GgufWriter& w);
void set_kimi_linear_metadata(const TestModelSpec& s, GgufWriter& w);
void add_kda_mixer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);
// Nemotron-H (test_model_mamba2.cc): a layer's kind ('M' Mamba-2, 'A' attention, 'F' feed-forward),
// its keys (per-layer K/V heads and widths, the Mamba-2 shapes), and a layer's tensors.
char nemotron_h_kind(int layer);
void set_nemotron_h_metadata(const TestModelSpec& s, GgufWriter& w);
void add_nemotron_h_layer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer);

}  // namespace strata::testing
