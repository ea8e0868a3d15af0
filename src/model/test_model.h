// Test support: small random dense models of each architecture and weight type, written to
// a GGUF file with GgufWriter, so model tests need no downloaded weights.
//
// Shapes default to the smallest that every weight type accepts (K-quants need widths that
// are multiples of 256). Weights are uniform with variance 1/n_in, norms near 1, so
// activations stay O(1) through the layers and logits are well spread. Deterministic for a
// given spec. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_value.h"
#include "tensor/dtype.h"

namespace strata::testing {

struct TestModelSpec {
  // llama | qwen2 | qwen3 (qwen3: tied embeddings, QK-norm), or a mixture of experts:
  // mixtral (a llama file with experts) | qwen2moe (biases, shared expert) | qwen3moe (QK-norm),
  // or gemma3 (tied embeddings, QK-norm, post-norms, GELU; layers slide over sliding_window
  // keys except every 6th, so n_layer >= 6 has a global one), or gpt-oss (experts with
  // biases and the clamped SwiGLU, q/k/v/output biases, attention sinks; even layers slide
  // over sliding_window keys; YaRN when rope_yarn_factor != 1), or gemma2 (gemma3 without
  // QK-norm, even layers sliding on the global rope, soft caps attn_softcap and final_softcap), or phi3 (one attn_qkv tensor,
  // gate and up in one ffn_up, every layer slides over sliding_window keys, 0 for none), or
  // glm4 (q/k/v biases, rope on adjacent pairs over half of each head unless n_rot says
  // otherwise, Gemma's post-norms, gate and up in one ffn_up), or
  // glm4moe (q/k/v biases, rope over half of each head unless n_rot says otherwise,
  // n_dense_lead dense layers of width n_ff, then experts chosen by sigmoid gate values plus a
  // selection bias (exp_probs_b), weighted times expert_weights_scale, and an ungated shared
  // expert of width n_ff_exp; one NextN block after the n_layer, which the forward pass skips),
  // or smollm3 (llama with no rope in every 4th layer; the same tensors and weights as llama),
  // or llama4 (every 4th layer without rope, q scaled there by attn_temp_scale over
  // attn_temp_length positions; the others attend within chunks of attn_chunk keys and L2-norm
  // q and k when qk_l2_norm; experts, by sigmoid weights on their input, in every
  // moe_layer_step-th layer, dense layers of width n_ff between; an ungated shared expert), or
  // deepseek2 (Multi-head Latent Attention of mla_kv_rank latent values, queries of mla_nope
  // values plus n_rot (32 unless set) rotated ones, through a compression of mla_q_rank when > 0,
  // values of mla_v; the per-head maps as attn_kv_b, or as attn_k_b / attn_v_b when mla_split;
  // n_dense_lead dense layers, then experts by expert_gating_func (2: sigmoid plus a selection
  // bias, weights renormalised, times expert_weights_scale; 1: softmax, weights as they are) and
  // an ungated shared expert of width n_ff_exp), or minimax-m3 (glm4moe's expert layout
  // without biases or a NextN block: QK-norm head by head, NeoX rope over half of each head unless
  // n_rot says otherwise, gpt-oss's clamped SwiGLU in every feed-forward), or minimax-m2 (QK-norm over each whole q and k
  // row, rope over half of each head unless n_rot says otherwise, experts by expert_gating_func
  // (2: sigmoid plus a selection bias) renormalised, no shared expert), or mistral4 (Mistral Small
  // 4: deepseek2's tensors in the mla_split layout with the experts as one ffn_gate_up_exps, and no
  // expert_gating_func key: softmax, weights renormalised), or hunyuan-moe (qwen3moe's tensors with
  // an ungated shared expert of n_ff_shexp; QK-norm after the rotation), or step35, laguna or
  // mimo2 (test_model_step35.cc), or glm-dsa (deepseek2's tensors in the mla_split layout, routing
  // by expert_gating_func, one NextN block, and a sparse-attention indexer's keys and tensors,
  // written after the others without seeds), or deci (test_model_deci.cc: Nemotron's layers without
  // attention, with attn_output alone, or without a feed-forward). Matrices whose width the type
  // cannot hold are F16. mistral3: llama's tensors, with attention.temperature_scale
  // attn_temp_scale (over rope_yarn_orig_ctx when rope_yarn_factor != 1 writes YaRN, else n_ctx),
  // rope.scaling.yarn_log_multiplier rope_yarn_log_mul and the YaRN betas written. ernie4_5: llama's
  // tensors. ernie4_5-moe: n_dense_lead dense layers of width n_ff, then experts in every
  // moe_layer_step-th layer (dense ones between), chosen by softmax probability plus a selection
  // bias (exp_probs_b), renormalised, beside an ungated shared expert of width n_ff_shexp.
  // qwen35 (tied embeddings) and qwen35moe (softmax routing renormalised, a shared expert of
  // width n_ff_shexp gated by a sigmoid): Qwen3.5's hybrid layers, every full_attn_interval-th
  // layer gated attention with QK-norm and NeoX rope over n_rot dims (head_dim / 4 unless set),
  // the others gated delta-net layers (test_model_hybrid.cc); the feed-forward norm stored as
  // post_attention_norm. qwen3next: qwen35moe with the delta-net projections fused per key head
  // (ssm_in, ssm_ba) and no full_attention_interval key when the interval is 4 (llama.cpp's
  // converter writes none). qwen2vl, qwen3vl, qwen3vlmoe: qwen2's, qwen3's and qwen3moe's tensors
  // with rope.dimension_sections in the real files' proportions (metadata_overrides may change them).
  // granite (tied embeddings) and granitemoe (Mixtral's experts, feed_forward_length their
  // width): llama's tensors with Granite 3.x 8B's multipliers (embedding 12, attention 1 / head
  // size, residual 0.22, logits / 8). seed_oss: llama's tensors with q/k/v biases, NeoX rope and
  // the feed-forward norm stored as post_attention_norm. bailingmoe2: glm4moe's expert layout
  // (without biases) with one attn_qkv, QK-norm and routing within 2 of 4 expert groups. dots1:
  // glm4moe's expert layout without biases or a NextN block, with QK-norm and full NeoX rope.
  // granitehybrid (Granite 4.0-H Tiny / Small) and granitehybrid-dense (Micro; written as
  // granitehybrid): test_model_mamba2.cc's layers (layer l attends when l % full_attn_interval ==
  // full_attn_interval / 2, without rope; the others Mamba-2 over the ssm_* shapes: ssm_n_k_heads
  // groups of ssm_head_k_dim state values, ssm_n_v_heads heads of ssm_head_v_dim), Granite's
  // multipliers, and in granitehybrid softmax-routed experts (feed_forward_length their width)
  // beside an ungated shared expert of n_ff_shexp; 4 layers unless n_layer says otherwise.
  // nemotron_h (Nemotron-H, Nemotron Nano 2): test_model_mamba2.cc's layers, by l % 5 Mamba-2, a
  // squared-ReLU feed-forward of n_ff (ffn_up, ffn_down), attention without rope, Mamba-2, a
  // feed-forward, each under one attn_norm; 5 layers unless n_layer says otherwise. nemotron_h_moe
  // (Nemotron 3 Nano): the same with n_expert squared-ReLU experts of n_ff_exp (sigmoid routing with a
  // selection bias, renormalised, times 2.5) and a shared one of n_ff_shexp in the feed-forward layers.
  // lfm2 (Liquid LFM2): test_model_mamba2.cc's layers (short convolutions of ssm_conv_kernel - 1
  // taps where l % 3 != 2, attention with QK-norm and NeoX rope where it is 2), every layer a
  // SwiGLU feed-forward, tied embeddings, the final norm named token_embd_norm; 4 layers unless
  // n_layer says otherwise. lfm2moe (LFM2-8B-A1B): lfm2's with n_dense_lead dense layers, then
  // n_expert experts of n_ff_exp by sigmoid gate values plus a selection bias (exp_probs_b),
  // renormalised, no shared expert.
  // falcon-h1 (Falcon-H1): test_model_mamba2.cc's layers (Mamba-2 of the ssm_* shapes beside plain
  // attention, one attn_norm, ffn_norm named bare), an output matrix.
  // olmo2 (OLMo 2): llama's tensors without attn_norm or ffn_norm, with post_attention_norm and
  // post_ffw_norm, q/k norms over whole rows (q_dim, kv_dim wide), NeoX rope; metadata_overrides
  // may add OLMo 3's attention.sliding_window (and its pattern, rope.freq_base_swa).
  // exaone4 (EXAONE 4.0): olmo2's tensors with q/k norms per head (head_dim wide); 64 layers slide
  // (three of every four, window 4096 unless metadata_overrides say otherwise) with the fourth
  // without rope, as llama.cpp reads the 32B's.
  // bitnet (llama.cpp's BitNet files): llama's tensors, tied, with attn_sub_norm and ffn_sub_norm and
  // a one-number .scale beside each matrix; bitnet-b1.58 (Microsoft's 2B4T): the same without the
  // scales (its relu^2 gate from the arch).
  // apertus (Apertus): llama's tensors without ffn_gate, per-head q/k norms, NeoX rope, xielu.* values
  // per layer.
  // hunyuan-dense (Hunyuan 0.5B-7B): llama's tensors with per-head q/k norms (applied after rope).
  // exaone (EXAONE 3.5): llama's tensors, NeoX rope. arcee (Arcee AFM): llama's tensors without
  // ffn_gate (a squared-ReLU feed-forward).
  // olmoe (OLMoE): llama's tensors with q/k norms over whole rows, NeoX rope, n_expert experts of
  // n_ff_exp in every layer (feed_forward_length their width) by a softmax, weights unnormalised.
  // minicpm: llama's tensors, tied embeddings, no multiplier keys (the older files': the model's
  // own apply; metadata_overrides may write them).
  // cohere2: llama's tensors without ffn_norm (tied embeddings), layer norms of eps 1e-5,
  // parallel blocks, sliding_window keys in three of every four layers (the fourth without
  // rope) and the logits times 0.25. command-r: cohere2's without the window, with Command R+'s
  // per-head q/k norms (attn_q_norm of n_head rows of head_dim gains, attn_k_norm of n_head_kv).
  // cohere2_moe: cohere2's parallel blocks with RMS norms and an output matrix, sliding_window keys
  // in the layers l % 4 != 0, rope there and in the n_dense_lead dense layers, then experts by
  // sigmoid gate values used as they are (no shared expert), the logits times 0.25. gemma4: Gemma 3's tensors with the attention of
  // test_model_gemma4.cc (every third layer and the last full, with heads of head_dim_full, n_head_kv_full of
  // them, a quarter of their pairs rotated, and attn_v only when full_attn_v; the others sliding
  // over sliding_window keys), a layer_output_scale per layer and the logits soft-capped at
  // final_softcap; 4 layers unless n_layer says otherwise; n_embd_per_layer, n_shared_kv_layers
  // and double_wide_shared write the E2B / E4B's parts. gemma4-e2b: gemma4 with per-layer inputs of
  // 256, its last 2 of at least 6 layers sharing K/V (of 6: the sliding one the 4th layer's, the
  // full one the 3rd's) and twice as wide. gemma4-moe (written as gemma4): its
  // feed-forward the dense one of width n_ff beside n_expert experts of n_ff_exp (one fused
  // ffn_gate_up_exps, per-expert output scales, the router's input scale).
  std::string arch = "llama";
  DType type = DType::kF32;     // every matrix, unless mixed
  bool mixed = false;           // matrices cycle through all matmul types
  int n_embd = 256;
  int n_head = 4;
  int n_head_kv = 2;
  int head_dim = 0;             // 0: n_embd / n_head; else written as attention.key_length (qwen3-0.6b: 128)
  int n_ff = 512;
  int n_layer = 0;              // 0: 4 for qwen35(moe) (three delta-net layers, then attention), else 2
  // Mixture-of-experts archs: n_expert experts of width n_ff_exp, n_expert_used per token;
  // qwen2moe adds a shared expert of width n_ff_shexp.
  int n_expert = 8;
  int n_expert_used = 2;
  int n_ff_exp = 256;
  int n_ff_shexp = 256;
  bool fused_qkv = false;             // llama, glm4: q/k/v (and their biases) as one attn_qkv
  bool fused_gate_up_exps = false;    // any MoE arch: the experts' gate and up as one ffn_gate_up_exps
  int n_dense_lead = 1;               // glm4moe, deepseek2, ernie4_5-moe: leading_dense_block_count
  float expert_weights_scale = 2.5f;  // glm4moe only (GLM-4.5's routed_scaling_factor)
  int attn_chunk = 10;                // llama4 only: attention.chunk_size
  int attn_temp_length = 4;           // llama4 only: attention.temperature_length
  float attn_temp_scale = 0.5f;       // llama4 and mistral3 only: attention.temperature_scale
  bool qk_l2_norm = true;             // llama4 only: use_qk_norm
  int mla_kv_rank = 256;              // deepseek2 only
  int mla_q_rank = 256;
  int mla_nope = 64;
  int mla_v = 64;
  bool mla_split = false;
  bool kimi_latent_gate = false;      // kimi-linear only: an attn_gate (a value per head and channel) on its latent layers
  int expert_gating_func = 2;
  float rope_yarn_log_mul = 0.0f;     // deepseek2 and mistral3 only, with rope_yarn_factor
  float rope_yarn_beta_fast = 32.0f;  // mistral3 only
  float rope_yarn_beta_slow = 1.0f;
  int moe_layer_step = 1;             // llama4, ernie4_5-moe: interleave_moe_layer_step
  // qwen35, qwen35moe: <arch>.full_attention_interval (>= 1) and the delta-net layers' shapes
  // (ssm.conv_kernel, state_size, group_count, time_step_rank, inner_size = n_v_heads * head_v_dim).
  // Two value heads per key head, so value head h reading key head h % n_k_heads differs from
  // h / 2; ssm_out is 256 wide, which every weight type holds.
  int full_attn_interval = 4;
  int ssm_conv_kernel = 4;
  int ssm_head_k_dim = 64;
  int ssm_n_k_heads = 2;
  int ssm_n_v_heads = 4;
  int ssm_head_v_dim = 64;
  int n_vocab = 256;
  int n_ctx = 512;
  float rope_freq_base = 10000.0f;
  int sliding_window = 10;          // gemma2, gemma3, gpt-oss and phi3 only
  float attn_softcap = 50.0f;       // gemma2 only: written as attn_logit_softcapping
  float final_softcap = 30.0f;      // gemma2 and gemma4 only: final_logit_softcapping
  int head_dim_full = 128;          // gemma4 only: the full layers' heads
  int n_head_kv_full = 1;
  bool full_attn_v = false;
  float router_scale_factor = 1.0f;  // gemma4-moe only: ffn_gate_inp.scale times this
  // gemma4 only, E2B / E4B's parts: per-layer inputs of this width (0: none), the last
  // n_shared_kv_layers layers reading an earlier layer's K/V (no attn_k / attn_v of their own),
  // with double_wide_shared twice n_ff wide.
  int n_embd_per_layer = 0;
  int n_shared_kv_layers = 0;
  bool double_wide_shared = false;
  int n_rot = 0;                    // != 0: rope.dimension_count (rotate only n_rot dims of a head)
  float rope_linear_factor = 1.0f;  // != 1 writes rope.scaling.type = linear
  float rope_yarn_factor = 1.0f;    // != 1 writes rope.scaling.type = yarn over rope_yarn_orig_ctx
  int rope_yarn_orig_ctx = 64;
  // Non-empty: written as rope_freqs.weight in rope_freqs_type, after every other tensor and
  // without taking a seed, so the other weights are those of the same spec without it.
  std::vector<float> rope_freqs;
  DType rope_freqs_type = DType::kF32;
  // Phi-3's LongRoPE: non-empty factors are written as rope_factors_short/long.weight (after
  // everything else, taking no seed), with rope.scaling.original_context_length and, when not
  // 1, rope.scaling.attn_factor (which a file may also carry without the factors).
  std::vector<float> rope_factors_short;
  std::vector<float> rope_factors_long;
  int rope_orig_ctx = 0;
  float rope_attn_factor = 1.0f;
  uint32_t seed = 1;
  // For tests of bad files: metadata set after the defaults (replacing them), and tensors
  // left out.
  std::vector<std::pair<std::string, GgufValue>> metadata_overrides;
  std::vector<std::string> skip_tensors;
  std::vector<std::string> skip_keys;  // metadata keys left out of the file (after the overrides)
  // Qwen3.5's own keys left out, by their name after "<arch>." ("ssm.state_size").
  std::vector<std::string> skip_hybrid_keys;
};

// Phi-3 LongRoPE factors: n_pairs short ones near 1 and long ones growing with the pair index,
// over an original context of orig_ctx tokens.
void set_longrope_factors(TestModelSpec& spec, int n_pairs, int orig_ctx);

// Adds the tokenizer.* metadata of the GGUF file at vocab_path to spec's metadata overrides, so
// the written model has that vocabulary (spec.n_vocab must match it); errors are the file's.
Status add_vocabulary_from(const std::string& vocab_path, TestModelSpec& spec);

// "llama-q4_K", "qwen3-mixed": for test names and file names.
std::string test_model_name(const TestModelSpec& spec);

// Writes the model to path.
Status write_test_model(const TestModelSpec& spec, const std::string& path);

// True for the mixture-of-experts archs above.
bool is_moe_arch(const std::string& arch);
// True for qwen35, qwen35moe and qwen3next.
bool is_hybrid_arch(const std::string& arch);

// Every weight type the forward pass supports.
std::vector<DType> all_weight_types();

}  // namespace strata::testing
