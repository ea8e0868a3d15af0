#include "model/hparams.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "model/arch_table.h"
#include "model/attention_hparams.h"
#include "model/cohere_hparams.h"
#include "model/deci_hparams.h"
#include "model/gemma3n_hparams.h"
#include "model/gemma4_hparams.h"
#include "model/metadata_readers.h"
#include "model/post_norm_hparams.h"
#include "model/ssm_hparams.h"
#include "model/step35_hparams.h"
#include "model/xielu_hparams.h"
#include "model/bitnet_hparams.h"

namespace strata {
namespace {

// How a router's logits become gate values (<arch>.expert_gating_func, llama.cpp's numbering):
// 1 softmax over all experts, 2 sigmoid of each, 3 softmax over the chosen ones (the softmax
// over all, renormalised); the architecture's default when absent or 0 (none given).
Status read_gating(const GgufFile& gguf, const ArchTraits& traits, Hparams* hp) {
  const std::string& a = hp->arch;
  int func = 0;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "expert_gating_func", true, 0, &func));
  if (func == 0) func = traits.sigmoid_router ? 2 : 1;
  if (func > 3) {
    return Status::Unsupported(gguf.path() + ": " + a + ".expert_gating_func " + std::to_string(func) +
                               " is not supported (1 softmax, 2 sigmoid, 3 softmax over the chosen experts)");
  }
  hp->expert_sigmoid = func == 2;
  if (func == 3) hp->expert_weights_norm = true;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".expert_weights_scale", &hp->expert_weights_scale));
  if (traits.laguna && hp->expert_weights_scale == 0.0f) hp->expert_weights_scale = 1.0f;  // 0: unscaled
  if (!(hp->expert_weights_scale > 0.0f)) {
    return Status::Corrupt(gguf.path() + ": " + a + ".expert_weights_scale must be > 0");
  }
  // Group-limited routing (DeepSeek-V3): one group, or every group used, is plain top-k.
  int n_groups = 1, n_groups_used = 1;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "expert_group_count", true, &n_groups));
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "expert_group_used_count", true, &n_groups_used));
  if (n_groups_used >= n_groups) return Status::Ok();
  const std::string groups = a + ".expert_group_count " + std::to_string(n_groups);
  if (hp->n_expert % n_groups != 0) {
    return Status::Corrupt(gguf.path() + ": " + groups + " does not divide expert_count " +
                           std::to_string(hp->n_expert));
  }
  if (n_groups_used * (hp->n_expert / n_groups) < hp->n_expert_used) {
    return Status::Corrupt(gguf.path() + ": " + a + ".expert_group_used_count " + std::to_string(n_groups_used) +
                           " groups hold fewer than expert_used_count " + std::to_string(hp->n_expert_used) +
                           " experts");
  }
  hp->n_expert_groups = n_groups;
  hp->n_expert_groups_used = n_groups_used;
  return Status::Ok();
}

