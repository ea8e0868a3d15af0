// ReferenceForward: a plain float64 forward pass of one sequence, for tests only.
//
// Written independently of transformer.cc and the kernels: simple loops, weights decoded
// once with the tensor module's reference dequantizer into doubles, activations and the
// K/V cache kept in double, full softmax. It is slow and obviously right, and is what the
// fast path's numerics are measured against. Mixture-of-experts layers route each token to
// its top-k experts by gate value (softmax or sigmoid, plus GLM's selection bias; ties to the
// lower id) in doubles, after any leading dense layers. Applies rope_freqs.weight (per-pair factors
// dividing the angle) when present, else Phi-3's LongRoPE factors, the rope attention factor
// as a magnitude, and YaRN (llama.cpp's ramp and magnitude). Gemma 3's
// parts (scaled embeddings, post-norms, GELU, sliding-window layers with their own rope base;
// Gemma 2's soft-capped scores and logits)
// and gpt-oss's (attention sinks, output / router / expert biases, the clamped SwiGLU,
// sliding layers on the global rope) follow hparams, as do Llama 4's (layers without rope and
// their q temperature, chunked attention and L2-normed q/k in the others, expert weights on the
// experts' input), and DeepSeek's Multi-head Latent Attention, computed in its plain form: each
// position's full keys and values expanded from its latent row, with no absorption. Qwen3.5's
// hybrids (qwen35, qwen35moe): attention layers that gate their output by the sigmoid of a
// second half of each q head, and gated delta-net layers (reference_delta_net.cc) that carry a
// convolution window and a state matrix per value head from position to position. Granite's
// multipliers scale the embeddings, the attention scores, each block's output and the logits;
// Cohere's layers take layer norms and run attention and feed-forward on the same one. Gemma 4's
// sliding layers have heads of their own shape and rope; its full layers may take v from k; v is
// RMS-normed; each layer's output is scaled by its layer_output_scale; its MoE layers run experts
// beside the dense feed-forward, routed on a scaled RMS-norm of the layer's stream; the E2B /
// E4B's later layers attend over an earlier layer's K/V, and every layer adds its per-layer input.
// Step 3.5's sliding layers have more query heads, each head's output is gated by a sigmoid of its
// own, and its SwiGLUs are clamped where the file gives a limit. Hunyuan norms q and k after the
// rotation. Gemma 3n runs each layer inside AltUp's streams (reference_gemma3n.cc).
// Owns its copies of the weights and its cache; not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata::testing {

class ReferenceForward {
 public:
  // n_ctx_per_seq picks Phi-3's LongRoPE factors as Model::fit_context does (0: the short ones).
  static Result<ReferenceForward> Load(const GgufFile& gguf, int n_ctx_per_seq = 0);

  // Runs `token` at the next position and returns the logits there.
  std::vector<double> step(int32_t token);
  int n_tokens() const { return n_tokens_; }
  const Hparams& hparams() const { return hp_; }

 private:
  using Matrix = std::vector<double>;  // n_out rows of n_in, row-major
  struct Layer {
    int index = 0;
    std::vector<double> attn_norm, ffn_norm, bq, bk, bv, bo, sinks, q_norm, k_norm, attn_post_norm, ffn_post_norm;
    std::vector<double> out_scale;  // Gemma 4's layer_output_scale (one number), or empty
    // Gemma 4 E2B / E4B's per-layer input block: inp_gate (P rows), proj (n_embd rows), post_norm.
    Matrix ple_gate, ple_proj;
    std::vector<double> ple_post_norm;
    Matrix wq, wk, wv, wo, w_gate, w_up, w_down;
    Matrix head_gate;  // Step 3.5's attn_gate (a row per query head), or empty
    // BitNet: the sub-norms (empty when absent) and the matrices' output scales (1 when absent).
    std::vector<double> attn_sub_norm, ffn_sub_norm;
    double q_scale = 1, k_scale = 1, v_scale = 1, o_scale = 1, gate_scale = 1, up_scale = 1, down_scale = 1;
    // Mixture of experts: router (n_expert rows), experts' matrices end to end (expert e's
    // rows follow expert e-1's), the shared expert and its gate vector (empty when absent).
    Matrix router, exp_gate, exp_up, exp_down, shexp_gate, shexp_up, shexp_down;
    std::vector<double> shexp_gate_inp, exp_probs_b;  // exp_probs_b: glm4moe's selection bias
    std::vector<double> router_b, exp_gate_b, exp_up_b, exp_down_b;  // gpt-oss; expert e's at e * width
    // Gemma 4's experts beside the dense feed-forward: the norms around both parts, the router's
    // input scale and the experts' output scales.
    std::vector<double> ffn_post_norm_1, ffn_pre_norm_2, ffn_post_norm_2, router_in_scale, exp_out_scale;
    // Multi-head Latent Attention (reference_mla.cc): the q path (wq, or wq_a, q_a_norm and
    // wq_b), the compression wkv_a and its norm, and each head's maps from the latent to its
    // full key (mla_k: n_head * nope rows) and value (mla_v: n_head * v rows).
    Matrix wq_a, wq_b, wkv_a, mla_k, mla_v;
    std::vector<double> q_a_norm, kv_a_norm;
    std::vector<std::vector<double>> k_cache, v_cache;  // per position
    // Gated delta-net layers (reference_delta_net.cc): the input maps (q/k/v channels, output
    // gate, write strength, decay input), the output map; per channel its conv taps (oldest
    // input first); per value head the time-step bias and decay rate; the output norm. State:
    // the last conv_kernel - 1 channel inputs (oldest first) and each value head's dv x dk S.
    Matrix ssm_qkv, ssm_z, ssm_beta, ssm_alpha, ssm_out;
    Matrix ssm_alpha_b, ssm_z_b;  // Kimi Linear's low-rank KDA inputs' second halves, or empty
    std::vector<double> ssm_conv, ssm_dt_bias, ssm_a, ssm_norm;
    // Mamba-2 layers (reference_mamba2.cc) keep ssm_in in ssm_qkv's place and S per head as P x N.
    std::vector<double> ssm_conv_b, ssm_d;
    std::vector<std::vector<double>> conv_inputs, delta_state;
    // Gemma 3n (reference_gemma3n.cc): AltUp's router (n_altup rows) and its norm, the predict
    // (n_altup^2 rows) and correct (n_altup rows) coefficient maps, the correction's scale of
    // stream 0, and the laurel branch (laurel_l: rank rows, laurel_r: n_embd rows) and its norm.
    Matrix altup_router, altup_predict, altup_correct, laurel_l, laurel_r;
    std::vector<double> altup_router_norm, altup_correct_scale, laurel_post_norm;
  };

