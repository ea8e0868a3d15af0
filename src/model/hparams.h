// Hparams: the hyper-parameters of a transformer, read from GGUF metadata
// ("<arch>.block_count", ...). The architecture is data: the supported ones (model/arch_table.cc)
// differ only in these fields and in which tensors exist (biases, QK-norm, post-norms, tied
// output, routed experts, a shared expert).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_file.h"

namespace strata {

// The most experts a layer may have: one layer's expert products fit one kernels::matmul_many()
// call, and routing keeps per-expert flags on the stack.
constexpr int kMaxExperts = 512;
// The most blocks a file may say it has (<arch>.block_count): per-layer state is sized by it
// before the tensors can show a hostile count false (the largest real models have under 200).
constexpr int kMaxLayers = 4096;
// The longest delta-net convolution (taps) and key or value head the forward pass holds on
// its stack (Qwen3.5: 4 taps, heads of 128).
constexpr int kMaxSsmConvKernel = 8;
constexpr int kMaxSsmHeadDim = 512;

// One layer's attention heads: n_head query heads and n_head_kv K/V heads of head_dim values.
// Every layer of a model has the same shape except in Gemma 4, whose sliding layers have more,
// narrower K/V heads than its full ones (Hparams::attn_shape). A value head is v_head_dim values
// when that is > 0 (MiMo-V2: narrower than the key head), else head_dim; the K/V cache keeps
// values zero-padded to head_dim, so the attention's output head is head_dim values, of which
// the first v_head() are the head's.
struct AttnShape {
  int n_head = 0;
  int n_head_kv = 0;
  int head_dim = 0;
  int v_head_dim = 0;
  int q_dim() const { return n_head * head_dim; }
  int kv_dim() const { return n_head_kv * head_dim; }
  int v_head() const { return v_head_dim > 0 ? v_head_dim : head_dim; }
  bool narrow_v() const { return v_head() != head_dim; }
  // attn_v's outputs, and attn_output's inputs.
  int v_dim() const { return n_head_kv * v_head(); }
  int out_dim() const { return n_head * v_head(); }
  friend bool operator==(const AttnShape&, const AttnShape&) = default;
};

// What a layer has for attention: q/k/v heads over the cache, only attn_output applied to the
// normed input (Nemotron's "linear attention"), or nothing (no attn_norm either).
enum class AttnKind : uint8_t { kAttention, kLinear, kNone };

struct Hparams {
  std::string arch;        // general.architecture: a name of model/arch_table.cc
  int n_vocab = 0;
  int n_ctx_train = 0;
  int n_embd = 0;
  int n_layer = 0;         // the layers the forward pass runs: block_count less the NextN layers
  // <arch>.nextn_predict_layers: GLM-4.5's multi-token-prediction blocks, last in the file, unused.
  int n_nextn_layers = 0;
  int n_head = 0;
  int n_head_kv = 0;
  int head_dim = 0;        // n_embd / n_head unless <arch>.attention.key_length says otherwise
  // MiMo-V2: value heads of v_head_dim values (attention.value_length; 0: head_dim, as every
  // other model but the latent-attention ones, whose value width is mla_v_dim), and v times
  // v_scale before it goes into the cache (attention.value_scale).
  int v_head_dim = 0;
  float v_scale = 1.0f;
  int n_ff = 0;            // dense feed-forward width (0 in a MoE file that has none)
  int n_rot = 0;
  float rms_eps = 1e-5f;
  float rope_freq_base = 10000.0f;
  float rope_freq_scale = 1.0f;   // 1 / rope.scaling.factor for linear scaling
  bool rope_neox = false;         // qwen2/qwen3: NeoX layout; llama: adjacent pairs
  int rope_yarn_orig_ctx = 0;     // > 0 when rope.scaling.type == yarn
  float rope_yarn_factor = 1.0f;
  // rope.scaling.attn_factor: every rotated pair's cos and sin are scaled by it, with or without
  // YaRN (as llama.cpp does; Phi-3's LongRoPE files carry it without a scaling type).
  float rope_attn_factor = 1.0f;
  // YaRN's ramp runs between the pairs that turn rope_yarn_beta_fast and rope_yarn_beta_slow
  // times over the original context (rope.scaling.yarn_beta_fast / _slow: Ministral 3 reads them).
  float rope_yarn_beta_fast = 32.0f;
  float rope_yarn_beta_slow = 1.0f;
  // Phi-3's LongRoPE: rope_factors_long.weight divides the angles instead of
  // rope_factors_short.weight when a sequence's context exceeds rope_orig_ctx
  // (rope.scaling.original_context_length, else the trained context); see Model::fit_context.
  int rope_orig_ctx = 0;
  bool qk_norm = false;           // qwen3
  // With qk_norm: each whole q and k row is one RMS-norm (MiniMax-M2) instead of one per head.
  bool qk_norm_whole_row = false;
  // With qk_norm (Command R+): each head of q and k is layer-normed (Cohere's layer_norm) with
  // gains of its own, attn_q_norm holding n_head rows of head_dim (attn_k_norm n_head_kv).
  bool qk_norm_per_head_gains = false;
  // With qk_norm (Hunyuan-A13B): q and k are normed after the rotation instead of before it, as its
  // model computes them (the per-head weights do not commute with the rotation).
  bool qk_norm_after_rope = false;
  bool qkv_bias = false;          // qwen2
  bool tied_embeddings = false;   // no output.weight: reuse token_embd.weight
  int attn_scale_dim = 0;         // scores are q.k / sqrt(attn_scale_dim): head_dim (Gemma 3 27B: see hparams.cc)
  // Gemma 3 (model/arch_table.h): embeddings times embd_scale, post-norms, GELU gate, and
  // sliding-window layers.
  float embd_scale = 1.0f;        // sqrt(n_embd) for gemma3; Granite's embedding_scale
  // Granite (ArchTraits::granite): the attention scores are q.k times attn_scale (> 0; 0: the
  // 1 / sqrt(attn_scale_dim) of the others), every block's output (attention, feed-forward) is
  // multiplied by residual_scale before its residual add, and the logits are divided by logit_scale.
  float attn_scale = 0.0f;
  float residual_scale = 1.0f;
  float logit_scale = 1.0f;
  // Cohere (ArchTraits::cohere2): every norm is a layer norm (x - mean, over the standard
  // deviation, times the weight; rms_eps is its eps), and with parallel_block the feed-forward
  // reads the attention's norm of the layer's input (no ffn_norm): the layer adds both outputs.
  bool layer_norm = false;
  bool parallel_block = false;
  bool post_norms = false;
  // false: the layers have no attn_norm / ffn_norm, each block reads the layer's input (OLMo 2).
  bool pre_norms = true;
  bool ffn_gelu = false;
  int sliding_window = 0;         // > 0: a sliding layer's row at pos attends keys (pos - sliding_window, pos]
  int sliding_period = 0;         // every sliding_period-th layer attends over all keys; 0: every layer slides
  float rope_freq_base_swa = 0.0f;  // > 0: sliding layers' rope base (no scaling); 0: the global rope
  // Gemma 4, Cohere's MoE, OLMo 3 and EXAONE 4 as their converters write them: a flag per layer
  // (<arch>.attention.sliding_window_pattern) says which layers slide, instead of sliding_period's
  // rule; empty in every other model.
  std::vector<uint8_t> sliding_layers;
  // Cohere's MoE (cohere2_moe), EXAONE 4 32B: a flag per layer says which layers rotate (their
  // sliding ones, and Cohere's leading dense ones); empty: nope_layer_step's rule.
  std::vector<uint8_t> rotating_layers;
  // Gemma 4: the sliding layers' heads (attn_shape()): n_head_kv_swa K/V heads (its per-layer
  // attention.head_count_kv) of head_dim_swa values (attention.key_length_swa), n_rot_swa of them
  // rotated (rope.dimension_count_swa); the full layers' are n_head_kv, head_dim and n_rot
  // (rotating by the file's rope_freqs, which leave all but the first quarter of pairs still).
  // 0: as the full layers.
  int n_head_kv_swa = 0;
  int head_dim_swa = 0;
  int n_rot_swa = 0;
  // Step 3.5: the sliding layers' query heads (its per-layer attention.head_count); 0: n_head.
  int n_head_swa = 0;
  // Step 3.5: rope_freqs may hold 1s past its n_rot / 2 factors, up to half a head (the newer
  // converter pads them so).
  bool rope_freqs_padded = false;
  // Step 3.5: a layer with blk.N.attn_gate multiplies each head's attention output by the
  // sigmoid of that head's gate value (attn_gate's row for the head times the attention's input).
  bool attn_head_gate = false;
  // Poolside Laguna: the head gate is softplus(gate value), not its sigmoid.
  bool attn_head_gate_softplus = false;
  // Step 3.5: per layer, the limit L of the routed experts' SwiGLU (ffn_limit_exp) and of the
  // shared expert's and the dense feed-forward's (ffn_limit_dense): min(silu(g), L) *
  // clamp(u, -L, L); 0 (or an empty vector): unclamped.
  std::vector<float> ffn_limit_exp;
  std::vector<float> ffn_limit_dense;
  float ffn_limit(int layer, bool routed) const {
    const std::vector<float>& limits = routed ? ffn_limit_exp : ffn_limit_dense;
    return limits.empty() ? 0.0f : limits[static_cast<size_t>(layer)];
  }
  // Gemma 4: each head of v is RMS-normed without weights (before it goes into the cache), and a
  // layer without attn_v uses its k projection as v (before k's norm and rope).
  bool v_norm = false;
  // Gemma 4 E2B / E4B: only the first n_layer_kv layers (block_count - attention.shared_kv_layers)
  // store K/V; every later layer attends over the K/V of the last of them of its own kind (sliding
  // or full): kv_source[l] is the layer whose K/V layer l reads (l itself below n_layer_kv). Empty
  // in every other model.
  int n_layer_kv = 0;
  std::vector<int> kv_source;
  // Gemma 4 E2B / E4B: per-layer inputs of n_embd_per_layer values (embedding_length_per_layer_input;
  // 0: none): for each token, its row of per_layer_token_embd times sqrt(n_embd_per_layer) plus
  // the RMS-norm (per_layer_proj_norm) of its scaled embedding through per_layer_model_proj over
  // sqrt(n_embd), both over sqrt(2); each layer then adds to its stream per_layer_proj of
  // GELU(inp_gate . stream) times the layer's input, RMS-normed (post_norm).
  int n_embd_per_layer = 0;
  // Gemma 3n (model/gemma3n_hparams.h): the hidden state is n_altup streams of n_embd values
  // (altup.num_inputs; 0: one stream, every other model), stream 0 the one each layer runs on;
  // each layer predicts every stream from all of them, runs on its prediction of stream 0 with a
  // low-rank "laurel" branch beside the attention, and corrects every stream by what the layer
  // changed. hidden_width() is a row's floats between pipeline stages.
  int n_altup = 0;
  int hidden_width() const { return n_altup > 1 ? n_embd * n_altup : n_embd; }
  int laurel_rank = 0;  // Gemma 3n: the laurel branch's width (blk.0.laurel_l's rows)
  // Gemma 3n: the layers whose feed-forward gate keeps only what exceeds its mean plus this many
  // standard deviations (activation_sparsity_scale per layer; not finite: a dense layer), before
  // the GELU. Empty: none.
  std::vector<float> ffn_sparsity_std;
  bool ffn_sparse(int layer) const {
    return static_cast<size_t>(layer) < ffn_sparsity_std.size() &&
           std::isfinite(ffn_sparsity_std[static_cast<size_t>(layer)]);
  }
  // Feed-forward widths per layer when they differ (E2B's double-wide shared layers, Nemotron's:
  // feed_forward_length as an array; 0 in Nemotron's layers without one); empty: n_ff everywhere
  // (ffn_width()).
  std::vector<int> layer_n_ff;
  int ffn_width(int layer) const { return layer_n_ff.empty() ? n_ff : layer_n_ff[static_cast<size_t>(layer)]; }
  bool layer_has_ffn(int layer) const { return ffn_width(layer) > 0 || layer_is_moe(layer); }
  // Nemotron (deci, and nemotron_h's feed-forward layers: kNone): each layer's attention
  // (AttnKind), and for those with K/V heads their index among them (-1 for the others; Granite
  // 4.0-H's and Nemotron-H's too), the cache holding only theirs; every attending layer has n_head
  // query and n_head_kv K/V heads. Empty in every other model: every layer attends.
  std::vector<AttnKind> layer_attn;
  std::vector<int> attn_kv_index;
  AttnKind attn_kind(int layer) const {
    return layer_attn.empty() ? AttnKind::kAttention : layer_attn[static_cast<size_t>(layer)];
  }
  // gpt-oss (model/arch_table.h): attention sinks and the clamped SwiGLU.
  bool attn_sinks = false;
  bool swiglu_oai = false;
  std::string ffn_norm_name = "ffn_norm";  // blk.N.<this><ffn_norm_suffix>
  std::string ffn_norm_suffix = ".weight";  // "" for Falcon-H1's (llama.cpp's converter writes it bare)
  // Gemma 2: > 0 caps attention scores / output logits at cap * tanh(x / cap); 0: none.
  float attn_softcap = 0.0f;
  float final_softcap = 0.0f;
  // Phi-3: blk.N.ffn_up.weight holds the gate's n_ff rows, then the up projection's.
  bool ffn_up_gate_fused = false;
  // Every nope_layer_step-th layer (l + 1 a multiple of it) has no rope (0: every layer rotates;
  // Llama 4, SmolLM3). Llama 4's others attend only within their chunk of attn_chunk positions (0: no chunks)
  // and, with qk_l2_norm, RMS-norm each head of q and k (no weights) after the rotation. In the
  // layers without rope, q is scaled by 1 + attn_temp_scale * ln(floor((pos + 1) /
  // attn_temp_length) + 1) (0: not scaled).
  int nope_layer_step = 0;
  // Ministral 3: the q temperature above applies in every layer, after rope, over
  // attn_temp_length = the original context.
  bool attn_temp_every_layer = false;
  int attn_chunk = 0;
  bool qk_l2_norm = false;
  float attn_temp_scale = 0.0f;
  int attn_temp_length = 0;
  // Qwen3.5 (qwen35, qwen35moe): every full_attn_interval-th layer (l + 1 a multiple of it)
  // attends; the others are gated delta-net layers (linear attention: a recurrent state per
  // sequence and layer instead of K/V; model/delta_net.h says how they compute). 0: every layer
  // attends. With attn_output_gate, attn_q gives each head's q then its gate (2 * head_dim
  // values a head), and the attention output is multiplied by the gate's sigmoid before attn_output.
  int full_attn_interval = 0;
  bool attn_output_gate = false;
  // The delta-net layers' shapes (<arch>.ssm.*): conv_kernel taps of causal convolution over
  // the q/k/v channels; group_count key heads of state_size values; time_step_rank value heads
  // of inner_size / time_step_rank values. Value head h reads key head ssm_key_head(h): h %
  // ssm_n_k_heads, or with ssm_grouped (Qwen3-Next's layout, ArchTraits::delta_net_grouped)
  // h / (ssm_n_v_heads / ssm_n_k_heads).
  // M-RoPE (ArchTraits::mrope; rope.dimension_sections s0..s3): rotated pair i reads one
  // component of a token's position. A text token's is p in the three the models define, so
  // only the consecutive layout's fourth section (Qwen2-VL's sector i % (s0 + s1 + s2 + s3) >=
  // s0 + s1 + s2; none in the real files) reads 0: the pairs flagged here (1) rotate as at
  // position 0. Empty when none is: plain NeoX rope (every interleaved file: hparams.cc says why).
  std::vector<uint8_t> rope_pos0_pairs;
  int ssm_conv_kernel = 0;
  int ssm_head_k_dim = 0;
  int ssm_n_k_heads = 0;
  int ssm_n_v_heads = 0;
  int ssm_head_v_dim = 0;
  bool ssm_grouped = false;
  // IBM Granite 4.0-H (granitehybrid) and NVIDIA Nemotron-H (nemotron_h, nemotron_h_moe): the
  // recurrent layers are Mamba-2 mixers (model/mamba2.h)
  // instead of gated delta-nets, read from the same keys into the same fields: group_count groups
  // of B and C (ssm_n_k_heads) of state_size values (ssm_head_k_dim), time_step_rank heads
  // (ssm_n_v_heads) of inner_size / time_step_rank values (ssm_head_v_dim); head h reads group
  // h / (n_heads / n_groups), as ssm_grouped says. The convolution's channels are x, B and C (the
  // same count as q, k and v), and a head's state is head_v_dim x head_k_dim, so the state sizes
  // below hold for both.
  bool ssm_mamba2 = false;
  // LFM2: the recurrent layers are short convolutions (model/short_conv.h): one head
  // (ssm_n_v_heads 1) of n_embd values (ssm_head_v_dim) and no state matrix (ssm_head_k_dim 0), so
  // the state is the convolution's last ssm_conv_kernel - 1 inputs alone.
  bool ssm_short_conv = false;
  // Falcon-H1: every layer runs a Mamba-2 mixer and attention side by side over the same attn_norm
  // of its input and adds both outputs (recurrent_index and attn_kv_index number every layer).
  bool ssm_parallel_attention = false;
  // Ling 3.0 (bailingmoe3): the recurrent layers are Kimi Delta Attention, gated delta-nets
  // (model/delta_net.h) with q, k and v from attn_q/_k/_v (and a convolution of their own each),
  // one key head per value head, key channel j of head h decaying by exp(kda_gate_lower_bound *
  // sigmoid(ssm_a[h] * (f[j] + ssm_dt.bias[j]))) (f = ssm_f_a x, a value per channel), and the
  // output gate sigmoid(z) instead of silu(z).
  bool ssm_kda = false;
  float kda_gate_lower_bound = 0.0f;
  // Kimi Linear's KDA: channel j of head h decays by exp(ssm_a[h] * softplus(f[j] + ssm_dt.bias[j]))
  // (ssm_a = -exp(A_log) in its files), f = ssm_f_b (ssm_f_a x) and z = ssm_g_b (ssm_g_a x) through a
  // rank of kda_rank (z may come from a full attn_gate instead; LayerWeights says which).
  bool kda_softplus_gate = false;
  int kda_rank = 0;
  // The final norm's tensor (LFM2's: token_embd_norm.weight).
  std::string output_norm_name = "output_norm";
  // Nemotron-H, Arcee's AFM: a feed-forward (dense, an expert, the shared expert) is
  // down(relu(up x)^2), without a gate (no ffn_gate, ffn_gate_exps, ffn_gate_shexp).
  bool ffn_relu_sq = false;
  // Apertus: a feed-forward is down(xIELU(up x)), without a gate; layer l's xIELU, as llama.cpp
  // runs it: x > 0 gives alpha_p x^2 + beta x, else (expm1(min(x, eps)) - x) alpha_n + beta x, with
  // alpha_p = softplus(xielu.alpha_p) and alpha_n = beta + softplus(xielu.alpha_n) (the file holds
  // the checkpoint's unconstrained values).
  bool ffn_xielu = false;
  std::vector<float> xielu_alpha_n, xielu_alpha_p, xielu_beta, xielu_eps;
  // BitNet b1.58: the attention's output is RMS-normed (attn_sub_norm, q_dim wide) before
  // attn_output, the feed-forward's gated product (ffn_sub_norm, n_ff wide) before ffn_down.
  bool sub_norms = false;
  // BitNet b1.58 2B4T: the gated feed-forward's gate is relu(g)^2 (times up) instead of SiLU.
  bool ffn_relu_sq_gated = false;
  // When the recurrent layers follow no interval (Granite 4.0-H: the layers whose head_count_kv is
  // 0; Nemotron-H: those whose feed_forward_length is 0 too): each layer's index among them, -1
  // for another layer (an attending one's K/V index is attn_kv_index's). Empty otherwise.
  std::vector<int> recurrent_index;
  int ssm_key_head(int value_head) const {
    return ssm_grouped ? value_head / (ssm_n_v_heads / ssm_n_k_heads) : value_head % ssm_n_k_heads;
  }
  bool layer_is_recurrent(int layer) const {
    if (!recurrent_index.empty()) return recurrent_index[static_cast<size_t>(layer)] >= 0;
    return full_attn_interval > 0 && (layer + 1) % full_attn_interval != 0;
  }
  bool is_hybrid() const { return full_attn_interval > 0 || !recurrent_index.empty(); }
  // Layers with K/V (every layer unless hybrid), and a layer's index among them.
  // Gemma 4 E2B / E4B read the K/V of an earlier layer in their last layers (kv_source).
  int n_kv_layers() const {
    if (!attn_kv_index.empty()) {
      return static_cast<int>(std::count_if(attn_kv_index.begin(), attn_kv_index.end(), [](int i) { return i >= 0; }));
    }
    if (is_hybrid()) return n_layer / full_attn_interval;
    return kv_source.empty() ? n_layer : n_layer_kv;
  }
  int kv_layer(int layer) const {
    if (!attn_kv_index.empty()) return attn_kv_index[static_cast<size_t>(layer)];
    if (is_hybrid()) return layer / full_attn_interval;
    return kv_source.empty() ? layer : kv_source[static_cast<size_t>(layer)];
  }
  // Whether the layer writes K/V of its own (false for Gemma 4's shared layers).
  bool layer_stores_kv(int layer) const { return kv_source.empty() || layer < n_layer_kv; }
  // A recurrent layer's index among the recurrent layers.
  int recurrent_layer(int layer) const {
    if (!recurrent_index.empty()) return recurrent_index[static_cast<size_t>(layer)];
    return layer - (layer + 1) / full_attn_interval;
  }
  int n_recurrent_layers() const {
    if (!recurrent_index.empty()) {
      const auto recurrent = [](int i) { return i >= 0; };
      return static_cast<int>(std::count_if(recurrent_index.begin(), recurrent_index.end(), recurrent));
    }
    return is_hybrid() ? n_layer - n_kv_layers() : 0;
  }
  // q/k/v channels the convolution runs over: q and k (n_k_heads * head_k_dim each), then v.
  int ssm_conv_channels() const { return 2 * ssm_n_k_heads * ssm_head_k_dim + ssm_n_v_heads * ssm_head_v_dim; }
  // One delta-net layer's state of one sequence, in floats: the convolution's last
  // conv_kernel - 1 inputs (channel-major), then each value head's head_v_dim x head_k_dim matrix.
  size_t ssm_conv_state_floats() const { return static_cast<size_t>(ssm_conv_kernel - 1) * ssm_conv_channels(); }
  size_t ssm_state_floats() const {
    return ssm_conv_state_floats() + static_cast<size_t>(ssm_n_v_heads) * ssm_head_v_dim * ssm_head_k_dim;
  }
  // DeepSeek-V2/V3 (deepseek2): Multi-head Latent Attention when mla_kv_rank > 0. A token's K/V
  // is one row of head_dim = mla_kv_rank + n_rot values shared by every head (n_head_kv is 1):
  // the RMS-normed compression of x (attn_kv_a_mqa's first mla_kv_rank outputs, attn_kv_a_norm),
  // then the rotated key part (its last n_rot). The cache's V is that same row. A query head is
  // mla_nope_dim values, taken into the latent space through the head's attn_k_b (so
  // q . k equals the full head's q_nope . k_nope), then n_rot rotated ones; a head's output is
  // the first mla_kv_rank values of its attention over the latent rows, taken to mla_v_dim values
  // through its attn_v_b. q comes from attn_q, or, when mla_q_rank > 0, from attn_q_a, an
  // RMS-norm (attn_q_a_norm) and attn_q_b. Rope rotates adjacent pairs with no YaRN magnitude;
  // scores are scaled by mscale^2 / sqrt(mla_nope_dim + n_rot), where mscale = rope_attn_factor *
  // (1 + rope_yarn_log_mul * ln(rope scaling factor)) (kq_scale()).
  int mla_kv_rank = 0;
  int mla_q_rank = 0;
  // GLM-5 (glm-dsa): the keys its sparse-attention indexer keeps per row
  // (attention.indexer.top_k; 0: no indexer). The indexer is not run: every row attends over all
  // its keys, the model's own attention up to this many.
  int sparse_attn_top_k = 0;
  int mla_nope_dim = 0;
  int mla_v_dim = 0;
  float rope_yarn_log_mul = 0.0f;  // rope.scaling.yarn_log_multiplier
  bool is_mla() const { return mla_kv_rank > 0; }
  // What q . k is multiplied by before the softmax.
  float kq_scale() const;
  // Mixture of experts (n_expert > 0): the feed-forward of every layer_is_moe() layer is
  // n_expert SiLU-gated experts of width n_ff_exp, n_expert_used of them per token chosen by a
  // router, plus, when n_ff_shexp > 0, a shared expert: scaled by sigmoid(gate_inp_shexp . x)
  // (qwen2moe), or added as it is when !shexp_gated (glm4moe, llama4). The other layers (GLM-4.5's
  // first n_layer_dense_lead, Llama 4 Maverick's every other) are dense, of width n_ff.
  //
  // Routing: a gate value per expert, softmax over all router logits or, with expert_sigmoid,
  // sigmoid of each (glm4moe, llama4); the top k by gate value plus the layer's selection bias
  // (blk.N.exp_probs_b, when the file has it; ties to the lower id); the chosen experts' gate
  // values as weights, renormalised to sum to 1 when expert_weights_norm, then times
  // expert_weights_scale. With n_expert_groups_used < n_expert_groups (DeepSeek-V3's group-limited
  // routing), the experts are n_expert_groups groups of consecutive ids, each scored by the sum of
  // its two best ranks (gate value plus bias), and the top k is taken within the
  // n_expert_groups_used best groups only (ties to the lower group).
  int n_expert = 0;
  int n_expert_groups = 1;
  int n_expert_groups_used = 1;
  int n_expert_used = 0;
  int n_ff_exp = 0;
  int n_ff_shexp = 0;
  int n_layer_dense_lead = 0;
  int moe_layer_step = 1;  // Llama 4: only every moe_layer_step-th layer (l + 1 a multiple) has experts
  bool shexp_gated = true;
  bool expert_weight_input = false;  // Llama 4: a route's weight scales the expert's input, not its output
  // Gemma 4 (26B-A4B): every MoE layer also runs its dense feed-forward of width n_ff (ffn_norm,
  // GELU gate, post_ffw_norm_1) beside the experts (pre_ffw_norm_2 of the layer's input, GELU
  // gates, post_ffw_norm_2), whose router reads RMS-norm(input) times ffn_gate_inp.scale /
  // sqrt(n_embd) and whose routes are weighted times ffn_down_exps.scale (per expert); the two
  // outputs are added before post_ffw_norm.
  bool moe_beside_dense = false;
  bool expert_sigmoid = false;
  bool expert_weights_norm = false;
  // Laguna: the renormalisation divides by max(sum of the chosen weights, this) (2^-14, as
  // llama.cpp computes it for Laguna); 0 elsewhere: by the sum.
  float expert_weights_norm_min = 0.0f;
  float expert_weights_scale = 1.0f;
  bool is_moe() const { return n_expert > 0; }
  // Nemotron 3 (nemotron_h_moe): the layers with a feed-forward width are the MoE ones.
  bool moe_where_ffn = false;
  bool layer_is_moe(int layer) const {
    if (moe_where_ffn) return n_expert > 0 && ffn_width(layer) > 0;
    return n_expert > 0 && layer >= n_layer_dense_lead && (layer + 1) % moe_layer_step == 0;
  }
  bool layer_slides(int layer) const {
    if (!sliding_layers.empty()) return sliding_window > 0 && sliding_layers[static_cast<size_t>(layer)] != 0;
    return sliding_window > 0 && (sliding_period == 0 || (layer + 1) % sliding_period != 0);
  }
  // Whether sliding layers sit beside full ones (Gemma 2, 3 and 4, gpt-oss, Command R7B), rather
  // than every layer sliding (Phi-3) or none.
  bool mixes_sliding_layers() const {
    return sliding_window > 0 && (sliding_period > 0 || !sliding_layers.empty());
  }
  AttnShape attn_shape(int layer) const {
    const bool slides = layer_slides(layer);
    const int heads = slides && n_head_swa > 0 ? n_head_swa : n_head;
    if (slides && head_dim_swa > 0) return {heads, n_head_kv_swa, head_dim_swa, v_head_dim};
    return {heads, n_head_kv, head_dim, v_head_dim};
  }
  // The most query heads of any layer.
  int max_n_head() const { return std::max(n_head, n_head_swa); }
  // The largest q and K/V row of any layer: what per-row scratch is sized for.
  int max_q_dim() const { return std::max(n_head * head_dim, max_n_head() * head_dim_swa); }
  int max_kv_dim() const { return std::max(n_head_kv * head_dim, n_head_kv_swa * head_dim_swa); }
  bool layer_rotates(int layer) const {
    if (!rotating_layers.empty()) return rotating_layers[static_cast<size_t>(layer)] != 0;
    return nope_layer_step == 0 || (layer + 1) % nope_layer_step != 0;
  }
  bool layer_chunked(int layer) const { return attn_chunk > 0 && layer_rotates(layer); }
  // Whether some rows of the layer attend fewer than all earlier keys (a window or a chunk).
  bool layer_limits_keys(int layer) const { return layer_slides(layer) || layer_chunked(layer); }
  // First key position a row at pos attends in layer: 0 unless the layer slides or is chunked.
  int first_key(int layer, int pos) const {
    if (layer_chunked(layer)) return pos - pos % attn_chunk;
    return layer_slides(layer) && pos >= sliding_window ? pos - sliding_window + 1 : 0;
  }
  // Llama 4's q scale at pos in a layer without rope (1 when there is none).
  float attn_temperature(int pos) const;
};

// Reads and validates hparams; errors name the missing or inconsistent key.
Result<Hparams> read_hparams(const GgufFile& gguf);

}  // namespace strata