// The expert keys. A file with <arch>.expert_count > 0 routes its feed-forward through
// experts (from leading_dense_block_count on); their width is expert_feed_forward_length, or
// feed_forward_length in Mixtral-style llama files (which have no dense layers to give that
// key another meaning). The shared expert is expert_shared_feed_forward_length wide, or
// expert_shared_count experts' width.
Status read_experts(const GgufFile& gguf, const ArchTraits& traits, Hparams* hp) {
  const std::string& a = hp->arch;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "expert_count", true, &hp->n_expert));
  if (hp->n_expert == 0) {
    if (traits.requires_experts) return Status::NotFound(gguf.path() + ": missing metadata key " + a + ".expert_count");
    return Status::Ok();
  }
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "expert_used_count", false, &hp->n_expert_used));
  if (hp->n_expert_used > hp->n_expert) {
    return Status::Corrupt(gguf.path() + ": " + a + ".expert_used_count " + std::to_string(hp->n_expert_used) +
                           " exceeds expert_count " + std::to_string(hp->n_expert));
  }
  if (hp->n_expert > kMaxExperts) {
    return Status::Unsupported(gguf.path() + ": " + a + ".expert_count " + std::to_string(hp->n_expert) +
                               " exceeds the " + std::to_string(kMaxExperts) + " experts this build supports");
  }
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "leading_dense_block_count", true, 0, &hp->n_layer_dense_lead));
  if (hp->n_layer_dense_lead > 0 && hp->n_ff == 0) {
    return Status::NotFound(gguf.path() + ": missing metadata key " + a +
                            ".feed_forward_length (the width of the leading dense layers)");
  }
  hp->n_ff_exp = hp->n_layer_dense_lead > 0 ? 0 : hp->n_ff;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "expert_feed_forward_length", hp->n_ff_exp > 0, &hp->n_ff_exp));
  int n_shared = traits.llama4 ? 1 : 0;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "expert_shared_count", true, 0, &n_shared));
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "interleave_moe_layer_step", true, &hp->moe_layer_step));
  // The shared expert's width in experts' widths, bounded so the product fits (the real ones: 1 or 2).
  constexpr int kMaxSharedExperts = 64;
  if (hp->n_ff_exp > (1 << 24)) {
    return Status::Unsupported(gguf.path() + ": " + a + ".expert_feed_forward_length " + std::to_string(hp->n_ff_exp) +
                               " exceeds the " + std::to_string(1 << 24) + " values this build supports");
  }
  if (n_shared > kMaxSharedExperts) {
    return Status::Unsupported(gguf.path() + ": " + a + ".expert_shared_count " + std::to_string(n_shared) +
                               " exceeds the " + std::to_string(kMaxSharedExperts) + " shared experts this build supports");
  }
  hp->n_ff_shexp = n_shared * hp->n_ff_exp;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "expert_shared_feed_forward_length", true, &hp->n_ff_shexp));
  hp->shexp_gated = !traits.ungated_shared_expert;
  hp->expert_weights_norm = traits.moe_norm_topk;
  if (const GgufValue* v = gguf.find(a + ".expert_weights_norm"); v != nullptr) {
    std::optional<bool> b = v->as_bool();
    if (!b) return Status::Corrupt(gguf.path() + ": " + a + ".expert_weights_norm must be a bool");
    hp->expert_weights_norm = *b;
  }
  return read_gating(gguf, traits, hp);
}

Status read_rope_scaling(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.scaling.attn_factor", &hp->rope_attn_factor));
  if (!(hp->rope_attn_factor > 0.0f) || !std::isfinite(hp->rope_attn_factor)) {
    return Status::Corrupt(gguf.path() + ": " + a + ".rope.scaling.attn_factor must be a positive finite number");
  }
  hp->rope_orig_ctx = hp->n_ctx_train;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "rope.scaling.original_context_length", true, &hp->rope_orig_ctx));
  float factor = 1.0f;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.scaling.factor", &factor));
  std::string type = gguf.get_string(a + ".rope.scaling.type").value_or(factor != 1.0f ? "linear" : "none");
  // Older files carry only rope.scale_linear (the factor itself).
  if (const GgufValue* legacy = gguf.find(a + ".rope.scale_linear"); legacy != nullptr && type == "none") {
    STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.scale_linear", &factor));
    type = factor != 1.0f ? "linear" : "none";
  }
  if (type == "none") return Status::Ok();
  if (!(factor > 0.0f)) {
    return Status::Corrupt(gguf.path() + ": " + a + ".rope.scaling.factor must be > 0");
  }
  if (type == "linear") {
    hp->rope_freq_scale = 1.0f / factor;
    return Status::Ok();
  }
  if (type == "yarn") {
    hp->rope_freq_scale = 1.0f / factor;
    hp->rope_yarn_factor = factor;
    hp->rope_yarn_orig_ctx = hp->rope_orig_ctx;
    return Status::Ok();
  }
  return Status::Unsupported(gguf.path() + ": " + a + ".rope.scaling.type '" + type +
                             "' is not supported (none, linear, yarn)");
}

// Phi-3's window, over every layer: attention.sliding_window, where 0 (Phi-4) means none. Files
// from before the key was written get the window their model has (llama.cpp's defaults):
// 2047 for the 4K-context mini and medium, none for the rest.
Status read_phi3_window(const GgufFile& gguf, Hparams* hp) {
  if (gguf.find(hp->arch + ".attention.sliding_window") == nullptr) {
    const bool short_context = hp->n_ctx_train == 4096 && (hp->n_layer == 32 || hp->n_layer == 40);
    hp->sliding_window = short_context ? 2047 : 0;
    return Status::Ok();
  }
  hp->sliding_period = 0;
  return read_int(gguf, hp->arch, "attention.sliding_window", false, 0, &hp->sliding_window);
}

