#include "model/ssm_hparams.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/metadata_readers.h"

namespace strata {
namespace {

// <arch>.ssm.*: conv_kernel taps, group_count key heads (Mamba-2: groups) of state_size values,
// time_step_rank value heads of inner_size / time_step_rank values, each checked so the state sizes
// are what the tensors hold and the scratch arrays fit.
Status read_ssm_shapes(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  int inner = 0;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "ssm.conv_kernel", false, 2, &hp->ssm_conv_kernel));
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "ssm.state_size", false, &hp->ssm_head_k_dim));
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "ssm.group_count", false, &hp->ssm_n_k_heads));
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "ssm.time_step_rank", false, &hp->ssm_n_v_heads));
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "ssm.inner_size", false, &inner));
  if (hp->ssm_n_v_heads % hp->ssm_n_k_heads != 0 || inner % hp->ssm_n_v_heads != 0) {
    return Status::Corrupt(f + ": " + a + ".ssm.time_step_rank " + std::to_string(hp->ssm_n_v_heads) +
                           " must be a multiple of ssm.group_count " + std::to_string(hp->ssm_n_k_heads) +
                           " and divide ssm.inner_size " + std::to_string(inner));
  }
  if (hp->ssm_conv_kernel > kMaxSsmConvKernel) {
    return Status::Unsupported(f + ": " + a + ".ssm.conv_kernel " + std::to_string(hp->ssm_conv_kernel) +
                               " exceeds the " + std::to_string(kMaxSsmConvKernel) + " taps this build supports");
  }
  hp->ssm_head_v_dim = inner / hp->ssm_n_v_heads;
  if (hp->ssm_head_k_dim > kMaxSsmHeadDim || hp->ssm_head_v_dim > kMaxSsmHeadDim) {
    return Status::Unsupported(f + ": recurrent heads of " + std::to_string(hp->ssm_head_k_dim) + " keys and " +
                               std::to_string(hp->ssm_head_v_dim) + " values exceed the " +
                               std::to_string(kMaxSsmHeadDim) + " this build supports");
  }
  return Status::Ok();
}

// Granite's multipliers where a file has them: each a positive finite number.
Status read_optional_scales(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  for (auto [suffix, scale] : {std::pair{".embedding_scale", &hp->embd_scale},
                               std::pair{".attention.scale", &hp->attn_scale},
                               std::pair{".residual_scale", &hp->residual_scale},
                               std::pair{".logit_scale", &hp->logit_scale}}) {
    if (gguf.find(a + suffix) == nullptr) continue;
    STRATA_RETURN_IF_ERROR(read_required_positive(gguf, a + suffix, scale));
  }
  return Status::Ok();
}

// The recurrent layers are those whose head_count_kv (per layer) is 0; every other one attends with
// the same count, and one must.
// n_blocks: the array's length (the NextN blocks' values, last, unused).
Status read_kinds_from_kv_heads(const GgufFile& gguf, Hparams* hp, int n_blocks = 0) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  std::vector<uint64_t> kv_heads;
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, a + ".attention.head_count_kv",
                                               n_blocks > 0 ? n_blocks : hp->n_layer, &kv_heads));
  hp->n_head_kv = 0;
  int n_attending = 0, n_recurrent = 0;
  for (int l = 0; l < hp->n_layer; ++l) {
    const uint64_t n = kv_heads[static_cast<size_t>(l)];
    if (n != 0 && hp->n_head_kv == 0) hp->n_head_kv = static_cast<int>(n);
    if (n != 0 && n != static_cast<uint64_t>(hp->n_head_kv)) {
      return Status::Unsupported(f + ": layer " + std::to_string(l) + " attends with " + std::to_string(n) +
                                 " K/V heads, another with " + std::to_string(hp->n_head_kv) +
                                 "; one count for every attending layer is supported");
    }
    hp->attn_kv_index.push_back(n != 0 ? n_attending++ : -1);
    hp->recurrent_index.push_back(n == 0 ? n_recurrent++ : -1);
  }
  if (n_attending == 0) {
    return Status::Unsupported(f + ": no layer of " + a + " attends (head_count_kv is 0 in every layer); "
                               "a model needs one");
  }
  return Status::Ok();
}

