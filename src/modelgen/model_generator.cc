#include "modelgen/model_generator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "gguf/gguf_writer.h"
#include "modelgen/layer_keys.h"
#include "modelgen/rope_factors.h"
#include "modelgen/vocab_source.h"
#include "modelgen/weight_rng.h"
#include "tensor/half.h"
#include "tensor/quantize.h"

namespace strata {

namespace {

// The exp_probs_b of glm4moe's and deepseek2's sigmoid routing: uniform in +-0.1 (std 0.06), a
// quarter of the spread of the sigmoid router outputs it is added to (std ~0.2 for logits of std
// ~1): it changes about a fifth of moe-tiny's top-2-of-8 choices, a third of GLM-4.5-Air's
// top-8-of-128 and two fifths of DeepSeek-V3's top-8-of-256, and decides none (+-0.2 would change
// half of GLM-4.5-Air's).
constexpr float kSelectionBiasHalfWidth = 0.1f;

// Mamba-2's initial ranges for a delta-net layer's decay (model_generator.h): A in [1, 16], and a
// time step in [0.001, 0.1] before the input's own alpha is added. Kimi Delta Attention's (Ling 3.0's and
// Kimi Linear's) take the same: Kimi's A_log is log of A uniform in [1, 16], its dt_bias Mamba's.
constexpr float kSsmAMin = 1.0f, kSsmAMax = 16.0f;
constexpr float kSsmDtMin = 0.001f, kSsmDtMax = 0.1f;

// A Mamba-2 layer's (model_generator.h): A = exp(u) with u in [-2, 0.5] and time-step biases in
// [-2, 0], with the input's own dt added, give per-position decays exp(-A softplus(dt)) from about
// 0.2 to 0.99, so states neither vanish at once nor grow; skip weights 1 +- 0.5.
constexpr float kMamba2LogAMin = -2.0f, kMamba2LogAMax = 0.5f;
constexpr float kMamba2DtBiasMin = -2.0f;
constexpr float kMamba2DHalfWidth = 0.5f;

// Gemma 3n's AltUp coefficient maps (model_generator.h): +-0.2, so that each stream's prediction and
// correction stay near the identity and the four streams of the embedding's size.
constexpr float kAltupCoefHalfWidth = 0.2f;

// softplus(b) = dt for dt log-uniform in [kSsmDtMin, kSsmDtMax].
float ssm_dt_bias(float u) {
  const float dt = kSsmDtMin * std::pow(kSsmDtMax / kSsmDtMin, u);
  return std::log(std::expm1(dt));
}

float weight_value(const WeightRng& rng, WeightKind kind, uint64_t i, float matrix_half_width) {
  switch (kind) {
    case WeightKind::kSsmA: return -(kSsmAMin + (kSsmAMax - kSsmAMin) * rng.uniform(i));
    case WeightKind::kKdaRate: return kSsmAMin + (kSsmAMax - kSsmAMin) * rng.uniform(i);
    case WeightKind::kSsmDtBias: return ssm_dt_bias(rng.uniform(i));
    case WeightKind::kMamba2A: return -std::exp(kMamba2LogAMin + (kMamba2LogAMax - kMamba2LogAMin) * rng.uniform(i));
    case WeightKind::kMamba2DtBias: return kMamba2DtBiasMin * rng.uniform(i);
    case WeightKind::kMamba2D: return 1.0f + rng.symmetric(i, kMamba2DHalfWidth);
    case WeightKind::kNorm: return 1.0f + rng.symmetric(i, 0.1f);
    case WeightKind::kLayerScale: return 0.6f + rng.symmetric(i, 0.3f);
    // matrix_half_width is sqrt(3 / n) for a vector of n.
    case WeightKind::kUnscaledQNorm: return (1.0f + rng.symmetric(i, 0.1f)) * matrix_half_width / std::sqrt(3.0f);
    case WeightKind::kRouterScale: return (1.0f + rng.symmetric(i, 0.1f)) * std::sqrt(3.0f) / matrix_half_width;
    // sqrt(3 n_in): a matrix's spread times n_in (model_generator.h).
    case WeightKind::kAltupRouter: return rng.symmetric(i, 3.0f / matrix_half_width);
    case WeightKind::kAltupCoef: return rng.symmetric(i, kAltupCoefHalfWidth);
    case WeightKind::kBias: return rng.symmetric(i, 0.02f);
    case WeightKind::kOssBias: return rng.symmetric(i, 0.5f);
    case WeightKind::kSink: return rng.symmetric(i, 2.0f);
    case WeightKind::kSelectionBias: return rng.symmetric(i, kSelectionBiasHalfWidth);
    default: return rng.symmetric(i, matrix_half_width);
  }
}

// BitNet's ternary scale for rows of n_in (model_generator.h): (2/3) s^2 = 1 / n_in, as an f16 value, so
// that TQ1_0 / TQ2_0 store it exactly.
float ternary_scale(uint64_t n_in) {
  return half_to_float(float_to_half(std::sqrt(1.5f / static_cast<float>(n_in))));
}

// Where a tensor's elements come from: its own (seed, name) stream, matrices uniform with std
// 1/sqrt(n_in) (BitNet's ternary with that std); or, for deepseek2's split attn_k_b / attn_v_b, the
// elements of attn_kv_b (t.source, source_head_rows rows per head: keys, then values) they were cut from.
class ElementSource {
 public:
  ElementSource(const PlannedTensor& t, uint64_t seed)
      : t_(t),
        rng_(seed, t.source.empty() ? t.name : t.source),
        source_n_in_(t.kind == WeightKind::kKvBKeys ? t.dims[1] : t.dims[0]),
        half_width_(std::sqrt(3.0f / static_cast<float>(source_n_in_))),
        ternary_scale_(ternary_scale(source_n_in_)) {}