// M-RoPE's rope.dimension_sections (ArchTraits::mrope, Hparams::rope_pos0_pairs), when the file
// has them. A text token's position is p in every component the model defines, so only the
// consecutive layout's fourth section (pairs past s0 + s1 + s2, in files that have one) stays at
// position 0. The interleaved layout defines three components, the temporal one for every pair
// the other two leave (transformers' apply_interleaved_mrope: [THW THW ... TT]), so its text
// turns every pair; llama.cpp and ik_llama.cpp read a fourth component, 0 for text, for those
// pairs instead, which freezes Qwen3-VL's last two of 64 ([24, 20, 20, 0]).
Status read_rope_sections(const GgufFile& gguf, ArchTraits::MRope mrope, Hparams* hp) {
  const std::string key = hp->arch + ".rope.dimension_sections";
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) return Status::Ok();
  const size_t n_values = v->array_size();
  int s[4] = {0, 0, 0, 0};
  int sum = 0;
  for (size_t i = 0; i < n_values && i < 4; ++i) {
    std::optional<int64_t> n = v->int_at(i);
    if (!n || *n < 0 || *n > hp->n_rot) return Status::Corrupt(gguf.path() + ": " + key + " must hold 4 counts of rotated pairs");
    s[i] = static_cast<int>(*n);
    sum += s[i];
  }
  if (n_values < 3 || sum == 0) {
    return Status::Corrupt(gguf.path() + ": " + key + " must hold 4 counts of rotated pairs, not all 0");
  }
  if (mrope == ArchTraits::MRope::kInterleaved) return Status::Ok();
  std::vector<uint8_t> pos0(static_cast<size_t>(hp->n_rot / 2), 0);
  bool any = false;
  for (int i = 0; i < hp->n_rot / 2; ++i) {
    const bool fourth = i % sum >= s[0] + s[1] + s[2];
    pos0[static_cast<size_t>(i)] = fourth ? 1 : 0;
    any = any || fourth;
  }
  if (any) hp->rope_pos0_pairs = std::move(pos0);
  return Status::Ok();
}

// Granite's multipliers (ArchTraits::granite), each required as llama.cpp requires them.
Status read_granite_scales(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  STRATA_RETURN_IF_ERROR(read_required_positive(gguf, a + ".embedding_scale", &hp->embd_scale));
  STRATA_RETURN_IF_ERROR(read_required_positive(gguf, a + ".attention.scale", &hp->attn_scale));
  STRATA_RETURN_IF_ERROR(read_required_positive(gguf, a + ".residual_scale", &hp->residual_scale));
  return read_required_positive(gguf, a + ".logit_scale", &hp->logit_scale);
}

// MiniCPM's multipliers (ArchTraits::minicpm): the file's embedding_scale, residual_scale and
// logit_scale (the logits divided by it), each positive, or the model's own when absent (12,
// 1.4 / sqrt(n_layer), n_embd / 256: its scale_emb, scale_depth and dim_model_base).
Status read_minicpm_scales(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  hp->embd_scale = 12.0f;
  hp->residual_scale = 1.4f / std::sqrt(static_cast<float>(hp->n_layer));
  hp->logit_scale = static_cast<float>(hp->n_embd) / 256.0f;
  for (auto [suffix, scale] : {std::pair{".embedding_scale", &hp->embd_scale},
                               std::pair{".residual_scale", &hp->residual_scale},
                               std::pair{".logit_scale", &hp->logit_scale}}) {
    STRATA_RETURN_IF_ERROR(read_real(gguf, a + suffix, scale));
    if (!(*scale > 0.0f)) return Status::Corrupt(gguf.path() + ": " + a + suffix + " must be > 0");
  }
  return Status::Ok();
}

// Gemma 2's soft caps (50 and 30 when absent, as llama.cpp reads them), each positive and finite.
Status read_softcaps(const GgufFile& gguf, Hparams* hp) {
  hp->attn_softcap = 50.0f;
  hp->final_softcap = 30.0f;
  for (auto [suffix, cap] : {std::pair{".attn_logit_softcapping", &hp->attn_softcap},
                             std::pair{".final_logit_softcapping", &hp->final_softcap}}) {
    STRATA_RETURN_IF_ERROR(read_real(gguf, hp->arch + suffix, cap));
    if (!(*cap > 0.0f)) return Status::Corrupt(gguf.path() + ": " + hp->arch + suffix + " must be > 0");
  }
  return Status::Ok();
}