  Status decode_qkv(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  Status decode_attention(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  Status decode_gate_up(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  Status decode_rope_factors(const GgufFile& gguf, int n_ctx_per_seq);
  void attention(Layer& l, const std::vector<double>& x, std::vector<double>& out) const;
  void norm_heads(std::vector<double>& x, int n_heads, int hd, const std::vector<double>& w) const;
  void norm_qk(const Layer& l, const AttnShape& sh, bool stores_kv, std::vector<double>& q, std::vector<double>& k) const;
  std::vector<double> feed_forward(const Layer& l, const std::vector<double>& x) const;
  // BitNet (reference_bitnet.cc): the sub-norms and scales, and its feed-forward: the gated product
  // (SiLU or relu^2 gate, gate and up scaled), RMS-normed, then down, scaled.
  Status decode_bitnet(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  std::vector<double> bitnet_ffn(const Layer& l, const std::vector<double>& x) const;
  // The routed experts' weighted sum for x, chosen by the router on router_x.
  std::vector<double> routed_experts(const Layer& l, const std::vector<double>& router_x,
                                     const std::vector<double>& x) const;
  Status decode_gate_up_exps(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  Status decode_moe_beside_dense(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  // Gemma 4's MoE layer on the layer's residual stream h (Hparams::moe_beside_dense).
  std::vector<double> moe_beside_dense(const Layer& l, const std::vector<double>& h) const;
  // Gemma 4 E2B / E4B: every layer's per-layer input for a token whose scaled embedding is x
  // (n_layer * P values, layer l's at l * P).
  std::vector<double> per_layer_inputs(int32_t token, const std::vector<double>& x) const;
  void add_per_layer_block(const Layer& l, const std::vector<double>& inputs, std::vector<double>& h) const;
  Status decode_per_layer_inputs(const GgufFile& gguf);
  // Rotates the first n_rot values of each of x's n_heads heads (head_stride apart; 0: head_dim).
  void rope(std::vector<double>& x, int n_heads, bool sliding, int head_stride = 0) const;
  Status decode_mla(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  void mla_attention(Layer& l, const std::vector<double>& x, std::vector<double>& out) const;
  void apply_head_gate(const Layer& l, const std::vector<double>& x, int head_width, std::vector<double>& att) const;
  Status decode_delta_net(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  Status decode_kda(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  Status decode_grouped_delta_inputs(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  void delta_net(Layer& l, const std::vector<double>& x, std::vector<double>& out) const;
  Status decode_mamba2(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  void mamba2(Layer& l, const std::vector<double>& x, std::vector<double>& out) const;
  Status decode_short_conv(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  void short_conv(Layer& l, const std::vector<double>& x, std::vector<double>& out) const;
  Status decode_falcon_h1(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  void mamba2_beside_attention(Layer& l, const std::vector<double>& x, std::vector<double>& out) const;
  std::vector<double> xielu_ffn(const Layer& l, const std::vector<double>& x) const;
  // Gemma 3n (reference_gemma3n.cc): a step through AltUp's streams, and its parts.
  Status decode_altup(const GgufFile& gguf, const std::string& prefix, Layer& l) const;
  Status decode_altup_tables(const GgufFile& gguf);
  std::vector<double> altup_step(int32_t token);
  std::vector<double> altup_modalities(const Layer& l, const std::vector<double>& x) const;
  std::vector<double> gemma3n_ffn(const Layer& l, const std::vector<double>& x) const;

  Hparams hp_;
  Matrix token_embd_, output_;
  std::vector<double> output_norm_;
  std::vector<double> rope_freqs_;  // n_rot / 2 factors, or empty
  // Gemma 4 E2B / E4B: per_layer_token_embd (a token's row: every layer's P values),
  // per_layer_model_proj (n_layer * P rows of n_embd) and per_layer_proj_norm.
  Matrix ple_token_embd_, ple_model_proj_;
  std::vector<double> ple_proj_norm_;
  // Gemma 3n: altup_proj and altup_unembd_proj, each (n_altup - 1) * n_embd rows of n_embd.
  Matrix altup_proj_, altup_unembd_;
  std::vector<Layer> layers_;
  int n_tokens_ = 0;
};

// How far a fast forward's logits are from the reference's: `logits` holds tokens.size() rows
// of n_vocab (positions ref.n_tokens(), ... in order), and ref steps through the same tokens.
//   rms_rel = ||fast - ref|| / ||ref|| over all positions
//   max_rel = the largest |fast - ref| over the RMS of the reference logits at its position
struct LogitErrors {
  double rms_rel = 0;
  double max_rel = 0;
};
LogitErrors logit_errors(ReferenceForward& ref, std::span<const int32_t> tokens, const float* logits);

}  // namespace strata::testing