// The KDA shapes (Ling 3.0's and Kimi Linear's): one head per query head, kda.head_dim keys and
// values each, over ssm.conv_kernel taps.
Status read_kda_shapes(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "ssm.conv_kernel", false, 2, &hp->ssm_conv_kernel));
  if (hp->ssm_conv_kernel > kMaxSsmConvKernel) {
    return Status::Unsupported(f + ": " + a + ".ssm.conv_kernel " + std::to_string(hp->ssm_conv_kernel) +
                               " exceeds the " + std::to_string(kMaxSsmConvKernel) + " taps this build supports");
  }
  int head = 0;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "kda.head_dim", false, &head));
  if (head > kMaxSsmHeadDim) {
    return Status::Unsupported(f + ": " + a + ".kda.head_dim " + std::to_string(head) + " exceeds the " +
                               std::to_string(kMaxSsmHeadDim) + " this build supports");
  }
  hp->ssm_n_k_heads = hp->ssm_n_v_heads = hp->n_head;
  hp->ssm_head_k_dim = hp->ssm_head_v_dim = head;
  hp->ssm_kda = true;
  return Status::Ok();
}

// Ling 3.0's gate: the safe form (the only one its checkpoints use) and its lower bound.
Status read_kda_safe_gate(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  if (const GgufValue* v = gguf.find(a + ".kda.safe_gate"); v != nullptr && v->as_bool() != std::optional<bool>(true)) {
    return Status::Unsupported(f + ": " + a + ".kda.safe_gate must be true (the unbounded gate is not supported)");
  }
  if (gguf.find(a + ".kda.gate_lower_bound") == nullptr) {
    return Status::NotFound(f + ": missing metadata key " + a + ".kda.gate_lower_bound");
  }
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".kda.gate_lower_bound", &hp->kda_gate_lower_bound));
  // kernels::kda_decay's contract (its e^x clamps to [-87, 88]); the checkpoints' bound is -5.
  if (!std::isfinite(hp->kda_gate_lower_bound) || std::fabs(hp->kda_gate_lower_bound) > 87.0f) {
    return Status::Corrupt(f + ": " + a + ".kda.gate_lower_bound must be a finite number within [-87, 87]");
  }
  return Status::Ok();
}

// Nemotron-H's kind of layer l from its counts; Corrupt when a layer has both K/V heads and a
// feed-forward, or attends with other counts than an earlier attending layer.
Status nemotron_h_layer(const std::string& f, int l, uint64_t heads, uint64_t kv_heads, uint64_t width, Hparams* hp,
                        int* n_attending, int* n_recurrent) {
  if (kv_heads != 0 && width != 0) {
    return Status::Corrupt(f + ": layer " + std::to_string(l) + " has both K/V heads and a feed-forward width");
  }
  if (kv_heads != 0) {
    if (hp->n_head_kv == 0) hp->n_head_kv = static_cast<int>(kv_heads);
    if (static_cast<int>(heads) != hp->n_head || static_cast<int>(kv_heads) != hp->n_head_kv) {
      return Status::Unsupported(f + ": layer " + std::to_string(l) + " attends with " + std::to_string(heads) +
                                 " query and " + std::to_string(kv_heads) + " K/V heads, another layer with " +
                                 std::to_string(hp->n_head) + " and " + std::to_string(hp->n_head_kv) +
                                 "; one shape for every attending layer is supported");
    }
  }
  const bool recurrent = kv_heads == 0 && width == 0;
  hp->layer_attn.push_back(width != 0 ? AttnKind::kNone : AttnKind::kAttention);
  hp->attn_kv_index.push_back(kv_heads != 0 ? (*n_attending)++ : -1);
  hp->recurrent_index.push_back(recurrent ? (*n_recurrent)++ : -1);
  hp->layer_n_ff.push_back(static_cast<int>(width));
  return Status::Ok();
}

}  // namespace

Status read_delta_net(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  hp->full_attn_interval = 4;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "full_attention_interval", true, &hp->full_attn_interval));
  if (hp->full_attn_interval < 2) {
    return Status::Corrupt(gguf.path() + ": " + a +
                           ".full_attention_interval must be at least 2 (1 leaves no delta-net layer)");
  }
  STRATA_RETURN_IF_ERROR(read_ssm_shapes(gguf, hp));
  hp->attn_output_gate = true;
  return Status::Ok();
}