// Gemma 2's and 3's, gpt-oss's and Phi-3's extras (arch_table.h). The attention scale is
// 1 / sqrt(head_dim) except in the Gemma 27Bs (ArchTraits::wide_attn_scale_layers: Gemma 3's
// query_pre_attn_scalar is n_embd / n_head = 168 with heads of 128, Gemma 2's 4608 / 32 = 144):
// GGUF files carry no key for it, so the layer count tells, as in llama.cpp.
Status read_arch_extras(const GgufFile& gguf, const ArchTraits& traits, Hparams* hp) {
  if (traits.embed_scaled) hp->embd_scale = std::sqrt(static_cast<float>(hp->n_embd));
  hp->post_norms = traits.post_norms;
  hp->ffn_gelu = traits.ffn_gelu;
  if (traits.sliding_period > 0) {
    hp->sliding_period = traits.sliding_period;
    hp->rope_freq_base_swa = traits.sliding_rope_base;
    hp->sliding_window = traits.default_sliding_window;
    STRATA_RETURN_IF_ERROR(read_count(gguf, hp->arch, "attention.sliding_window", traits.default_sliding_window > 0,
                                      &hp->sliding_window));
  }
  if (traits.softcaps) STRATA_RETURN_IF_ERROR(read_softcaps(gguf, hp));
  if (traits.granite) STRATA_RETURN_IF_ERROR(read_granite_scales(gguf, hp));
  if (traits.minicpm) STRATA_RETURN_IF_ERROR(read_minicpm_scales(gguf, hp));
  if (traits.cohere2) STRATA_RETURN_IF_ERROR(read_cohere2(gguf, hp));
  if (traits.cohere2_moe) STRATA_RETURN_IF_ERROR(read_cohere2_moe(gguf, hp));
  if (traits.gemma4) STRATA_RETURN_IF_ERROR(read_gemma4(gguf, hp));
  if (traits.gemma3n) STRATA_RETURN_IF_ERROR(read_gemma3n(gguf, hp));
  if (traits.step35) STRATA_RETURN_IF_ERROR(read_step35(gguf, hp));
  if (traits.laguna) STRATA_RETURN_IF_ERROR(read_laguna(gguf, hp));
  if (traits.mimo2) STRATA_RETURN_IF_ERROR(read_mimo2(gguf, hp));
  if (traits.deci) STRATA_RETURN_IF_ERROR(read_deci(gguf, hp));
  if (traits.sliding_every_layer) STRATA_RETURN_IF_ERROR(read_phi3_window(gguf, hp));
  hp->nope_layer_step = traits.nope_layer_step;
  hp->qk_norm_whole_row = traits.qk_norm_whole_row;
  hp->qk_norm_after_rope = traits.qk_norm_after_rope;
  if (traits.llama4) STRATA_RETURN_IF_ERROR(read_llama4_attention(gguf, hp));
  if (traits.mistral3) STRATA_RETURN_IF_ERROR(read_mistral3_attention(gguf, hp));
  if (traits.gated_delta_net) STRATA_RETURN_IF_ERROR(read_delta_net(gguf, hp));
  if (traits.mamba2) STRATA_RETURN_IF_ERROR(read_granite_hybrid(gguf, hp));
  if (traits.nemotron_h) STRATA_RETURN_IF_ERROR(read_nemotron_h(gguf, hp));
  if (traits.short_conv) STRATA_RETURN_IF_ERROR(read_lfm2(gguf, hp));
  if (traits.olmo2) STRATA_RETURN_IF_ERROR(read_olmo2(gguf, hp));
  if (traits.exaone4) STRATA_RETURN_IF_ERROR(read_exaone4(gguf, hp));
  if (traits.falcon_h1) STRATA_RETURN_IF_ERROR(read_falcon_h1(gguf, hp));
  if (traits.kda) STRATA_RETURN_IF_ERROR(read_bailingmoe3(gguf, hp));
  if (traits.kimi_linear) STRATA_RETURN_IF_ERROR(read_kimi_linear(gguf, hp));
  if (traits.ffn_relu_sq) hp->ffn_relu_sq = true;
  if (traits.apertus) STRATA_RETURN_IF_ERROR(read_xielu(gguf, hp));
  if (traits.bitnet) STRATA_RETURN_IF_ERROR(read_bitnet(gguf, traits.bitnet_relu_sq, hp));
  if (traits.mrope != ArchTraits::MRope::kNone) STRATA_RETURN_IF_ERROR(read_rope_sections(gguf, traits.mrope, hp));
  // Mamba-2's heads read their group as Qwen3-Next's value heads read their key head.
  hp->ssm_grouped = traits.delta_net_grouped || traits.mamba2 || traits.nemotron_h || traits.falcon_h1;
  hp->ffn_up_gate_fused = traits.ffn_up_gate_fused;
  hp->attn_sinks = traits.attn_sinks;
  hp->swiglu_oai = traits.swiglu_oai;
  hp->ffn_norm_name = std::string(traits.ffn_norm_name);
  if (traits.wide_attn_scale_layers > 0 && hp->n_layer == traits.wide_attn_scale_layers) {
    hp->attn_scale_dim = hp->n_embd / hp->n_head;
  }
  return Status::Ok();
}