  // Element c of row r (rows n_in = dims[0] wide; row r of a 3-D tensor is in matrix r / dims[1]).
  float at(uint64_t r, uint64_t c) const {
    if (t_.kind == WeightKind::kKvBKeys) {  // [qk_nope, kv_lora, n_head]: row (h, j), column i
      const uint64_t head = r / t_.dims[1], latent = r % t_.dims[1];
      return from_source((head * t_.source_head_rows + c) * source_n_in_ + latent);
    }
    if (t_.kind == WeightKind::kKvBValues) {  // [kv_lora, v, n_head]: row (h, d), column j
      const uint64_t head = r / t_.dims[1], v_row = t_.source_head_rows - t_.dims[1] + r % t_.dims[1];
      return from_source((head * t_.source_head_rows + v_row) * source_n_in_ + c);
    }
    if (t_.kind == WeightKind::kTernary) {  // thirds of [0, 1): -s, 0, +s
      const float u = rng_.uniform(r * t_.dims[0] + c) * 3.0f;
      return u < 1.0f ? -ternary_scale_ : u < 2.0f ? 0.0f : ternary_scale_;
    }
    return weight_value(rng_, t_.kind, r * t_.dims[0] + c, half_width_);
  }

 private:
  float from_source(uint64_t i) const { return weight_value(rng_, WeightKind::kMatrix, i, half_width_); }