Status read_granite_hybrid(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  STRATA_RETURN_IF_ERROR(read_kinds_from_kv_heads(gguf, hp));
  STRATA_RETURN_IF_ERROR(read_ssm_shapes(gguf, hp));
  hp->ssm_mamba2 = true;
  bool rope = false;
  if (const GgufValue* v = gguf.find(a + ".rope.scaling.finetuned"); v != nullptr) {
    std::optional<bool> b = v->as_bool();
    if (!b) return Status::Corrupt(f + ": " + a + ".rope.scaling.finetuned must be a bool");
    rope = *b;
  }
  hp->rotating_layers.assign(static_cast<size_t>(hp->n_layer), rope ? 1 : 0);
  return read_optional_scales(gguf, hp);
}

Status read_nemotron_h(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  std::vector<uint64_t> heads, kv_heads, widths;
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, a + ".attention.head_count", hp->n_layer, &heads));
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, a + ".attention.head_count_kv", hp->n_layer, &kv_heads));
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, a + ".feed_forward_length", hp->n_layer, &widths));
  hp->n_head_kv = 0;
  int n_attending = 0, n_recurrent = 0;
  for (int l = 0; l < hp->n_layer; ++l) {
    const auto i = static_cast<size_t>(l);
    STRATA_RETURN_IF_ERROR(nemotron_h_layer(f, l, heads[i], kv_heads[i], widths[i], hp, &n_attending, &n_recurrent));
  }
  if (n_attending == 0) {
    return Status::Unsupported(f + ": no layer of " + a + " attends (head_count_kv is 0 in every layer); "
                               "a model needs one");
  }
  hp->n_ff = static_cast<int>(*std::max_element(widths.begin(), widths.end()));
  STRATA_RETURN_IF_ERROR(read_ssm_shapes(gguf, hp));
  hp->ssm_mamba2 = true;
  hp->ffn_relu_sq = true;
  hp->moe_where_ffn = true;  // Nemotron 3's experts, in every layer with a feed-forward
  hp->rotating_layers.assign(static_cast<size_t>(hp->n_layer), 0);
  if (gguf.find(a + ".attention.scale") == nullptr) return Status::Ok();
  return read_required_positive(gguf, a + ".attention.scale", &hp->attn_scale);
}

Status read_falcon_h1(const GgufFile& gguf, Hparams* hp) {
  STRATA_RETURN_IF_ERROR(read_ssm_shapes(gguf, hp));
  hp->ssm_mamba2 = true;
  hp->ssm_parallel_attention = true;
  hp->attn_kv_index.clear();
  hp->recurrent_index.clear();
  for (int l = 0; l < hp->n_layer; ++l) {
    hp->attn_kv_index.push_back(l);
    hp->recurrent_index.push_back(l);
  }
  if (!has_tensor(gguf, "blk.0.ffn_norm.weight") && has_tensor(gguf, "blk.0.ffn_norm")) hp->ffn_norm_suffix = "";
  for (const char* bias : {"blk.0.ffn_up.bias", "blk.0.ffn_gate.bias", "blk.0.ffn_down.bias"}) {
    if (has_tensor(gguf, bias)) {
      return Status::Unsupported(gguf.path() + ": tensor " + bias + " (feed-forward biases) is not supported");
    }
  }
  return Status::Ok();
}

Status read_lfm2(const GgufFile& gguf, Hparams* hp) {
  STRATA_RETURN_IF_ERROR(read_kinds_from_kv_heads(gguf, hp));
  STRATA_RETURN_IF_ERROR(read_int(gguf, hp->arch, "shortconv.l_cache", false, 2, &hp->ssm_conv_kernel));
  if (hp->ssm_conv_kernel > kMaxSsmConvKernel) {
    return Status::Unsupported(gguf.path() + ": " + hp->arch + ".shortconv.l_cache " +
                               std::to_string(hp->ssm_conv_kernel) + " exceeds the " +
                               std::to_string(kMaxSsmConvKernel) + " taps this build supports");
  }
  hp->ssm_short_conv = true;
  hp->ssm_n_v_heads = 1;  // one "head" of n_embd channels, no state matrix
  hp->ssm_head_v_dim = hp->n_embd;
  hp->output_norm_name = "token_embd_norm";
  // Some LFM2 files window their attention (llama.cpp reads the key as: every attending layer
  // slides when it is > 0).
  hp->sliding_period = 0;
  return read_int(gguf, hp->arch, "attention.sliding_window", true, 0, &hp->sliding_window);
}