// Multi-head Latent Attention (ArchTraits::mla; Hparams: deepseek2). Files come in two forms:
// llama.cpp's older one, whose key_length / value_length are a full head's (nope + rope, v)
// with attn_kv_b; and its newer one, which says head_count_kv 1, key_length kv_lora_rank + rope,
// value_length kv_lora_rank, and the full head's sizes in key_length_mla / value_length_mla
// (with attn_k_b / attn_v_b). key_length and value_length are those the file gives.
Status read_mla(const GgufFile& gguf, int key_length, int value_length, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.kv_lora_rank", false, &hp->mla_kv_rank));
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "attention.q_lora_rank", true, 0, &hp->mla_q_rank));
  if (gguf.find(a + ".rope.dimension_count") == nullptr) {
    return Status::NotFound(f + ": missing metadata key " + a + ".rope.dimension_count");
  }
  int head_k = key_length, head_v = value_length;
  if (gguf.find(a + ".attention.key_length_mla") != nullptr) {
    // Kimi Linear's converter writes no value_length (read_hparams then took key_length's).
    if (gguf.find(a + ".attention.value_length") == nullptr) value_length = hp->mla_kv_rank;
    if (key_length != hp->mla_kv_rank + hp->n_rot || value_length != hp->mla_kv_rank) {
      return Status::Corrupt(f + ": with key_length_mla, attention.key_length must be kv_lora_rank + rope (" +
                             std::to_string(hp->mla_kv_rank + hp->n_rot) + ") and value_length kv_lora_rank (" +
                             std::to_string(hp->mla_kv_rank) + "), got " + std::to_string(key_length) + " and " +
                             std::to_string(value_length));
    }
    STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.key_length_mla", false, &head_k));
    STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.value_length_mla", false, &head_v));
  }
  if (head_k <= hp->n_rot || hp->n_rot % 2 != 0) {
    return Status::Corrupt(f + ": a query head of " + std::to_string(head_k) + " values must be longer than its " +
                           std::to_string(hp->n_rot) + " rotated ones (rope.dimension_count, even)");
  }
  // Every head's map is one job of one kernels::matmul_many() call (kMaxMatmulJobs).
  constexpr int kMaxMlaHeads = 1024;
  if (hp->n_head > kMaxMlaHeads) {
    return Status::Unsupported(f + ": " + a + ".attention.head_count " + std::to_string(hp->n_head) + " exceeds the " +
                               std::to_string(kMaxMlaHeads) + " latent-attention heads this build supports");
  }
  hp->mla_nope_dim = head_k - hp->n_rot;
  hp->mla_v_dim = head_v;
  hp->head_dim = hp->mla_kv_rank + hp->n_rot;  // the latent row every head attends over
  hp->n_head_kv = 1;
  return read_real(gguf, a + ".rope.scaling.yarn_log_multiplier", &hp->rope_yarn_log_mul);
}

