#include "modelgen/spec_checks.h"

#include <algorithm>
#include <string>

#include "modelgen/model_spec.h"

namespace strata {
namespace {

// The leading dense blocks and the shared expert (a whole number of experts) of glm4moe and
// deepseek2.
Status check_lead_and_shared(const ModelSpec& s) {
  if (s.n_dense_lead < 0 || s.n_dense_lead > s.n_layer) {
    return Status::InvalidArgument("leading_dense_block_count " + std::to_string(s.n_dense_lead) + " must be 0.." +
                                   std::to_string(s.n_layer) + " (the layer count)");
  }
  if (s.n_ff_shexp % s.n_ff_exp != 0) {
    return Status::InvalidArgument(s.arch + "'s shared expert width " + std::to_string(s.n_ff_shexp) +
                                   " must be a whole number of experts of " + std::to_string(s.n_ff_exp));
  }
  return Status::Ok();
}

// glm4moe's leading dense blocks, shared expert and NextN blocks.
Status check_glm4moe(const ModelSpec& s) {
  if (!s.glm4moe) {
    if ((s.n_dense_lead != 0 && !s.deepseek2 && !s.ernie_moe && !s.step35 && !s.laguna && !s.cohere2_moe &&
         !s.minimax_m3 && !s.mimo2 && !(s.lfm2 && s.n_expert > 0)) ||
        (s.n_nextn != 0 && !s.glm_dsa)) {
      return Status::InvalidArgument("leading dense and NextN blocks are for glm4moe models, not " + s.arch);
    }
    return Status::Ok();
  }
  if (s.n_nextn < 0) return Status::InvalidArgument("nextn_predict_layers must not be negative");
  STRATA_RETURN_IF_ERROR(check_lead_and_shared(s));
  if (s.head_dim % 4 != 0) {
    return Status::InvalidArgument("glm4moe rotates half of each head: head_dim must be a multiple of 4");
  }
  return Status::Ok();
}

// deepseek2's latent attention (model_spec.h) and its experts: at least one shared expert (llama.cpp
// writes the shared expert's tensors in every MoE block).
Status check_deepseek2(const ModelSpec& s) {
  if (!s.deepseek2) {
    if (s.q_lora_rank != 0 || s.kv_lora_rank != 0 || s.split_kv_b || (!s.mimo2 && (s.rope_dim != 0 || s.v_head_dim != 0))) {
      return Status::InvalidArgument("latent attention (q/kv_lora_rank, a split attn_kv_b) is for deepseek2 models, "
                                     "not " + s.arch);
    }
    return Status::Ok();
  }
  if (s.q_lora_rank < 0 || s.kv_lora_rank <= 0 || s.v_head_dim <= 0 || s.rope_dim <= 0 || s.rope_dim % 2 != 0 ||
      s.rope_dim >= s.head_dim) {
    return Status::InvalidArgument("deepseek2 needs kv_lora_rank > 0, value heads > 0, q_lora_rank >= 0 and an even "
                                   "rope width under the key head width " + std::to_string(s.head_dim));
  }
  if (s.n_head_kv != s.n_head) {
    return Status::InvalidArgument("deepseek2 has one latent K/V head per query head: head_count_kv must be " +
                                   std::to_string(s.n_head));
  }
  if (s.n_ff_shexp <= 0) return Status::InvalidArgument("deepseek2 needs a shared expert (expert_shared_count >= 1)");
  return check_lead_and_shared(s);
}

// Qwen3.5's hybrid layers (model_spec.h): for qwen35, qwen35moe and qwen3next only, with QK-norm,
// heads whose quarter rope rotates in pairs, and at least one attending layer.
Status check_hybrid(const ModelSpec& s) {
  const bool qwen35 = s.arch == "qwen35" || s.arch == "qwen35moe" || s.arch == "qwen3next";
  if (s.full_attn_interval == 0) {
    if (qwen35) return Status::InvalidArgument(s.arch + " needs its delta-net layers (full_attn_interval > 0)");
    return Status::Ok();
  }
  if (!qwen35) {
    return Status::InvalidArgument("delta-net layers are for qwen35, qwen35moe and qwen3next models, not " + s.arch);
  }
  if (s.full_attn_interval < 2 || s.ssm_conv_kernel < 2 || s.ssm_n_k_heads <= 0 || s.ssm_head_k_dim <= 0 ||
      s.ssm_n_v_heads <= 0 || s.ssm_head_v_dim <= 0 || s.ssm_n_v_heads % s.ssm_n_k_heads != 0) {
    return Status::InvalidArgument(s.arch + " needs an attention interval >= 2, a convolution of >= 2 taps, and "
                                            "value heads a multiple of its key heads");
  }
  if (!s.qk_norm || s.head_dim % 8 != 0) {
    return Status::InvalidArgument(s.arch + " has QK-norm and rotates a quarter of each head in pairs: head_dim must "
                                            "be a multiple of 8");
  }
  if (s.n_layer < s.full_attn_interval) {
    return Status::InvalidArgument(s.arch + " attends in every " + std::to_string(s.full_attn_interval) +
                                   "th layer: " + std::to_string(s.n_layer) + " layers leave none (use " +
                                   std::to_string(s.full_attn_interval) + " or more)");
  }
  return Status::Ok();
}

// The Mamba-2 layers' shapes of a granitehybrid or nemotron_h spec: without Qwen3.5's interval, with
// heads that split evenly over the groups.
Status check_mamba2_shapes(const ModelSpec& s) {
  if (s.full_attn_interval != 0) {
    return Status::InvalidArgument(s.arch + "'s layers attend where head_count_kv says, not every "
                                            "full_attn_interval-th: it must be 0");
  }
  if (s.ssm_conv_kernel < 2 || s.ssm_n_k_heads <= 0 || s.ssm_head_k_dim <= 0 || s.ssm_n_v_heads <= 0 ||
      s.ssm_head_v_dim <= 0 || s.ssm_n_v_heads % s.ssm_n_k_heads != 0) {
    return Status::InvalidArgument(s.arch + " needs a convolution of >= 2 taps, a state size, heads and groups "
                                            "> 0, and heads (time_step_rank " + std::to_string(s.ssm_n_v_heads) +
                                   ") a multiple of the groups (group_count " + std::to_string(s.ssm_n_k_heads) + ")");
  }
  return Status::Ok();
}

// Granite 4.0-H's Mamba-2 layers (model_spec.h): for granitehybrid only. Every layer count keeps an
// attending layer (granite_layer_attends()), which llama.cpp and Strata need.
Status check_mamba2(const ModelSpec& s) {
  if (s.mamba2 != (s.arch == "granitehybrid")) {
    return Status::InvalidArgument("Mamba-2 layers (ModelSpec::mamba2) go with arch granitehybrid, not " + s.arch);
  }
  return s.mamba2 ? check_mamba2_shapes(s) : Status::Ok();
}

// Nemotron-H's layers (model_spec.h): for nemotron_h and nemotron_h_moe only, a pattern of Mamba-2
// ('M'), attention ('*') and feed-forward layers ('-' without experts, 'E' with them), and Mamba-2
// shapes. nemotron_layer_pattern() gives every layer count an attending layer.
Status check_nemotron_h(const ModelSpec& s) {
  const bool arch = s.arch == "nemotron_h" || s.arch == "nemotron_h_moe";
  if (s.nemotron_h != arch || (!s.lfm2 && !s.kda && s.layer_pattern.empty() == arch)) {
    return Status::InvalidArgument("Nemotron-H's layer pattern (ModelSpec::nemotron_h, layer_pattern) goes with arch "
                                   "nemotron_h or nemotron_h_moe, not " + s.arch);
  }
  if (!arch) return Status::Ok();
  const std::string kinds = s.n_expert > 0 ? "M*E" : "M*-";
  if (s.layer_pattern.find_first_not_of(kinds) != std::string::npos) {
    return Status::InvalidArgument(s.arch + "'s layer pattern '" + s.layer_pattern + "' may hold only " + kinds +
                                   " ('M' Mamba-2, '*' attention, '" + kinds.substr(2) + "' " +
                                   (s.n_expert > 0 ? "experts)" : "feed-forward)"));
  }
  return check_mamba2_shapes(s);
}

// LFM2's layers (model_spec.h): for lfm2 and lfm2moe only, a pattern of short convolutions ('C') and
// attention ('*') over a convolution of 2 or more taps without other recurrent shapes, QK-norm (which
// llama.cpp requires), and leading dense layers only before experts, within the layers.
Status check_lfm2(const ModelSpec& s) {
  const bool arch = s.arch == "lfm2" || s.arch == "lfm2moe";
  if (s.lfm2 != arch) {
    return Status::InvalidArgument("LFM2's short convolutions (ModelSpec::lfm2) go with arch lfm2 or lfm2moe, not " +
                                   s.arch);
  }
  if (!arch) return Status::Ok();
  if (s.layer_pattern.empty() || s.layer_pattern.find_first_not_of("C*") != std::string::npos) {
    return Status::InvalidArgument(s.arch + "'s layer pattern '" + s.layer_pattern +
                                   "' must hold only C* ('C' short convolution, '*' attention)");
  }
  if (s.ssm_conv_kernel < 2 || s.full_attn_interval != 0 || s.ssm_n_k_heads != 0 || s.ssm_head_k_dim != 0 ||
      s.ssm_n_v_heads != 0 || s.ssm_head_v_dim != 0) {
    return Status::InvalidArgument(s.arch + " needs a short convolution of >= 2 taps (shortconv.l_cache) and no "
                                            "delta-net or Mamba-2 shapes");
  }
  if (!s.qk_norm) return Status::InvalidArgument(s.arch + "'s attention has QK-norm: qk_norm must be set");
  const int max_lead = s.n_expert > 0 ? s.n_layer : 0;
  if (s.n_dense_lead < 0 || s.n_dense_lead > max_lead) {
    return Status::InvalidArgument("leading_dense_block_count " + std::to_string(s.n_dense_lead) + " must be 0.." +
                                   std::to_string(max_lead) + " (dense layers lead experts only)");
  }
  return Status::Ok();
}

// OLMo 2's, EXAONE 4.0's and OLMoE's layers (model_spec.h): the post-norm-only layout for olmo2 and
// exaone4 only, with post-norms; QK-norm, which llama.cpp requires of all three (and of apertus and
// hunyuan-dense, llama's attention with it); EXAONE's llama3 rope_freqs
// for exaone4, exaone and arcee only, over a positive original context; AFM-4.5B's YaRN original context
// for arcee only.
Status check_post_norm_layers(const ModelSpec& s) {
  if (s.olmo2 != (s.arch == "olmo2") || s.exaone4 != (s.arch == "exaone4")) {
    return Status::InvalidArgument("the post-norm-only layers (ModelSpec::olmo2, exaone4) go with arch olmo2 or "
                                   "exaone4 of the same name, not " + s.arch);
  }
  const bool qk_norm_arch =
      s.olmo2 || s.exaone4 || s.arch == "olmoe" || s.arch == "apertus" || s.arch == "hunyuan-dense";
  if (qk_norm_arch && !s.qk_norm) {
    return Status::InvalidArgument(s.arch + "'s attention has QK-norm: qk_norm must be set");
  }
  if ((s.olmo2 || s.exaone4) && !s.post_norms) {
    return Status::InvalidArgument(s.arch + " norms after attention and feed-forward: post_norms must be set");
  }
  const bool llama3_arch = s.exaone4 || s.arch == "exaone" || s.arch == "arcee";
  if (s.rope_freqs_factor != 0.0f && (!llama3_arch || !(s.rope_freqs_factor >= 1.0f) || s.rope_freqs_orig_ctx <= 0)) {
    return Status::InvalidArgument("rope_freqs_factor (EXAONE's llama3 rope scaling) is for exaone4, exaone and arcee "
                                   "models, with a factor >= 1 over a positive original context, not " + s.arch);
  }
  if (s.rope_yarn_orig_ctx != 0 && (s.arch != "arcee" || s.rope_yarn_orig_ctx < 0 || s.rope_yarn_factor == 1.0f)) {
    return Status::InvalidArgument("a YaRN original context of its own (rope_yarn_orig_ctx) is for arcee models with "
                                   "YaRN, and positive, not " + s.arch);
  }
  return Status::Ok();
}

// Falcon-H1's layers (model_spec.h): for falcon-h1 only, every layer's Mamba-2 mixer of heads that split
// evenly over the groups.
Status check_falcon_h1(const ModelSpec& s) {
  if (s.falcon_h1 != (s.arch == "falcon-h1")) {
    return Status::InvalidArgument("Falcon-H1's layers (ModelSpec::falcon_h1) go with arch falcon-h1, not " + s.arch);
  }
  return s.falcon_h1 ? check_mamba2_shapes(s) : Status::Ok();
}

// BitNet b1.58's layers (model_spec.h): for bitnet and bitnet-b1.58 only, tied (llama.cpp's bitnet reads
// token_embd as the output, so an output matrix would be Strata's alone), bitnet-b1.58's gate relu^2 (its
// arch's; the file cannot say otherwise).
Status check_bitnet(const ModelSpec& s) {
  if (s.bitnet != (s.arch == "bitnet" || s.arch == "bitnet-b1.58") || (s.bitnet_relu2 && !s.bitnet)) {
    return Status::InvalidArgument("BitNet's layers (ModelSpec::bitnet, bitnet_relu2) go with arch bitnet or "
                                   "bitnet-b1.58, not " + s.arch);
  }
  if (s.bitnet && !s.tied_embeddings) {
    return Status::InvalidArgument(s.arch + " reads token_embd as its output matrix: tied_embeddings must be set");
  }
  if (s.arch == "bitnet-b1.58" && !s.bitnet_relu2) {
    return Status::InvalidArgument("bitnet-b1.58 gates by relu^2 (its arch's): bitnet_relu2 must be set");
  }
  return Status::Ok();
}

// Gemma 3n's layers (model_spec.h): for gemma3n only, with Gemma 3's attention parts, a window, per-layer
// inputs, a laurel branch and sparse layers within the layers; its shared K/V layers leave the first
// full layer its own (gemma4_layer_slides()'s last layer is full, so every shared layer has an earlier
// layer of its kind to read, the first gemma4_period layers holding both kinds).
Status check_gemma3n(const ModelSpec& s) {
  if (s.gemma3n != (s.arch == "gemma3n") || (!s.gemma3n && (s.laurel_rank != 0 || s.n_sparse_layers != 0))) {
    return Status::InvalidArgument("Gemma 3n's AltUp layers (ModelSpec::gemma3n, laurel_rank, n_sparse_layers) go "
                                   "with arch gemma3n, not " + s.arch);
  }
  if (!s.gemma3n) return Status::Ok();
  if (!s.qk_norm || !s.post_norms || !s.tied_embeddings || s.sliding_window <= 0 || s.gemma4_period < 2) {
    return Status::InvalidArgument("gemma3n has QK-norm, post-norms, tied embeddings and a window over all but "
                                   "every gemma4_period-th (>= 2) layer");
  }
  if (s.n_embd_per_layer <= 0 || s.laurel_rank <= 0 || s.n_sparse_layers < 0 || s.n_sparse_layers > s.n_layer ||
      s.double_wide_shared) {
    return Status::InvalidArgument("gemma3n needs per-layer inputs and a laurel rank > 0, sparse layers 0.." +
                                   std::to_string(s.n_layer) + ", and shared layers as wide as the others");
  }
  const int max_shared = std::max(0, s.n_layer - s.gemma4_period);
  if (s.n_shared_kv_layers < 0 || s.n_shared_kv_layers > max_shared) {
    return Status::InvalidArgument("gemma3n's shared K/V layers (" + std::to_string(s.n_shared_kv_layers) +
                                   ") must be 0.." + std::to_string(max_shared) + ": the first " +
                                   std::to_string(s.gemma4_period) + " layers keep their own");
  }
  return Status::Ok();
}

// Ling 3.0's and Kimi Linear's layers (model_spec.h): for bailingmoe3 and kimi-linear only, a pattern of
// KDA ('K') and latent attention ('*') layers, KDA heads of 1..512 (the most Strata reads) over 2 or more
// taps without Qwen3.5's interval, decay and gate inputs through a rank of 1..512 for kimi-linear alone
// (bailingmoe3's are full), and expert groups (bailingmoe3's alone) that hold the experts used.
Status check_kda(const ModelSpec& s) {
  constexpr int kMaxHead = 512;
  const bool arch = s.arch == "bailingmoe3" || s.arch == "kimi-linear";
  if (s.kda != arch || (!arch && s.kda_rank != 0)) {
    return Status::InvalidArgument("Kimi Delta Attention layers (ModelSpec::kda) go with arch bailingmoe3 or "
                                   "kimi-linear, not " + s.arch);
  }
  if (s.n_expert_groups != 0 && (s.arch != "bailingmoe3" || s.n_expert_groups_used < 1 ||
                                 s.n_expert_groups_used > s.n_expert_groups || s.n_expert % s.n_expert_groups != 0 ||
                                 s.n_expert_groups_used * (s.n_expert / s.n_expert_groups) < s.n_expert_used)) {
    return Status::InvalidArgument("expert groups are bailingmoe3's, dividing expert_count, the groups used holding "
                                   "expert_used_count experts or more");
  }
  if (!arch) return Status::Ok();
  if (s.layer_pattern.empty() || s.layer_pattern.find_first_not_of("K*") != std::string::npos) {
    return Status::InvalidArgument(s.arch + "'s layer pattern '" + s.layer_pattern +
                                   "' must hold only K* ('K' Kimi Delta Attention, '*' latent attention)");
  }
  if (s.ssm_conv_kernel < 2 || s.ssm_head_v_dim < 1 || s.ssm_head_v_dim > kMaxHead || s.full_attn_interval != 0) {
    return Status::InvalidArgument(s.arch + " needs KDA heads of 1.." + std::to_string(kMaxHead) +
                                   " (kda.head_dim) over a convolution of >= 2 taps, and no full_attn_interval");
  }
  if ((s.arch == "kimi-linear") != (s.kda_rank > 0) || s.kda_rank > kMaxHead) {
    return Status::InvalidArgument("kimi-linear's decay and gate inputs go through a rank of 1.." +
                                   std::to_string(kMaxHead) + " (kda_rank), bailingmoe3's through none");
  }
  return Status::Ok();
}

Status check_experts(const ModelSpec& s) {
  const bool moe_arch = s.arch != "llama" && is_moe_arch_name(s.arch);
  if (s.n_expert == 0) {
    // Granite 4.0-H comes dense too (Micro).
    if (moe_arch && s.arch != "granitehybrid") return Status::InvalidArgument(s.arch + " needs experts (n_expert > 0)");
    return Status::Ok();
  }
  // Mixtral is llama with experts; Gemma 4 comes both ways.
  if (!moe_arch && s.arch != "llama" && !s.gemma4) {
    return Status::InvalidArgument(s.arch + " has no experts (n_expert must be 0)");
  }
  if (s.n_expert < 0 || s.n_expert_used <= 0 || s.n_expert_used > s.n_expert) {
    return Status::InvalidArgument("expert_used_count " + std::to_string(s.n_expert_used) + " must be 1.." +
                                   std::to_string(s.n_expert) + " (expert_count)");
  }
  if (s.n_ff_exp <= 0 || s.n_ff_shexp < 0) return Status::InvalidArgument("expert width must be positive");
  if (s.n_ff_shexp > 0 && s.arch != "qwen2moe" && s.arch != "glm4moe" && s.arch != "llama4" && !s.deepseek2 &&
      !s.ernie_moe && !s.step35 && !s.laguna && !s.minimax_m3 && s.arch != "hunyuan-moe" && s.arch != "qwen35moe" &&
      s.arch != "qwen3next" && !s.mamba2 && !s.nemotron_h) {
    return Status::InvalidArgument("a shared expert is for qwen2moe, glm4moe, llama4, deepseek2, mistral4, "
                                   "ernie4_5-moe, step35, laguna, minimax-m3, hunyuan-moe, qwen35moe, qwen3next, "
                                   "granitehybrid and nemotron_h_moe models, not " + s.arch);
  }
  if ((s.sigmoid_routing || s.expert_weights_norm) && !s.glm4moe && !s.deepseek2 && !s.minimax_m2 && !s.minimax_m3 &&
      !s.ernie_moe && !s.step35 && !s.laguna && !s.mimo2 && !s.nemotron_h && !s.lfm2) {
    return Status::InvalidArgument("sigmoid routing with a selection bias and expert_weights_norm are for glm4moe, "
                                   "deepseek2, minimax-m2, minimax-m3, ernie4_5-moe, step35, laguna, mimo2, "
                                   "nemotron_h_moe and lfm2moe models, not " +
                                   s.arch);
  }
  if (s.moe_layer_step < 1 || (s.moe_layer_step > 1 && !s.llama4 && !s.ernie_moe)) {
    return Status::InvalidArgument("interleave_moe_layer_step " + std::to_string(s.moe_layer_step) +
                                   " must be 1, or more for llama4 and ernie4_5-moe models");
  }
  return Status::Ok();
}

// MiMo-V2's heads (model_spec.h): value heads no wider than key heads, an even rotated width
// within the head, and full-layer K/V heads that divide the query heads.
Status check_mimo2(const ModelSpec& s) {
  if (!s.mimo2) return Status::Ok();
  if (s.v_head_dim <= 0 || s.v_head_dim > s.head_dim || s.rope_dim < 2 || s.rope_dim % 2 != 0 ||
      s.rope_dim > s.head_dim) {
    return Status::InvalidArgument("mimo2 needs value heads of 1.." + std::to_string(s.head_dim) +
                                   " (the key head) and an even rotated width of 2.." + std::to_string(s.head_dim));
  }
  if (s.n_head_kv_full <= 0 || s.n_head % s.n_head_kv_full != 0 || s.sliding_window <= 0) {
    return Status::InvalidArgument("mimo2 needs full-layer K/V heads that divide head_count " +
                                   std::to_string(s.n_head) + " and a sliding window");
  }
  return Status::Ok();
}

}  // namespace

Status check_spec(const ModelSpec& s) {
  if (s.n_vocab <= 0 || s.n_embd <= 0 || s.n_layer <= 0 || s.n_head <= 0 || s.n_head_kv <= 0 || s.head_dim <= 0 ||
      s.n_ff <= 0 || s.n_ctx <= 0) {
    return Status::InvalidArgument("model shape has a non-positive size");
  }
  if (s.n_head % s.n_head_kv != 0) {
    return Status::InvalidArgument("head_count " + std::to_string(s.n_head) + " is not a multiple of head_count_kv " +
                                   std::to_string(s.n_head_kv));
  }
  if (s.head_dim % 2 != 0) return Status::InvalidArgument("head_dim must be even for rope");
  if (s.rope_freqs && s.arch != "llama") {
    return Status::InvalidArgument("rope_freqs (Llama 3.1 rope frequency factors) is for llama models, not " + s.arch);
  }
  if (s.glm4moe != (s.arch == "glm4moe")) {
    return Status::InvalidArgument("glm4moe's layout (ModelSpec::glm4moe) goes with arch glm4moe, not " + s.arch);
  }
  if (s.ernie_moe != (s.arch == "ernie4_5-moe")) {
    return Status::InvalidArgument("ernie4_5-moe's layout (ModelSpec::ernie_moe) goes with arch ernie4_5-moe, not " + s.arch);
  }
  if (s.minimax_m2 != (s.arch == "minimax-m2")) {
    return Status::InvalidArgument("minimax-m2's layout (ModelSpec::minimax_m2) goes with arch minimax-m2, not " + s.arch);
  }
  if (s.minimax_m2 && s.head_dim % 4 != 0) {
    return Status::InvalidArgument("minimax-m2 rotates half of each head: head_dim must be a multiple of 4");
  }
  const bool latent_arch = s.arch == "deepseek2" || s.arch == "mistral4" || s.arch == "glm-dsa" ||
                           s.arch == "bailingmoe3" || s.arch == "kimi-linear";
  if (s.deepseek2 != latent_arch || s.mistral4 != (s.arch == "mistral4") || s.glm_dsa != (s.arch == "glm-dsa")) {
    return Status::InvalidArgument("deepseek2's layout (ModelSpec::deepseek2) goes with arch deepseek2, mistral4, "
                                   "glm-dsa, bailingmoe3 or kimi-linear, not " + s.arch);
  }
  if (s.glm_dsa && (s.indexer_n_head <= 0 || s.indexer_head_dim <= 0 || s.indexer_top_k <= 0 || s.q_lora_rank <= 0 ||
                    s.n_nextn < 0)) {
    return Status::InvalidArgument("glm-dsa needs an indexer (heads, head width and top_k > 0) reading a query latent "
                                   "(q_lora_rank > 0)");
  }
  if (s.fused_gate_up_exps && s.n_expert == 0) {
    return Status::InvalidArgument("fused ffn_gate_up_exps needs experts");
  }
  STRATA_RETURN_IF_ERROR(check_experts(s));
  STRATA_RETURN_IF_ERROR(check_hybrid(s));
  STRATA_RETURN_IF_ERROR(check_mamba2(s));
  STRATA_RETURN_IF_ERROR(check_nemotron_h(s));
  STRATA_RETURN_IF_ERROR(check_lfm2(s));
  STRATA_RETURN_IF_ERROR(check_post_norm_layers(s));
  STRATA_RETURN_IF_ERROR(check_falcon_h1(s));
  STRATA_RETURN_IF_ERROR(check_bitnet(s));
  STRATA_RETURN_IF_ERROR(check_gemma3n(s));
  STRATA_RETURN_IF_ERROR(check_kda(s));
  // After check_experts: a glm4moe or deepseek2 spec has experts of positive width.
  STRATA_RETURN_IF_ERROR(check_glm4moe(s));
  STRATA_RETURN_IF_ERROR(check_mimo2(s));
  return check_deepseek2(s);
}

}  // namespace strata
