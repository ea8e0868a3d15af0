// generate_model(): writes a GGUF model with deterministic random weights and a real
// vocabulary, for tests, benchmarks and the offline demo. Each weight is a pure function of
// (seed, tensor name, element index) (weight_rng.h), so the bytes never depend on thread
// count or write order. Tensors are produced and quantized while the file is written
// (GgufWriter fill callbacks), so a 1B model never sits in memory.
//
// Weights: matrices (experts, routers and qwen2moe's shared-expert gate too) uniform with
// std 1/sqrt(n_in) (activations keep their scale; routing logits vary by ~1), norm
// weights 1 +- 0.1, biases +- 0.02, the router selection bias exp_probs_b of glm4moe and
// deepseek2 +- 0.1 (a quarter of the spread of the sigmoid router outputs: it changes some expert
// choices, decides none); rope_freqs (not random) from spec_rope_factors(). deepseek2's split
// attn_k_b / attn_v_b hold the values the same seed gives attn_kv_b, rearranged (tensor_plan.h):
// in a float type the two forms are one model. Qwen3.5's delta-net layers take Mamba-2's initial
// ranges, so that every value head's state decays (model/delta_net.h: decay = exp(ssm_a *
// softplus(alpha + ssm_dt.bias))): ssm_a = -A with A uniform in [1, 16], ssm_dt.bias the inverse
// softplus of a step log-uniform in [0.001, 0.1]; their convolution taps (ssm_conv1d) are a matrix's
// (std 1/sqrt(taps)), and q, k are L2-normed by the arch, so every activation stays O(1). Granite
// 4.0-H's and Nemotron-H's Mamba-2 layers take the ranges of Strata's test models
// (model/test_model_mamba2.cc): ssm_a = -exp(u) with u uniform in [-2, 0.5], ssm_dt.bias uniform in
// [-2, 0] (decays per position of about 0.2 to 0.99), ssm_d 1 +- 0.5; their convolution taps a
// matrix's, its bias a bias's. Nemotron 3 Nano's and LFM2-MoE's exp_probs_b are glm4moe's (+- 0.1).
// LFM2's short-convolution taps are a matrix's (std 1/sqrt(taps)), so B * x through them stays O(1).
// Ling 3.0's and Kimi Linear's Kimi Delta Attention layers take the delta-net's ranges, Kimi's own
// initialisation: rates of magnitude A uniform in [1, 16] (ssm_a: Ling's A, whose decay is
// exp(-5 sigmoid(A (f + bias))); Kimi's -A, whose decay is exp(-A softplus(f + bias))), ssm_dt.bias per
// channel the inverse softplus of a step log-uniform in [0.001, 0.1], so that with decay inputs f of
// O(1) the channels keep from about a third to all of their state per position; their q, k and v
// convolution taps are a matrix's (std 1/sqrt(taps)).
// BitNet's matrices (WeightKind::kTernary) are ternary as its trained weights are: -s, 0 or +s with
// probability 1/3 each, s = sqrt(3 / (2 n_in)) rounded to the nearest f16 (the same std as other
// matrices). Every 256-element block then holds +-s (all-zero has probability 3^-256), so TQ1_0 and
// TQ2_0, which store a block's largest magnitude as an f16, decode it to exactly the F32 file's values.
// Gemma 3n's AltUp router reads its RMS-normed input divided by n_embd, so its weights are a matrix's
// times n_embd (uniform, std sqrt(n_embd)): its tanh outputs are then of about one unit and the streams
// mix visibly; its coefficient maps are +-0.2 (model/test_model_gemma3n.cc's reasoning).
// Not thread-safe to share options while running; each call owns its thread pool.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "modelgen/model_spec.h"
#include "modelgen/tensor_plan.h"
#include "tensor/dtype.h"

namespace strata {

struct GenerateOptions {
  std::string arch;             // empty: the preset's own
  std::string preset = "tiny";
  DType type = DType::kF32;
  uint32_t mix = 0;             // a file type whose mix to follow (plan_tensors: MXFP4_MOE...); 0: type's
  std::string vocab_path;       // a GGUF to copy tokenizer.* from; empty: built-in byte vocab
  uint64_t seed = 0;
  std::string out_path;
  int n_threads = 0;            // 0: hardware concurrency
  bool rope_freqs = false;      // llama: add Llama 3.1-style rope_freqs.weight (ModelSpec::rope_freqs)
  int n_layers = 0;             // > 0: overrides the preset's layer count (same shape, fewer layers;
                                // glm4moe's NextN block is written after them; set_layer_count())
  bool split_kv_b = false;      // deepseek2: attn_k_b / attn_v_b instead of attn_kv_b (ModelSpec)
};

struct GenerateReport {
  ModelSpec spec;
  TensorPlan plan;
  uint64_t n_params = 0;
  uint64_t n_bytes = 0;  // tensor data
};

// The spec and plan generate_model() would write, without writing (for dry runs and tests).
Result<GenerateReport> plan_model(const GenerateOptions& options);
Result<GenerateReport> generate_model(const GenerateOptions& options);
// Writes spec (a preset's, changed: for tests of shapes no preset has) as generate_model() would,
// in options' type, mix, vocabulary and seed; options' arch, preset, layer count, rope_freqs and
// split_kv_b are not read (spec has its own).
Result<GenerateReport> generate_model_from_spec(const ModelSpec& spec, const GenerateOptions& options);

}  // namespace strata
