// ModelSpec: the shape of a transformer to generate (dense llama, qwen2, qwen3, gemma2, gemma3, phi3 or glm4, or a
// mixture-of-experts qwen2moe, qwen3moe, Mixtral, gpt-oss or glm4moe), and the named presets `strata mkmodel
// --preset` offers. Plain values; pure functions.
//
// Invariant of a preset's spec: n_expert > 0 exactly for the MoE archs; Mixtral is written as
// GGUF arch "llama" with experts (as llama.cpp's converter does), so arch holds "llama" then.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace strata {

struct ModelSpec {
  // The GGUF architecture: "llama", "qwen2", "qwen3", "gemma3", "qwen2moe", "qwen3moe", "gpt-oss", "glm4moe"
  // (Mixtral: "llama" with n_expert > 0). Decides biases, QK-norm, rope layout and the expert keys written.
  std::string arch = "llama";
  std::string preset;
  int n_vocab = 0;   // from the vocabulary when one is given
  int n_ctx = 0;
  int n_embd = 0;
  int n_layer = 0;   // transformer layers run (glm4moe writes n_nextn more blocks after them)
  int n_head = 0;
  int n_head_kv = 0;
  int head_dim = 0;
  int n_ff = 0;      // <arch>.feed_forward_length (Mixtral: the expert width, = n_ff_exp)
  // Mixture of experts (0 for dense): each layer's feed-forward is n_expert experts of width
  // n_ff_exp chosen n_expert_used at a time by a router, plus a shared expert of width
  // n_ff_shexp when that is > 0 (qwen2moe, and glm4moe, whose width is n_expert_shared = n_ff_shexp /
  // n_ff_exp experts').
  int n_expert = 0;
  int n_expert_used = 0;
  int n_ff_exp = 0;
  int n_ff_shexp = 0;
  float rms_eps = 1e-5f;
  float rope_freq_base = 10000.0f;
  bool tied_embeddings = false;  // no output.weight
  bool qk_norm = false;          // qwen3: blk.N.attn_q_norm / attn_k_norm
  bool qkv_bias = false;         // qwen2: blk.N.attn_{q,k,v}.bias
  // gemma3: blk.N.post_attention_norm / post_ffw_norm, and <arch>.attention.sliding_window
  // (the arch also sets qk_norm and tied_embeddings).
  bool post_norms = false;
  int sliding_window = 0;
  float rope_linear_factor = 1.0f;  // != 1: <arch>.rope.scaling.type linear with this factor
  // gpt-oss: attention sinks, biases on the attention output, the router and the experts,
  // the feed-forward norm written as post_attention_norm, and (with qkv_bias, sliding_window)
  // q/k/v biases and a window in every other layer.
  bool gpt_oss = false;
  // != 1: <arch>.rope.scaling.type yarn with this factor, the original context n_ctx / factor.
  float rope_yarn_factor = 1.0f;
  // llama only: a Llama 3.1-style rope_freqs.weight (rope_factors.h), with the preset's
  // n_ctx standing for the original training context.
  bool rope_freqs = false;
  // phi3: q/k/v as one blk.N.attn_qkv, gate and up as one blk.N.ffn_up (gate rows first), and
  // <arch>.attention.sliding_window written even when 0 (none), as Phi-4's files have it.
  bool phi3 = false;
  // gemma2: Gemma 3's post-norms and tied embeddings without QK-norm, a window in every other
  // layer, and <arch>.attn_logit_softcapping / final_logit_softcapping (Gemma 2's 50 and 30).
  bool gemma2 = false;
  // glm4 (GLM-4-0414): q/k/v biases, post-norms (untied output), gate and up as one
  // blk.N.ffn_up (gate rows first), and rope over half of each head (on adjacent pairs).
  bool glm4 = false;
  // glm4moe (GLM-4.5): q/k/v biases, the feed-forward norm written as post_attention_norm, the
  // first n_dense_lead blocks a dense feed-forward of width n_ff, the others experts with a
  // router selection bias (blk.N.exp_probs_b.bias, sigmoid gating) and a shared expert without
  // a gate; partial rotary (rope.dimension_count head_dim / 2, NeoX); and n_nextn NextN
  // (multi-token prediction) blocks after the n_layer, MoE blocks with nextn.* tensors of their
  // own, which the forward pass does not run. block_count = n_layer + n_nextn.
  bool glm4moe = false;
  // llama4 (Llama 4): experts in every moe_layer_step-th layer (dense layers of width n_ff
  // between), a shared expert of the expert width without a gate, and the keys of its attention
  // (<arch>.attention.chunk_size 8192, use_qk_norm; no rope in every 4th layer is the arch's).
  bool llama4 = false;
  int moe_layer_step = 1;
  int n_dense_lead = 0;
  int n_nextn = 0;
  float expert_weights_scale = 1.0f;
};

std::vector<std::string> model_preset_names();
// The preset's shape for arch; an empty arch takes the preset's own (qwen3 for qwen3-0.6b,
// qwen3moe for moe-tiny and qwen3-30b-a3b, mixtral for mixtral-8x7b, gemma3 for gemma3-1b and
// gemma3-4b, gemma2 for gemma2-2b, phi3 for phi-4, glm4moe for glm-4.5-air, llama otherwise). arch
// is an --arch name: llama, qwen2, qwen3, gemma2, gemma3, phi3, glm4, smollm3 for the dense presets; qwen2moe,
// qwen3moe, mixtral, gpt-oss or glm4moe for the MoE ones (a mismatch is an error naming the
// presets that fit). The arch sets qk_norm / qkv_bias, and for MoE archs which expert widths
// exist; another MoE preset as glm4moe gets a shared expert of its expert width, one leading
// dense block of its n_ff (its dense width) and one NextN block.
Result<ModelSpec> model_preset(std::string_view arch, std::string_view preset);
bool is_moe_arch_name(std::string_view arch);  // qwen2moe, qwen3moe, mixtral, gpt-oss, glm4moe
// Blocks written: n_layer plus glm4moe's NextN blocks (<arch>.block_count).
int block_count(const ModelSpec& spec);

}  // namespace strata