Status check_shapes(const GgufFile& gguf, const Hparams& hp) {
  const std::string& f = gguf.path();
  // Counts a hostile file could make overflow the row sizes they multiply into (the largest real
  // models: 16384 wide, rows of 16384 values).
  constexpr int64_t kMaxRow = 1 << 24;
  const int64_t widest_head = std::max(hp.head_dim, hp.head_dim_swa);
  const int64_t q_row = static_cast<int64_t>(hp.max_n_head()) * widest_head;
  const int64_t kv_row = static_cast<int64_t>(std::max(hp.n_head_kv, hp.n_head_kv_swa)) * widest_head;
  const int64_t widest = std::max({static_cast<int64_t>(hp.n_embd), q_row, kv_row, static_cast<int64_t>(hp.n_ff),
                                   static_cast<int64_t>(hp.n_ff_shexp)});
  if (widest > kMaxRow) {
    return Status::Unsupported(f + ": rows of " + std::to_string(widest) +
                               " values (embedding_length, heads times their size, or a feed-forward) exceed the " +
                               std::to_string(kMaxRow) + " this build supports");
  }
  if (hp.n_head % hp.n_head_kv != 0) {
    return Status::Corrupt(f + ": head_count " + std::to_string(hp.n_head) + " is not a multiple of head_count_kv " +
                           std::to_string(hp.n_head_kv));
  }
  if (hp.head_dim % 2 != 0 || hp.n_rot % 2 != 0 || hp.n_rot > hp.head_dim) {
    return Status::Corrupt(f + ": rope dimension " + std::to_string(hp.n_rot) + " and head size " +
                           std::to_string(hp.head_dim) + " must be even, rope <= head size");
  }
  if (!(hp.rms_eps > 0.0f) || !(hp.rope_freq_base > 0.0f)) {
    return Status::Corrupt(f + ": layer_norm_rms_epsilon and rope.freq_base must be > 0");
  }
  if (hp.n_vocab <= 0) return Status::Corrupt(f + ": cannot tell the vocabulary size");
  return Status::Ok();
}

}  // namespace

float Hparams::kq_scale() const {
  if (attn_scale > 0.0f) return attn_scale;
  if (!is_mla()) return 1.0f / std::sqrt(static_cast<float>(attn_scale_dim));
  const float mscale = rope_attn_factor * (1.0f + rope_yarn_log_mul * std::log(1.0f / rope_freq_scale));
  return mscale * mscale / std::sqrt(static_cast<float>(mla_nope_dim + n_rot));
}

float Hparams::attn_temperature(int pos) const {
  if (attn_temp_scale == 0.0f) return 1.0f;
  // In float, as llama.cpp computes it.
  const float n_lengths = std::floor((static_cast<float>(pos) + 1.0f) / static_cast<float>(attn_temp_length));
  return std::log(n_lengths + 1.0f) * attn_temp_scale + 1.0f;
}

