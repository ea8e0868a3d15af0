// ModelWeights: the tensors of a loaded model, bound by name and checked against Hparams.
//
// Matrices are views into the GgufFile's mapping (never copied); the small 1-D tensors
// (norm weights, biases) are converted to F32 copies owned here so the forward pass reads
// plain floats whatever type the file stored them in. Immutable after bind_weights; valid
// while the GgufFile lives.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/status.h"
#include "gguf/gguf_file.h"
#include "kernels/kernels.h"
#include "model/hparams.h"

namespace strata {

struct LayerWeights {
  const float* attn_norm = nullptr;   // n_embd
  // n_embd -> n_head*head_dim, n_head_kv*head_dim (the layer's heads: Hparams::attn_shape); wv
  // is empty in Gemma 4's layers that take v from k.
  kernels::WeightMatrix wq, wk, wv;
  const float* bq = nullptr;          // biases (qwen2); nullptr when absent
  const float* bk = nullptr;
  const float* bv = nullptr;
  // QK-norm weights (qwen3), head_dim long, or the whole row's (Hparams::qk_norm_whole_row:
  // n_head * head_dim and n_head_kv * head_dim); nullptr when absent.
  const float* q_norm = nullptr;
  const float* k_norm = nullptr;
  // head_dim ones when q and k are RMS-normed after rope without weights (Llama 4's rope
  // layers); nullptr otherwise.
  const float* qk_unit_norm = nullptr;
  // head_dim ones when each head of v is RMS-normed without weights (Gemma 4); nullptr otherwise.
  const float* v_unit_norm = nullptr;
  // Multi-head Latent Attention (hp.is_mla(); Hparams says what each part does): q from wq
  // (n_embd -> n_head * (nope + n_rot)), or from wq_a (n_embd -> mla_q_rank), q_a_norm and wq_b;
  // wkv_a: n_embd -> mla_kv_rank + n_rot; kv_a_norm: mla_kv_rank. k_b: n_head matrices
  // mla_nope_dim -> mla_kv_rank (head h's attn_k_b, or an F32 transposed copy of attn_kv_b's key
  // rows of head h when the file has only attn_kv_b); v_b: n_head matrices mla_kv_rank ->
  // mla_v_dim (views of attn_v_b, or of attn_kv_b's value rows). wk and wv are empty.
  kernels::WeightMatrix wq_a, wq_b, wkv_a;
  const float* q_a_norm = nullptr;
  const float* kv_a_norm = nullptr;
  std::vector<kernels::WeightMatrix> k_b, v_b;
  kernels::WeightMatrix wo;           // n_head*head_dim (MLA: n_head*mla_v_dim) -> n_embd
  // Step 3.5's per-head output gate (Hparams::attn_head_gate): n_embd -> the layer's n_head;
  // empty when the layer has none.
  kernels::WeightMatrix attn_head_gate;
  const float* bo = nullptr;          // n_embd: attention output bias (gpt-oss); nullptr when absent
  const float* attn_sinks = nullptr;  // n_head: attention sink logits (gpt-oss); nullptr when absent
  const float* attn_post_norm = nullptr;  // n_embd: RMS-norm of the attention output (gemma3); nullptr when absent
  const float* ffn_norm = nullptr;    // n_embd
  const float* ffn_post_norm = nullptr;   // n_embd: RMS-norm of the feed-forward output (gemma3)
  // Gemma 4's layer_output_scale: one number the residual stream is multiplied by after the
  // layer; nullptr when absent.
  const float* out_scale = nullptr;
  // BitNet: the RMS norms of the attention's output before attn_output (q_dim) and of the gated
  // product before ffn_down (n_ff); nullptr when absent.
  const float* attn_sub_norm = nullptr;
  const float* ffn_sub_norm = nullptr;
  // BitNet's <matrix>.scale: one number each that multiplies that matrix's output (before any
  // bias); 1 when the file has none.
  struct OutputScales {
    float q = 1.0f, k = 1.0f, v = 1.0f, o = 1.0f, gate = 1.0f, up = 1.0f, down = 1.0f;
  } scales;
  kernels::WeightMatrix w_gate, w_up; // n_embd -> n_ff (dense layers only)
  kernels::WeightMatrix w_down;       // n_ff -> n_embd
  // Mixture of experts (hp.layer_is_moe(layer)): the router and each expert's matrices, views
  // into the file's 3-D ffn_{gate,up,down}_exps tensors (expert e is the e-th n_out x n_in slice).
  kernels::WeightMatrix router;                         // n_embd -> n_expert (ffn_gate_inp)
  std::vector<kernels::WeightMatrix> exp_gate, exp_up;  // n_expert x (n_embd -> n_ff_exp)
  std::vector<kernels::WeightMatrix> exp_down;          // n_expert x (n_ff_exp -> n_embd)
  // Biases of the router and of each expert's products (gpt-oss), expert e's at e * width;
  // nullptr when absent.
  const float* router_b = nullptr;                      // n_expert
  const float* exp_probs_b = nullptr;                   // n_expert: selection bias (glm4moe); nullptr when absent
  const float* exp_gate_b = nullptr;                    // n_expert x n_ff_exp
  const float* exp_up_b = nullptr;                      // n_expert x n_ff_exp
  const float* exp_down_b = nullptr;                    // n_expert x n_embd
  // Shared expert (n_ff_shexp > 0), scaled per row by sigmoid(shexp_gate_inp . x) (qwen2moe)
  // or not at all (glm4moe: no shexp_gate_inp).
  kernels::WeightMatrix shexp_gate, shexp_up;  // n_embd -> n_ff_shexp
  kernels::WeightMatrix shexp_down;            // n_ff_shexp -> n_embd
  kernels::WeightMatrix shexp_gate_inp;        // n_embd -> 1 (hp.shexp_gated only)
  // Gemma 4's experts beside the dense feed-forward (hp.moe_beside_dense): the norms after the
  // dense part (post_ffw_norm_1), before and after the experts (pre_ffw_norm_2, post_ffw_norm_2);
  // the router's input scale (ffn_gate_inp.scale already divided by sqrt(n_embd)); each expert's
  // output scale (ffn_down_exps.scale; nullptr when absent). exp_gate / exp_up are then views of
  // ffn_gate_up_exps, each expert's n_ff_exp gate rows, then its up rows.
  const float* ffn_post_norm_1 = nullptr;
  const float* ffn_pre_norm_2 = nullptr;
  const float* ffn_post_norm_2 = nullptr;
  const float* router_in_scale = nullptr;    // n_embd
  const float* exp_out_scale = nullptr;      // n_expert
  // Gemma 4 E2B / E4B's per-layer inputs (Hparams::n_embd_per_layer, P): this layer's P rows of
  // per_layer_model_proj (n_embd -> P), its inp_gate (n_embd -> P), proj (P -> n_embd) and
  // post_norm (n_embd); empty when the model has none.
  kernels::WeightMatrix ple_model_proj, ple_gate, ple_proj;
  const float* ple_post_norm = nullptr;
  // Gemma 3n's AltUp and laurel parts (model/altup.cc; A = Hparams::n_altup, R = the laurel
  // rank): router_norm (n_embd) and router (n_embd -> A) give the streams' mixing weights,
  // predict_coef (A -> A * A) and correct_coef (A -> A) the coefficients from them, correct_scale
  // (n_embd) scales the corrected stream 0 for the per-layer input's gate; laurel_l (n_embd -> R),
  // laurel_r (R -> n_embd) and laurel_post_norm (n_embd) the branch beside the attention. Empty /
  // nullptr in every other model.
  struct Altup {
    const float* router_norm = nullptr;
    const float* correct_scale = nullptr;
    const float* laurel_post_norm = nullptr;
    kernels::WeightMatrix router, predict_coef, correct_coef, laurel_l, laurel_r;
  } altup;
  // Gated delta-net layers (hp.layer_is_recurrent(layer); model/delta_net.h), which have none of
  // the attention weights above: ssm_qkv (attn_qkv: n_embd -> hp.ssm_conv_channels()), ssm_z
  // (attn_gate: n_embd -> n_v_heads * head_v_dim), ssm_beta and ssm_alpha (n_embd -> n_v_heads),
  // or with hp.ssm_grouped ssm_in (n_embd -> conv channels + n_v_heads * head_v_dim) and ssm_ba
  // (n_embd -> 2 * n_v_heads) in their place (model/delta_net.h says how those are laid out);
  // ssm_out (n_v_heads * head_v_dim -> n_embd); ssm_conv: each channel's ssm_conv_kernel taps,
  // oldest input first; ssm_dt_bias and ssm_a (negative decay rates): n_v_heads; ssm_norm: head_v_dim.
  // Mamba-2 layers (hp.ssm_mamba2; model/mamba2.h) use ssm_in (n_embd -> z, then x, B and C, then
  // dt: n_v_heads * head_v_dim + conv channels + n_v_heads), ssm_conv with its bias ssm_conv_b
  // (per channel; nullptr: none), ssm_dt_bias, ssm_a (-exp(A_log)), ssm_d (a skip weight per head), ssm_norm
  // (n_v_heads * head_v_dim: each group's part of it normed apart) and ssm_out.
  kernels::WeightMatrix ssm_qkv, ssm_z, ssm_beta, ssm_alpha, ssm_in, ssm_ba, ssm_out;
  // Kimi Linear's low-rank KDA inputs (model/delta_net.h): ssm_alpha and ssm_z take x to
  // hp.kda_rank values, these take those to n_v_heads * head_v_dim (ssm_z_b empty when the layer's
  // output gate is one full attn_gate in ssm_z).
  kernels::WeightMatrix ssm_alpha_b, ssm_z_b;
  // LFM2's short convolutions (hp.ssm_short_conv; model/short_conv.h): shortconv.in_proj's B, C and x
  // rows (n_embd each, in that order), its taps in ssm_conv and out_proj in ssm_out.
  kernels::WeightMatrix conv_b, conv_c, conv_x;
  const float* ssm_conv = nullptr;
  const float* ssm_conv_b = nullptr;
  const float* ssm_d = nullptr;
  const float* ssm_dt_bias = nullptr;
  const float* ssm_a = nullptr;
  const float* ssm_norm = nullptr;
};

struct ModelWeights {
  kernels::WeightMatrix token_embd;   // n_vocab rows of n_embd
  const float* output_norm = nullptr;
  kernels::WeightMatrix output;       // n_embd -> n_vocab; token_embd when tied
  std::vector<LayerWeights> layers;
  const float* rope_freqs = nullptr;  // n_rot / 2 rope frequency factors (Llama 3.1); nullptr when absent
  // Phi-3's LongRoPE factors (rope_factors_short/long.weight, n_rot / 2 each): both or neither.
  const float* rope_factors_short = nullptr;
  const float* rope_factors_long = nullptr;
  // Gemma 4 E2B / E4B: per_layer_token_embd (n_vocab rows of n_layer * n_embd_per_layer, layer l's
  // inputs at l * n_embd_per_layer) and per_layer_proj_norm (n_embd_per_layer); empty / nullptr
  // otherwise.
  kernels::WeightMatrix ple_token_embd;
  const float* ple_proj_norm = nullptr;
  // Gemma 3n: altup_proj's A - 1 matrices (n_embd -> n_embd) that make streams 1.. from the
  // embedding, and altup_unembd_proj's that map them back before the streams are averaged.
  std::vector<kernels::WeightMatrix> altup_proj, altup_unembd;
  size_t total_bytes = 0;             // every tensor of the file
  size_t decode_bytes = 0;            // what one decode step of one token streams: all but the
                                      // embedding table (one row read, unless output reuses it),
                                      // the NextN blocks (GLM-4.5) and, in MoE files, all but
                                      // the n_expert_used experts it routes to in each layer
  size_t expert_bytes = 0;            // the largest layer's one expert (gate + up + down); 0: dense
  std::vector<std::unique_ptr<float[]>> owned;  // F32 copies of the 1-D tensors
  AlignedBuffer packed;  // the matrices the active kernels read in their own layout
  std::vector<AlignedBuffer> converted;  // I2_S matrices, read as TQ2_0 (tensor/i2s.h)
};

// Errors name the tensor and what is wrong: missing, wrong shape, unsupported type.
// rope_freqs.weight is optional; when present it must be F32 with n_rot / 2 positive,
// finite factors (so must rope_factors_short/long.weight). A fused blk.N.attn_qkv (or Phi-3's
// fused ffn_up) is bound as row ranges of the one tensor: views, like every matrix.
Result<ModelWeights> bind_weights(const GgufFile& gguf, const Hparams& hp);

// Every matrix the forward pass multiplies with (experts included), for packing and sizing.
std::vector<kernels::WeightMatrix*> all_matrices(ModelWeights& w);
std::vector<const kernels::WeightMatrix*> all_matrices(const ModelWeights& w);

// Called by pack_weights with (bytes of matrices done, all matrices' bytes), one call at a time.
using PackProgress = std::function<void(uint64_t done_bytes, uint64_t total_bytes)>;

// Packs every matrix the active kernels read faster in a layout of their own
// (kernels::packed_matrix_bytes), into w.packed, and points the matrices at it. The file's
// pages of a packed matrix leave the resident set, so serving holds one copy of the weights;
// the embedding table keeps its pages (rows are looked up there). Uses every core once.
// progress (optional) hears about every matrix, packed or not, about once per percent.
void pack_weights(const GgufFile& gguf, ModelWeights& w, const PackProgress& progress = {});

}  // namespace strata