  const PlannedTensor& t_;
  WeightRng rng_;
  uint64_t source_n_in_;
  float half_width_;
  float ternary_scale_;
};

// Fills dst with tensor t in its type, rows spread over the pool. quantize_row cannot fail
// for a planned tensor (its type and width were checked); a failure is still recorded.
void fill_tensor(const PlannedTensor& t, uint64_t seed, ThreadPool& pool, uint8_t* dst, std::atomic<bool>* failed) {
  const uint64_t n_in = t.dims[0];
  uint64_t n_rows = 1;  // a 3-D expert tensor is n_expert * n_out rows
  for (size_t d = 1; d < t.dims.size(); ++d) n_rows *= t.dims[d];
  const size_t row_bytes = *dtype_row_bytes(t.type, n_in);
  const ElementSource source(t, seed);
  const uint64_t rows_per_task = std::max<uint64_t>(1, n_rows / (static_cast<uint64_t>(pool.size()) * 16));
  const int n_tasks = static_cast<int>((n_rows + rows_per_task - 1) / rows_per_task);
  std::vector<std::vector<float>> scratch(pool.size(), std::vector<float>(n_in));
  pool.parallel_for(n_tasks, [&](int task, int thread) {
    float* x = scratch[thread].data();
    uint64_t end = std::min(n_rows, (task + 1) * rows_per_task);
    for (uint64_t r = task * rows_per_task; r < end; ++r) {
      for (uint64_t c = 0; c < n_in; ++c) x[c] = source.at(r, c);
      if (!quantize_row(t.type, x, dst + r * row_bytes, n_in).ok()) failed->store(true);
    }
  });
}

// key_length / value_length where llama.cpp's converter writes them. LFM2's, OLMo 2's and OLMoE's configs
// have no head_dim, so their converter writes none where heads fill n_embd (EXAONE 4.0's have one);
// Falcon-H1's and Arcee's converters write theirs always (deepseek2's are its own).
void set_head_width_keys(GgufWriter& w, const ModelSpec& s) {
  const bool head_dim_in_config = !s.lfm2 && !s.olmo2 && s.arch != "olmoe";
  const bool always = s.glm4moe || s.falcon_h1 || s.arch == "arcee";
  if (s.deepseek2 || !((s.qk_norm && head_dim_in_config) || always || s.head_dim * s.n_head != s.n_embd)) return;
  w.set(s.arch + ".attention.key_length", GgufValue::U32(static_cast<uint32_t>(s.head_dim)));
  w.set(s.arch + ".attention.value_length", GgufValue::U32(static_cast<uint32_t>(s.head_dim)));
}

void set_hparams(GgufWriter& w, const ModelSpec& s, const TensorPlan& plan, uint64_t seed) {
  const std::string& a = s.arch;
  w.set("general.architecture", GgufValue::String(a));
  w.set("general.name", GgufValue::String("strata-mkmodel-" + a + "-" + s.preset));
  w.set("general.description",
        GgufValue::String("random weights generated by strata mkmodel (seed " + std::to_string(seed) +
                          "); its output is meaningless"));
  w.set("general.file_type", GgufValue::U32(plan.file_type));
  w.set("general.quantization_version", GgufValue::U32(2));
  w.set(a + ".vocab_size", GgufValue::U32(static_cast<uint32_t>(s.n_vocab)));
  w.set(a + ".context_length", GgufValue::U32(static_cast<uint32_t>(s.n_ctx)));
  w.set(a + ".embedding_length", GgufValue::U32(static_cast<uint32_t>(s.n_embd)));
  w.set(a + ".block_count", GgufValue::U32(static_cast<uint32_t>(block_count(s))));
  w.set(a + ".feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff)));
  w.set(a + ".attention.head_count", GgufValue::U32(static_cast<uint32_t>(s.n_head)));
  w.set(a + ".attention.head_count_kv", GgufValue::U32(static_cast<uint32_t>(head_count_kv(s))));
  w.set(a + ".attention.layer_norm_rms_epsilon", GgufValue::F32(s.rms_eps));
  w.set(a + ".rope.freq_base", GgufValue::F32(s.rope_freq_base));
  // GLM, MiniMax-M2 / M3 and Laguna's full layers rotate the first half of each head
  // (partial_rotary_factor 0.5; MiniMax's rotary_dim 64 of 128), Qwen3.5 a quarter (64 of 256),
  // DeepSeek the last rope_dim.
  int rotated =
      s.deepseek2 || s.mimo2                                                     ? s.rope_dim
      : s.glm4moe || s.glm4 || s.minimax_m2 || s.minimax_m3 || s.laguna ? s.head_dim / 2
                                                                             : s.head_dim;
  if (s.full_attn_interval > 0) rotated = s.head_dim / 4;
  // Falcon-H1's converter (Mamba-2's) writes none: llama.cpp and Strata rotate whole heads then.
  if (!s.falcon_h1) w.set(a + ".rope.dimension_count", GgufValue::U32(static_cast<uint32_t>(rotated)));
  if (s.rope_linear_factor != 1.0f) {
    w.set(a + ".rope.scaling.type", GgufValue::String("linear"));
    w.set(a + ".rope.scaling.factor", GgufValue::F32(s.rope_linear_factor));
  }
  if (s.rope_yarn_factor != 1.0f) {
    w.set(a + ".rope.scaling.type", GgufValue::String("yarn"));
    w.set(a + ".rope.scaling.factor", GgufValue::F32(s.rope_yarn_factor));
    const int orig_ctx = s.rope_yarn_orig_ctx > 0
                             ? s.rope_yarn_orig_ctx
                             : std::max(1, static_cast<int>(static_cast<float>(s.n_ctx) / s.rope_yarn_factor));
    w.set(a + ".rope.scaling.original_context_length", GgufValue::U32(static_cast<uint32_t>(orig_ctx)));
  }
  if (s.mistral3) {  // Ministral 3's, as llama.cpp's converter writes them
    w.set(a + ".rope.scaling.yarn_log_multiplier", GgufValue::F32(s.rope_yarn_log_mul));
    w.set(a + ".rope.scaling.yarn_beta_fast", GgufValue::F32(32.0f));
    w.set(a + ".rope.scaling.yarn_beta_slow", GgufValue::F32(1.0f));
    if (s.attn_temp_scale != 0.0f) w.set(a + ".attention.temperature_scale", GgufValue::F32(s.attn_temp_scale));
  }
  if (s.cohere2) {  // Command R7B's, as llama.cpp's converter writes them
    w.set(a + ".attention.layer_norm_epsilon", GgufValue::F32(s.rms_eps));
    w.set(a + ".logit_scale", GgufValue::F32(0.25f));
  }
  if (s.gemma2) {  // Gemma 2's caps, as its converted files carry them
    w.set(a + ".attn_logit_softcapping", GgufValue::F32(50.0f));
    w.set(a + ".final_logit_softcapping", GgufValue::F32(30.0f));
  }
  if (s.sliding_window > 0 || s.phi3) {
    w.set(a + ".attention.sliding_window", GgufValue::U32(static_cast<uint32_t>(s.sliding_window)));
  }
  set_head_width_keys(w, s);
}

// Qwen3.5's, as llama.cpp's converter writes them: the attention interval, the delta-net shapes,
// and the multimodal rope's sections over the rotated pairs (temporal, height, width: Qwen3.5's
// [11, 11, 10] of 32 pairs, scaled to this head), which text-only inference ignores.
void set_hybrid_hparams(GgufWriter& w, const ModelSpec& s) {
  if (s.full_attn_interval == 0) return;
  const std::string& a = s.arch;
  auto u32 = [](int v) { return GgufValue::U32(static_cast<uint32_t>(v)); };
  w.set(a + ".full_attention_interval", u32(s.full_attn_interval));
  w.set(a + ".ssm.conv_kernel", u32(s.ssm_conv_kernel));
  w.set(a + ".ssm.state_size", u32(s.ssm_head_k_dim));
  w.set(a + ".ssm.group_count", u32(s.ssm_n_k_heads));
  w.set(a + ".ssm.time_step_rank", u32(s.ssm_n_v_heads));
  w.set(a + ".ssm.inner_size", u32(s.ssm_n_v_heads * s.ssm_head_v_dim));
  const int n_pairs = s.head_dim / 8;
  const int temporal = (n_pairs * 11 + 16) / 32;
  w.set(a + ".rope.dimension_sections", GgufValue::I32Array({temporal, temporal, n_pairs - 2 * temporal, 0}));
}

// The vision-language models' M-RoPE sections over the rotated pairs, as llama.cpp's converter
// writes them for their language model (which text-only inference reads as plain rope): Qwen2-VL's
// [16, 24, 24, 0] and Qwen3-VL's [24, 20, 20, 0] of 64 pairs, scaled to this head; Qwen3-VL's
// deepstack layer count (its vision features, none in text).
void set_mrope_hparams(GgufWriter& w, const ModelSpec& s) {
  const bool qwen3vl = s.arch == "qwen3vl" || s.arch == "qwen3vlmoe";
  if (!qwen3vl && s.arch != "qwen2vl") return;
  const std::string& a = s.arch;
  const int n_pairs = s.head_dim / 2;
  const int first = (n_pairs * (qwen3vl ? 24 : 16) + 32) / 64;
  const int second = (n_pairs - first) / 2;
  w.set(a + ".rope.dimension_sections", GgufValue::I32Array({first, second, n_pairs - first - second, 0}));
  if (qwen3vl) w.set(a + ".n_deepstack_layers", GgufValue::U32(3));
}

// Granite's multipliers, as llama.cpp's converter writes them: Granite 3.x 8B's (embeddings
// times 12, block outputs times 0.22, logits / 16) with the attention scale 1 / head size;
// Granite 4.0-H Tiny's the same but logits / 6.
void set_granite_hparams(GgufWriter& w, const ModelSpec& s) {
  if (s.arch != "granite" && s.arch != "granitemoe" && !s.mamba2) return;
  const std::string& a = s.arch;
  w.set(a + ".embedding_scale", GgufValue::F32(12.0f));
  w.set(a + ".attention.scale", GgufValue::F32(1.0f / static_cast<float>(s.head_dim)));
  w.set(a + ".residual_scale", GgufValue::F32(0.22f));
  w.set(a + ".logit_scale", GgufValue::F32(s.mamba2 ? 6.0f : 16.0f));
}

// MiniCPM's multipliers, as llama.cpp's converter writes them from its config (scale_emb 12,
// scale_depth 1.4 over sqrt(n_layer), hidden_size over dim_model_base 256).
void set_minicpm_hparams(GgufWriter& w, const ModelSpec& s) {
  if (s.arch != "minicpm") return;
  const std::string& a = s.arch;
  w.set(a + ".embedding_scale", GgufValue::F32(12.0f));
  w.set(a + ".residual_scale", GgufValue::F32(1.4f / std::sqrt(static_cast<float>(s.n_layer))));
  w.set(a + ".logit_scale", GgufValue::F32(static_cast<float>(s.n_embd) / 256.0f));
}

// GLM-4.5's, as llama.cpp's converter writes them: the shared expert as a count of experts,
// the leading dense blocks, routing weights normalised and scaled after sigmoid gating
// (llama.cpp's LLAMA_EXPERT_GATING_FUNC_TYPE_SIGMOID = 2), and the NextN blocks.
void set_glm4moe_hparams(GgufWriter& w, const ModelSpec& s) {
  const std::string& a = s.arch;
  w.set(a + ".expert_shared_count", GgufValue::U32(static_cast<uint32_t>(s.n_ff_shexp / s.n_ff_exp)));
  w.set(a + ".leading_dense_block_count", GgufValue::U32(static_cast<uint32_t>(s.n_dense_lead)));
  w.set(a + ".expert_weights_scale", GgufValue::F32(s.expert_weights_scale));
  w.set(a + ".expert_weights_norm", GgufValue::Bool(s.expert_weights_norm));
  w.set(a + ".expert_gating_func", GgufValue::U32(s.sigmoid_routing ? 2 : 1));
  if (s.glm4moe) w.set(a + ".nextn_predict_layers", GgufValue::U32(static_cast<uint32_t>(s.n_nextn)));
}

// DeepSeek's, as llama.cpp's converter writes them: the head widths (with split_kv_b, those of
// the one latent K/V head llama.cpp reads, and the real ones as *_mla), the ranks (q_lora_rank
// only when there is a bottleneck), YaRN's log multiplier, and the routing: shared experts as a
// count, leading dense blocks, expert_gating_func 2 (sigmoid) or 1 (softmax), weights normalised
// or not, and scaled.
void set_deepseek2_hparams(GgufWriter& w, const ModelSpec& s) {
  const std::string& a = s.arch;
  auto u32 = [](int v) { return GgufValue::U32(static_cast<uint32_t>(v)); };
  if (s.split_kv_b) {
    w.set(a + ".attention.key_length", u32(s.kv_lora_rank + s.rope_dim));
    w.set(a + ".attention.value_length", u32(s.kv_lora_rank));
    w.set(a + ".attention.key_length_mla", u32(s.head_dim));
    w.set(a + ".attention.value_length_mla", u32(s.v_head_dim));
  } else {
    w.set(a + ".attention.key_length", u32(s.head_dim));
    w.set(a + ".attention.value_length", u32(s.v_head_dim));
  }
  if (s.q_lora_rank > 0) w.set(a + ".attention.q_lora_rank", u32(s.q_lora_rank));
  w.set(a + ".attention.kv_lora_rank", u32(s.kv_lora_rank));
  // Kimi Linear's latent attention has no rope: its converter writes no YaRN.
  if (s.arch != "kimi-linear") w.set(a + ".rope.scaling.yarn_log_multiplier", GgufValue::F32(s.rope_yarn_log_mul));
  w.set(a + ".expert_shared_count", u32(s.n_ff_shexp / s.n_ff_exp));
  w.set(a + ".leading_dense_block_count", u32(s.n_dense_lead));
  w.set(a + ".expert_weights_scale", GgufValue::F32(s.expert_weights_scale));
  w.set(a + ".expert_weights_norm", GgufValue::Bool(s.expert_weights_norm));
  if (!s.mistral4) w.set(a + ".expert_gating_func", u32(s.sigmoid_routing ? 2 : 1));
  if (s.glm_dsa) {
    w.set(a + ".nextn_predict_layers", u32(s.n_nextn));
    w.set(a + ".attention.indexer.head_count", u32(s.indexer_n_head));
    w.set(a + ".attention.indexer.key_length", u32(s.indexer_head_dim));
    w.set(a + ".attention.indexer.top_k", u32(s.indexer_top_k));
  }
}

// llama.cpp's expert keys; Mixtral (llama), Granite 4.0-H and OLMoE have only the counts (and Granite
// its shared expert's width), the expert width being <arch>.feed_forward_length.
void set_expert_hparams(GgufWriter& w, const ModelSpec& s) {
  if (s.n_expert == 0) return;
  const std::string& a = s.arch;
  w.set(a + ".expert_count", GgufValue::U32(static_cast<uint32_t>(s.n_expert)));
  w.set(a + ".expert_used_count", GgufValue::U32(static_cast<uint32_t>(s.n_expert_used)));
  if (a != "llama" && !s.mamba2 && a != "olmoe") {
    w.set(a + ".expert_feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff_exp)));
  }
  if (s.glm4moe || s.minimax_m3) {  // MiniMax-M3's converter writes GLM's keys, without NextN
    set_glm4moe_hparams(w, s);
  } else if (s.deepseek2) {
    set_deepseek2_hparams(w, s);
  } else if (s.ernie_moe) {  // as llama.cpp's converter writes ERNIE 4.5's
    w.set(a + ".leading_dense_block_count", GgufValue::U32(static_cast<uint32_t>(s.n_dense_lead)));
    w.set(a + ".interleave_moe_layer_step", GgufValue::U32(static_cast<uint32_t>(s.moe_layer_step)));
    w.set(a + ".expert_shared_feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff_shexp)));
  } else if (s.step35 || s.laguna) {  // as llama.cpp's converter writes Step 3.5's and Laguna's
    w.set(a + ".leading_dense_block_count", GgufValue::U32(static_cast<uint32_t>(s.n_dense_lead)));
    w.set(a + ".expert_shared_feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff_shexp)));
    w.set(a + ".expert_weights_scale", GgufValue::F32(s.expert_weights_scale));
    w.set(a + ".expert_weights_norm", GgufValue::Bool(s.expert_weights_norm));
    w.set(a + ".expert_gating_func", GgufValue::U32(2));
  } else if (s.cohere2_moe) {  // as llama.cpp's converter writes North's
    std::vector<GgufValue> pattern;
    for (int l = 0; l < s.n_layer; ++l) pattern.push_back(GgufValue::Bool(l % 4 != 0));
    w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
    w.set(a + ".logit_scale", GgufValue::F32(1.0f));
    w.set(a + ".leading_dense_block_count", GgufValue::U32(static_cast<uint32_t>(s.n_dense_lead)));
    w.set(a + ".expert_weights_norm", GgufValue::Bool(false));
    w.set(a + ".expert_gating_func", GgufValue::U32(2));
  } else if (s.minimax_m2) {  // its converter writes the gate function only
    w.set(a + ".expert_gating_func", GgufValue::U32(s.sigmoid_routing ? 2 : 1));
  } else if (s.llama4) {  // llama.cpp's constant chunk, as converted files carry it
    w.set(a + ".interleave_moe_layer_step", GgufValue::U32(static_cast<uint32_t>(s.moe_layer_step)));
    w.set(a + ".attention.chunk_size", GgufValue::U32(8192));
    w.set(a + ".use_qk_norm", GgufValue::Bool(true));
  } else if (s.n_ff_shexp > 0) {
    w.set(a + ".expert_shared_feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff_shexp)));
  }
}

Result<VocabMetadata> load_vocab(const GenerateOptions& o, int preset_vocab) {
  if (o.vocab_path.empty()) return builtin_byte_vocab(preset_vocab);
  return vocab_from_gguf(o.vocab_path);
}

// The vocabulary size of a model with o's vocabulary: the built-in one's (the preset's, at least
// its byte tokens) without building its token strings, which a plan does not need (a preset's
// 150k would be built twice per model written), or the vocabulary file's.
Result<int> vocab_size(const GenerateOptions& o, int preset_vocab) {
  if (o.vocab_path.empty()) return std::max(preset_vocab, kByteVocabSize);
  STRATA_ASSIGN_OR_RETURN(VocabMetadata vocab, vocab_from_gguf(o.vocab_path));
  return vocab.n_vocab;
}

// The plan of spec (its vocabulary size from o's vocabulary) in o's type and mix, and its size.
Result<GenerateReport> plan_spec(ModelSpec spec, const GenerateOptions& o) {
  GenerateReport report;
  report.spec = std::move(spec);
  STRATA_ASSIGN_OR_RETURN(int n_vocab, vocab_size(o, report.spec.n_vocab));
  report.spec.n_vocab = n_vocab;
  STRATA_ASSIGN_OR_RETURN(report.plan, plan_tensors(report.spec, o.type, o.mix));
  for (const auto& t : report.plan.tensors) {
    uint64_t n = 1;
    for (uint64_t d : t.dims) n *= d;
    report.n_params += n;
    report.n_bytes += *dtype_row_bytes(t.type, n);
  }
  return report;
}

// Writes report (plan_spec's) to o.out_path with o's vocabulary and seed.
Status write_model(const GenerateReport& report, const GenerateOptions& o) {
  STRATA_ASSIGN_OR_RETURN(VocabMetadata vocab, load_vocab(o, report.spec.n_vocab));
  GgufWriter w;
  set_hparams(w, report.spec, report.plan, o.seed);
  set_expert_hparams(w, report.spec);
  set_hybrid_hparams(w, report.spec);
  set_mrope_hparams(w, report.spec);
  set_granite_hparams(w, report.spec);
  set_gemma4_hparams(w, report.spec);
  set_gemma3n_hparams(w, report.spec);
  set_step35_hparams(w, report.spec);
  set_laguna_hparams(w, report.spec);
  set_mimo2_hparams(w, report.spec);
  set_deci_hparams(w, report.spec);
  set_mamba2_hybrid_hparams(w, report.spec);
  set_nemotron_h_hparams(w, report.spec);
  set_lfm2_hparams(w, report.spec);
  set_kda_hparams(w, report.spec);
  set_post_norm_window_hparams(w, report.spec);
  set_falcon_h1_hparams(w, report.spec);
  set_bitnet_hparams(w, report.spec);
  set_xielu_hparams(w, report.spec);
  set_minicpm_hparams(w, report.spec);
  for (auto& [key, value] : vocab.keys) w.set(key, std::move(value));

  int n_threads = o.n_threads > 0 ? o.n_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ThreadPool pool(n_threads);
  std::atomic<bool> failed{false};
  const std::vector<float> rope_factors = spec_rope_factors(report.spec);
  for (const auto& t : report.plan.tensors) {
    if (t.kind == WeightKind::kRopeFreqs) {
      w.add_tensor(t.name, t.type, t.dims, [&rope_factors](uint8_t* dst) {
        std::memcpy(dst, rope_factors.data(), rope_factors.size() * sizeof(float));
      });
      continue;
    }
    w.add_tensor(t.name, t.type, t.dims,
                 [&t, &pool, &failed, seed = o.seed](uint8_t* dst) { fill_tensor(t, seed, pool, dst, &failed); });
  }
  STRATA_RETURN_IF_ERROR(w.write(o.out_path));
  if (failed.load()) {
    std::remove(o.out_path.c_str());
    return Status::Internal("mkmodel: quantizing a tensor failed; " + o.out_path + " removed");
  }
  return Status::Ok();
}

}  // namespace

Result<GenerateReport> plan_model(const GenerateOptions& o) {
  STRATA_ASSIGN_OR_RETURN(ModelSpec spec, model_preset(o.arch, o.preset));
  spec.rope_freqs = o.rope_freqs;
  spec.split_kv_b = spec.split_kv_b || o.split_kv_b;  // mistral4's files always split it
  if (o.n_layers < 0) return Status::InvalidArgument("layer count " + std::to_string(o.n_layers) + " must be positive");
  if (o.n_layers > 0) set_layer_count(&spec, o.n_layers);
  return plan_spec(std::move(spec), o);
}

Result<GenerateReport> generate_model(const GenerateOptions& o) {
  if (o.out_path.empty()) return Status::InvalidArgument("mkmodel: no output path");
  STRATA_ASSIGN_OR_RETURN(GenerateReport report, plan_model(o));
  STRATA_RETURN_IF_ERROR(write_model(report, o));
  return report;
}

Result<GenerateReport> generate_model_from_spec(const ModelSpec& spec, const GenerateOptions& o) {
  if (o.out_path.empty()) return Status::InvalidArgument("mkmodel: no output path");
  STRATA_ASSIGN_OR_RETURN(GenerateReport report, plan_spec(spec, o));
  STRATA_RETURN_IF_ERROR(write_model(report, o));
  return report;
}

}  // namespace strata