Result<Hparams> read_hparams(const GgufFile& gguf) {
  Hparams hp;
  std::optional<std::string> arch = gguf.get_string("general.architecture");
  if (!arch) return Status::NotFound(gguf.path() + ": missing metadata key general.architecture");
  const ArchTraits* traits = find_arch(*arch);
  if (traits == nullptr) {
    return Status::Unsupported(gguf.path() + ": architecture '" + *arch + "' is not supported (supported: " +
                               std::string(supported_arch_names()) + ")");
  }
  hp.arch = *arch;
  const std::string& a = hp.arch;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "embedding_length", false, &hp.n_embd));
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "block_count", false, &hp.n_layer));
  if (hp.n_layer > kMaxLayers) {
    return Status::Unsupported(gguf.path() + ": " + a + ".block_count " + std::to_string(hp.n_layer) +
                               " exceeds the " + std::to_string(kMaxLayers) + " layers this build supports");
  }
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "nextn_predict_layers", true, 0, &hp.n_nextn_layers));
  if (hp.n_nextn_layers >= hp.n_layer) {
    return Status::Corrupt(gguf.path() + ": " + a + ".nextn_predict_layers " + std::to_string(hp.n_nextn_layers) +
                           " leaves none of the " + std::to_string(hp.n_layer) + " blocks to run");
  }
  hp.n_layer -= hp.n_nextn_layers;  // the NextN blocks come last; the forward pass stops before them
  // A MoE file's experts have their own width key; its dense width is optional.
  // Gemma 4's per-layer widths are read_gemma4's.
  const GgufValue* ff = gguf.find(a + ".feed_forward_length");
  if (!(traits->gemma4 || traits->gemma3n || traits->deci || traits->nemotron_h) || ff == nullptr || !ff->is_array()) {
    STRATA_RETURN_IF_ERROR(read_count(gguf, a, "feed_forward_length", traits->requires_experts, &hp.n_ff));
  }
  // Step 3.5's and Laguna's per-layer query heads are theirs to read (the first layer's count
  // stands till then).
  const GgufValue* heads = gguf.find(a + ".attention.head_count");
  if (traits->deci || traits->nemotron_h) {  // Nemotron's per-layer counts are read_deci's / read_nemotron_h's
    STRATA_ASSIGN_OR_RETURN(hp.n_head, deci_query_heads(gguf, a));
  } else if ((traits->step35 || traits->laguna) && heads != nullptr && heads->is_array() && heads->array_size() > 0) {
    hp.n_head = static_cast<int>(std::min<uint64_t>(heads->uint_at(0).value_or(0), 1u << 30));
    if (hp.n_head < 1) return Status::Corrupt(gguf.path() + ": " + a + ".attention.head_count[0] must be positive");
  } else {
    STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.head_count", false, &hp.n_head));
  }
  hp.n_head_kv = hp.n_head;
  // Gemma 4's and Step 3.5's per-layer counts are theirs to read.
  const GgufValue* kv_heads = gguf.find(a + ".attention.head_count_kv");
  if (!(traits->gemma4 || traits->step35 || traits->laguna || traits->mimo2 || traits->deci || traits->mamba2 ||
        traits->nemotron_h || traits->short_conv || traits->kda || traits->kimi_linear) ||
      kv_heads == nullptr ||
      !kv_heads->is_array()) {
    STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.head_count_kv", true, &hp.n_head_kv));
  }
  hp.n_ctx_train = 2048;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "context_length", true, &hp.n_ctx_train));
  hp.head_dim = hp.n_embd / hp.n_head;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.key_length", true, &hp.head_dim));
  int value_length = hp.head_dim;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.value_length", true, &value_length));
  // MiMo-V2's value heads may be narrower than its key heads (the cache pads them: AttnShape).
  if (traits->mimo2 && value_length < hp.head_dim) hp.v_head_dim = value_length;
  if (value_length != hp.head_dim && !traits->mla && hp.v_head_dim == 0) {
    return Status::Unsupported(gguf.path() + ": attention.value_length " + std::to_string(value_length) +
                               " differs from key_length " + std::to_string(hp.head_dim) +
                               (traits->mimo2 ? " (narrower value heads are supported)" : ""));
  }
  hp.n_rot = hp.head_dim;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "rope.dimension_count", true, &hp.n_rot));
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".attention.layer_norm_rms_epsilon", &hp.rms_eps));
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.freq_base", &hp.rope_freq_base));
  STRATA_RETURN_IF_ERROR(read_rope_scaling(gguf, &hp));
  if (traits->mla) STRATA_RETURN_IF_ERROR(read_mla(gguf, hp.head_dim, value_length, &hp));
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "attention.indexer.top_k", true, 0, &hp.sparse_attn_top_k));

  if (const GgufTensor* embd = gguf.find_tensor("token_embd.weight"); embd != nullptr && embd->dims.size() == 2) {
    hp.n_vocab = static_cast<int>(embd->dims[1]);
  } else if (const auto* tokens = gguf.get_array("tokenizer.ggml.tokens"); tokens != nullptr) {
    hp.n_vocab = static_cast<int>(tokens->array_size());
  }
  hp.rope_neox = traits->rope_neox;
  hp.qkv_bias = traits->requires_qkv_bias || has_tensor(gguf, "blk.0.attn_q.bias") ||
                has_tensor(gguf, "blk.0.attn_qkv.bias");
  hp.qk_norm = traits->requires_qk_norm || has_tensor(gguf, "blk.0.attn_q_norm.weight");
  hp.tied_embeddings = !has_tensor(gguf, "output.weight");
  hp.attn_scale_dim = hp.head_dim;
  STRATA_RETURN_IF_ERROR(read_experts(gguf, *traits, &hp));
  STRATA_RETURN_IF_ERROR(read_arch_extras(gguf, *traits, &hp));
  STRATA_RETURN_IF_ERROR(check_shapes(gguf, hp));
  return hp;
}

}  // namespace strata