Status read_bailingmoe3(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const int n_blocks = hp->n_layer + hp->n_nextn_layers;
  // Some converters write nextn_predict_layers without the NextN block: the tensors decide, as
  // ik_llama.cpp reads these files (else the last real layer would go unrun).
  if (hp->n_nextn_layers > 0 && !has_tensor(gguf, "blk." + std::to_string(hp->n_layer) + ".nextn.eh_proj.weight")) {
    hp->n_layer = n_blocks;
    hp->n_nextn_layers = 0;
  }
  // And one writes the compressed query's tensors without attention.q_lora_rank: its norm's length.
  for (int l = 0; l < hp->n_layer && hp->mla_q_rank == 0; ++l) {
    const GgufTensor* t = gguf.find_tensor("blk." + std::to_string(l) + ".attn_q_a_norm.weight");
    if (t != nullptr && t->dims.size() == 1 && t->dims[0] > 0 && t->dims[0] <= (1u << 16)) {
      hp->mla_q_rank = static_cast<int>(t->dims[0]);
    }
  }
  STRATA_RETURN_IF_ERROR(read_kinds_from_kv_heads(gguf, hp, n_blocks));
  hp->n_head_kv = 1;  // the latent row (read_mla's); read_kinds_from_kv_heads took the file's count
  STRATA_RETURN_IF_ERROR(read_kda_shapes(gguf, hp));
  STRATA_RETURN_IF_ERROR(read_kda_safe_gate(gguf, hp));
  hp->attn_head_gate = true;  // every latent-attention layer gates its heads (attn_gate)
  // The SwiGLU limits, where the file has them (absent: unclamped).
  for (auto [suffix, limits] : {std::pair{".swiglu_clamp_exp", &hp->ffn_limit_exp},
                                std::pair{".swiglu_clamp_shexp", &hp->ffn_limit_dense}}) {
    if (gguf.find(a + suffix) == nullptr) continue;
    STRATA_RETURN_IF_ERROR(read_swiglu_limits(gguf, a + suffix, n_blocks, hp->n_layer, /*scalar_ok=*/true, limits));
  }
  // The shared expert: expert_shared_feed_forward_length per shared expert, as llama.cpp reads
  // Ling 3.0's files (read_experts took the key as the whole width).
  int n_shared = 1;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "expert_shared_count", true, 1, &n_shared));
  if (gguf.find(a + ".expert_shared_feed_forward_length") != nullptr && n_shared > 1) {
    if (n_shared > 64 || hp->n_ff_shexp > (1 << 24)) {
      return Status::Unsupported(gguf.path() + ": " + a + ".expert_shared_count " + std::to_string(n_shared) +
                                 " shared experts of " + std::to_string(hp->n_ff_shexp) +
                                 " exceed what this build supports (64 of 16777216)");
    }
    hp->n_ff_shexp *= n_shared;
  }
  return Status::Ok();
}

Status read_kimi_linear(const GgufFile& gguf, Hparams* hp) {
  const std::string& f = gguf.path();
  STRATA_RETURN_IF_ERROR(read_kinds_from_kv_heads(gguf, hp));
  hp->n_head_kv = 1;  // the latent row (read_mla's); read_kinds_from_kv_heads took the file's count
  STRATA_RETURN_IF_ERROR(read_kda_shapes(gguf, hp));
  hp->kda_softplus_gate = true;
  hp->rotating_layers.assign(static_cast<size_t>(hp->n_layer), 0);  // its latent attention has no rope
  // The decay input's rank, from the first KDA layer's ssm_f_a ([n_embd, rank]).
  for (int l = 0; l < hp->n_layer && hp->kda_rank == 0; ++l) {
    if (!hp->layer_is_recurrent(l)) continue;
    const std::string name = "blk." + std::to_string(l) + ".ssm_f_a.weight";
    const GgufTensor* t = gguf.find_tensor(name);
    if (t == nullptr) return Status::NotFound(f + ": missing tensor " + name);
    if (t->dims.size() != 2 || t->dims[1] == 0 || t->dims[1] > static_cast<uint64_t>(kMaxSsmHeadDim)) {
      return Status::Corrupt(f + ": tensor " + name + " must be [n_embd, rank] with 0 < rank <= " +
                             std::to_string(kMaxSsmHeadDim));
    }
    hp->kda_rank = static_cast<int>(t->dims[1]);
  }
  return Status::Ok();
}

}  // namespace strata
