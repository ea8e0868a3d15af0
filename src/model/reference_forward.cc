#include "model/reference_forward.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "model/arch_table.h"
#include "model/reference_ops.h"

namespace strata::testing {
namespace {

using namespace reference_ops;  // NOLINT: the reference's own vocabulary

// Splits a decoded matrix of n_in-wide rows into consecutive row ranges of the given counts.
void split_rows(const Vec& whole, size_t n_in, std::initializer_list<std::pair<size_t, Vec*>> parts) {
  size_t at = 0;
  for (const auto& [n_rows, out] : parts) {
    out->assign(whole.begin() + static_cast<std::ptrdiff_t>(at * n_in),
                whole.begin() + static_cast<std::ptrdiff_t>((at + n_rows) * n_in));
    at += n_rows;
  }
}

}  // namespace

// q, k and v: three tensors, or one attn_qkv whose rows are q's, then k's, then v's (and
// its bias, when the file has one, laid out the same way).
Status ReferenceForward::decode_qkv(const GgufFile& gguf, const std::string& p, Layer& l) const {
  if (gguf.find_tensor(p + "attn_qkv.weight") == nullptr) {
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_q.weight", true, &l.wq));
    // Gemma 4: no k or v in the layers that share an earlier layer's, v from k without attn_v.
    const bool stores_kv = hp_.layer_stores_kv(l.index);
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_k.weight", stores_kv, &l.wk));
    return decode(gguf, p + "attn_v.weight", stores_kv && !hp_.v_norm, &l.wv);
  }
  Vec qkv, bias;
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_qkv.weight", true, &qkv));
  const size_t q_rows = static_cast<size_t>(hp_.n_head) * hp_.head_dim;
  const size_t kv_rows = static_cast<size_t>(hp_.n_head_kv) * hp_.head_dim;
  split_rows(qkv, hp_.n_embd, {{q_rows, &l.wq}, {kv_rows, &l.wk}, {kv_rows, &l.wv}});
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_qkv.bias", false, &bias));
  if (!bias.empty()) split_rows(bias, 1, {{q_rows, &l.bq}, {kv_rows, &l.bk}, {kv_rows, &l.bv}});
  return Status::Ok();
}

// An attention layer's maps (latent, or q/k/v), biases, QK-norms, output and sinks.
Status ReferenceForward::decode_attention(const GgufFile& gguf, const std::string& p, Layer& l) const {
  STRATA_RETURN_IF_ERROR(hp_.is_mla() ? decode_mla(gguf, p, l) : decode_qkv(gguf, p, l));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_q.bias", false, &l.bq));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_k.bias", false, &l.bk));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_v.bias", false, &l.bv));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_q_norm.weight", false, &l.q_norm));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_k_norm.weight", false, &l.k_norm));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_output.weight", true, &l.wo));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_output.bias", false, &l.bo));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_gate.weight", false, &l.head_gate));
  return decode(gguf, p + "attn_sinks.weight", hp_.attn_sinks, &l.sinks);
}

// The dense feed-forward's gate and up: two tensors, or Phi-3's one ffn_up, gate rows first.
Status ReferenceForward::decode_gate_up(const GgufFile& gguf, const std::string& p, Layer& l) const {
  const bool dense = !hp_.layer_is_moe(l.index);
  if (!hp_.ffn_up_gate_fused) {
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_gate.weight", dense && !hp_.ffn_relu_sq && !hp_.ffn_xielu, &l.w_gate));
    return decode(gguf, p + "ffn_up.weight", dense, &l.w_up);
  }
  Vec gate_up;
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_up.weight", true, &gate_up));
  const size_t n_ff = static_cast<size_t>(hp_.ffn_width(l.index));
  split_rows(gate_up, hp_.n_embd, {{n_ff, &l.w_gate}, {n_ff, &l.w_up}});
  return Status::Ok();
}

// rope_freqs.weight when present; else Phi-3's LongRoPE factors, long when the context exceeds
// the original one, as Model::fit_context chooses.
Status ReferenceForward::decode_rope_factors(const GgufFile& gguf, int n_ctx_per_seq) {
  STRATA_RETURN_IF_ERROR(decode(gguf, "rope_freqs.weight", false, &rope_freqs_));
  if (rope_freqs_.empty()) {
    const bool long_context = n_ctx_per_seq > hp_.rope_orig_ctx;
    STRATA_RETURN_IF_ERROR(
        decode(gguf, long_context ? "rope_factors_long.weight" : "rope_factors_short.weight", false, &rope_freqs_));
  }
  // Step 3.5's newer files pad the factors with 1s to half a head.
  const size_t n_pairs = static_cast<size_t>(hp_.n_rot / 2);
  if (hp_.rope_freqs_padded && rope_freqs_.size() > n_pairs && std::all_of(rope_freqs_.begin() + static_cast<std::ptrdiff_t>(n_pairs),
                                                  rope_freqs_.end(), [](double f) { return f == 1.0; })) {
    rope_freqs_.resize(n_pairs);
  }
  if (!rope_freqs_.empty() && rope_freqs_.size() != n_pairs) {
    return Status::Corrupt("reference: rope factors: " + std::to_string(rope_freqs_.size()) +
                           " factors, expected n_rot / 2 = " + std::to_string(hp_.n_rot / 2));
  }
  return Status::Ok();
}

Result<ReferenceForward> ReferenceForward::Load(const GgufFile& gguf, int n_ctx_per_seq) {
  ReferenceForward r;
  STRATA_ASSIGN_OR_RETURN(r.hp_, read_hparams(gguf));
  STRATA_RETURN_IF_ERROR(decode(gguf, "token_embd.weight", true, &r.token_embd_));
  STRATA_RETURN_IF_ERROR(decode(gguf, r.hp_.output_norm_name + ".weight", true, &r.output_norm_));
  STRATA_RETURN_IF_ERROR(decode(gguf, "output.weight", false, &r.output_));
  if (r.output_.empty()) r.output_ = r.token_embd_;
  STRATA_RETURN_IF_ERROR(r.decode_rope_factors(gguf, n_ctx_per_seq));
  if (r.hp_.n_embd_per_layer > 0) STRATA_RETURN_IF_ERROR(r.decode_per_layer_inputs(gguf));
  if (r.hp_.n_altup > 1) STRATA_RETURN_IF_ERROR(r.decode_altup_tables(gguf));
  r.layers_.resize(static_cast<size_t>(r.hp_.n_layer));
  for (int i = 0; i < r.hp_.n_layer; ++i) {
    const std::string p = "blk." + std::to_string(i) + ".";
    Layer& l = r.layers_[static_cast<size_t>(i)];
    l.index = i;
    // Nemotron's layers without attention have no attn_norm; its linear ones attn_output alone.
    const AttnKind kind = r.hp_.attn_kind(i);
    const bool pre_norms = r.hp_.pre_norms;  // OLMo 2's layers have none
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_norm.weight", kind != AttnKind::kNone && pre_norms, &l.attn_norm));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "layer_output_scale.weight", false, &l.out_scale));
    const bool ple = r.hp_.n_embd_per_layer > 0;
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "inp_gate.weight", ple, &l.ple_gate));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "proj.weight", ple, &l.ple_proj));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "post_norm.weight", ple, &l.ple_post_norm));
    if (kind == AttnKind::kLinear) {
      STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_output.weight", true, &l.wo));
    } else if (kind == AttnKind::kAttention) {
      const bool recurrent = r.hp_.layer_is_recurrent(i);
      STRATA_RETURN_IF_ERROR(r.hp_.ssm_parallel_attention      ? r.decode_falcon_h1(gguf, p, l)
                             : recurrent && r.hp_.ssm_short_conv ? r.decode_short_conv(gguf, p, l)
                             : recurrent && r.hp_.ssm_mamba2   ? r.decode_mamba2(gguf, p, l)
                             : recurrent                       ? r.decode_delta_net(gguf, p, l)
                                                               : r.decode_attention(gguf, p, l));
    }
    if (r.hp_.n_altup > 1) STRATA_RETURN_IF_ERROR(r.decode_altup(gguf, p, l));
    if (!r.hp_.layer_has_ffn(i)) continue;
    if (!r.hp_.parallel_block) {
      STRATA_RETURN_IF_ERROR(decode(gguf, p + r.hp_.ffn_norm_name + r.hp_.ffn_norm_suffix, pre_norms, &l.ffn_norm));
    }
    if (r.hp_.post_norms) {  // gpt-oss's post_attention_norm is its feed-forward norm
      STRATA_RETURN_IF_ERROR(decode(gguf, p + "post_attention_norm.weight", true, &l.attn_post_norm));
      STRATA_RETURN_IF_ERROR(decode(gguf, p + "post_ffw_norm.weight", true, &l.ffn_post_norm));
    }
    const bool moe = r.hp_.layer_is_moe(i);
    if (r.hp_.sub_norms) STRATA_RETURN_IF_ERROR(r.decode_bitnet(gguf, p, l));
    STRATA_RETURN_IF_ERROR(r.decode_gate_up(gguf, p, l));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_down.weight", !moe, &l.w_down));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_gate_inp.weight", moe, &l.router));
    // Gemma 4's experts come as one gate/up tensor, and any MoE file's may (llama.cpp's newer converter).
    const bool fused = moe && (r.hp_.moe_beside_dense || gguf.find_tensor(p + "ffn_gate_up_exps.weight") != nullptr);
    if (moe && r.hp_.moe_beside_dense) {
      STRATA_RETURN_IF_ERROR(r.decode_moe_beside_dense(gguf, p, l));
    } else if (fused) {
      STRATA_RETURN_IF_ERROR(r.decode_gate_up_exps(gguf, p, l));
    }
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_gate_exps.weight", moe && !fused && !r.hp_.ffn_relu_sq, &l.exp_gate));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_up_exps.weight", moe && !fused, &l.exp_up));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_down_exps.weight", moe, &l.exp_down));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_gate_inp.bias", false, &l.router_b));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_gate_exps.bias", false, &l.exp_gate_b));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_up_exps.bias", false, &l.exp_up_b));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_down_exps.bias", false, &l.exp_down_b));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "exp_probs_b.bias", false, &l.exp_probs_b));
    const bool shared = moe && r.hp_.n_ff_shexp > 0;
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_gate_shexp.weight", shared && !r.hp_.ffn_relu_sq, &l.shexp_gate));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_up_shexp.weight", shared, &l.shexp_up));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_down_shexp.weight", shared, &l.shexp_down));
    STRATA_RETURN_IF_ERROR(
        decode(gguf, p + "ffn_gate_inp_shexp.weight", shared && r.hp_.shexp_gated, &l.shexp_gate_inp));
  }
  return r;
}

// Each expert's gate and up rows from the fused ffn_gate_up_exps (an expert's gate rows first).
Status ReferenceForward::decode_gate_up_exps(const GgufFile& gguf, const std::string& p, Layer& l) const {
  Vec gate_up;
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_gate_up_exps.weight", true, &gate_up));
  const auto ff = static_cast<std::ptrdiff_t>(hp_.n_ff_exp), n = static_cast<std::ptrdiff_t>(hp_.n_embd);
  for (std::ptrdiff_t e = 0; e < hp_.n_expert; ++e) {
    const auto first = gate_up.begin() + e * 2 * ff * n;
    l.exp_gate.insert(l.exp_gate.end(), first, first + ff * n);
    l.exp_up.insert(l.exp_up.end(), first + ff * n, first + 2 * ff * n);
  }
  return Status::Ok();
}

// Pair index at which a pair turns n_turns times over YaRN's original context.
double yarn_pair(const Hparams& hp, double n_turns) {
  return hp.n_rot * std::log(hp.rope_yarn_orig_ctx / (n_turns * 2.0 * M_PI)) / (2.0 * std::log(hp.rope_freq_base));
}

// Rotates the first n_rot dims of each head by pos * freq_scale * base^(-2i / n_rot) / factor_i;
// a sliding-window layer with a base of its own (Gemma 3) by pos * base_swa^(-2i / n_rot).
// YaRN: pairs below the ramp (fast ones) keep the unscaled angle, pairs above it the scaled
// one, the ramp mixes linearly between pair indices at beta_fast and beta_slow turns (32 and 1
// unless the file says otherwise; rounded outwards),
// and every rotation is scaled by attn_factor * (1 + 0.1 ln(factor)).
void ReferenceForward::rope(Vec& x, int n_heads, bool sliding, int head_stride) const {
  // Gemma 4's sliding layers: heads of head_dim_swa, n_rot_swa of them rotated.
  const bool own_heads = sliding && hp_.head_dim_swa > 0;
  const int hd = head_stride > 0 ? head_stride : own_heads ? hp_.head_dim_swa : hp_.head_dim;
  const int n_rot = own_heads ? hp_.n_rot_swa : hp_.n_rot;
  const int half = n_rot / 2;
  const bool own_rope = sliding && hp_.rope_freq_base_swa > 0.0f;
  const bool yarn = !own_rope && hp_.rope_yarn_orig_ctx > 0;
  const double low = yarn ? std::max(0.0, std::floor(yarn_pair(hp_, hp_.rope_yarn_beta_fast))) : 0.0;
  const double high = yarn ? std::min(hp_.n_rot - 1.0, std::ceil(yarn_pair(hp_, hp_.rope_yarn_beta_slow))) : 0.0;
  // MLA's rotations keep their length (its scale goes into the scores').
  const double yarn_mag = yarn ? 1.0 + 0.1 * std::log(hp_.rope_yarn_factor) : 1.0;
  const double mag = own_rope || hp_.is_mla() ? 1.0 : hp_.rope_attn_factor * yarn_mag;
  for (int h = 0; h < n_heads; ++h) {
    double* head = x.data() + static_cast<size_t>(h) * hd;
    for (int i = 0; i < half; ++i) {
      const double factor = rope_freqs_.empty() || own_rope ? 1.0 : rope_freqs_[static_cast<size_t>(i)];
      const double scale = own_rope ? 1.0 : static_cast<double>(hp_.rope_freq_scale);
      const double base = own_rope ? hp_.rope_freq_base_swa : hp_.rope_freq_base;
      // M-RoPE sectors that read a text token's fourth position component, 0 (Hparams::rope_pos0_pairs).
      const bool pos0 = !hp_.rope_pos0_pairs.empty() && hp_.rope_pos0_pairs[static_cast<size_t>(i)] != 0;
      const double unscaled = (pos0 ? 0 : n_tokens_) * std::pow(base, -2.0 * i / n_rot) / factor;
      double theta = unscaled * scale;
      if (yarn) {
        const double keep = 1.0 - std::clamp((i - low) / std::max(0.001, high - low), 0.0, 1.0);
        theta = theta * (1.0 - keep) + unscaled * keep;
      }
      const int a = hp_.rope_neox ? i : 2 * i;
      const int b = hp_.rope_neox ? i + half : 2 * i + 1;
      const double x0 = head[a], x1 = head[b];
      head[a] = (x0 * std::cos(theta) - x1 * std::sin(theta)) * mag;
      head[b] = (x0 * std::sin(theta) + x1 * std::cos(theta)) * mag;
    }
  }
}

// RMS-norms each of x's n_heads heads of hd values with weight w (hd long).
void ReferenceForward::norm_heads(Vec& x, int n_heads, int hd, const Vec& w) const {
  for (int h = 0; h < n_heads; ++h) {
    Vec n = rmsnorm(x.data() + h * hd, w, hd, hp_.rms_eps);
    std::copy(n.begin(), n.end(), x.begin() + h * hd);
  }
}

// QK-norm of q and k: of each whole row (MiniMax-M2), Cohere's layer norm per head with gains of
// its own (Command R+), or an RMS norm per head.
void ReferenceForward::norm_qk(const Layer& l, const AttnShape& sh, bool stores_kv, Vec& q, Vec& k) const {
  const int hd = sh.head_dim;
  if (!l.q_norm.empty() && hp_.qk_norm_whole_row) {
    q = rmsnorm(q.data(), l.q_norm, static_cast<int>(q.size()), hp_.rms_eps);
    k = rmsnorm(k.data(), l.k_norm, static_cast<int>(k.size()), hp_.rms_eps);
  } else if (!l.q_norm.empty() && hp_.qk_norm_per_head_gains) {  // Command R+
    for (auto [x, n, w] : {std::tuple{&q, sh.n_head, &l.q_norm}, std::tuple{&k, sh.n_head_kv, &l.k_norm}}) {
      for (int h = 0; h < n; ++h) {
        const Vec gains(w->begin() + h * hd, w->begin() + (h + 1) * hd);
        Vec normed = layernorm(x->data() + h * hd, gains, hd, hp_.rms_eps);
        std::copy(normed.begin(), normed.end(), x->begin() + h * hd);
      }
    }
  } else if (!l.q_norm.empty()) {
    norm_heads(q, sh.n_head, hd, l.q_norm);
    if (stores_kv) norm_heads(k, sh.n_head_kv, hd, l.k_norm);
  }
}

// Step 3.5's, Ling 3.0's: each head's output (head_width values of att) times the sigmoid of its
// gate value; Laguna's: times its softplus. Nothing without a head gate.
void ReferenceForward::apply_head_gate(const Layer& l, const Vec& x, int head_width, Vec& att) const {
  if (l.head_gate.empty()) return;
  const Vec g = matvec(l.head_gate, x);
  for (size_t i = 0; i < att.size(); ++i) {
    const double v = g[i / static_cast<size_t>(head_width)];
    const double softplus = std::max(v, 0.0) + std::log1p(std::exp(-std::abs(v)));  // log(1 + e^v), stable
    att[i] *= hp_.attn_head_gate_softplus ? softplus : 1.0 / (1.0 + std::exp(-v));
  }
}

void ReferenceForward::attention(Layer& l, const Vec& x, Vec& out) const {
  const AttnShape sh = hp_.attn_shape(l.index);
  const int hd = sh.head_dim;
  // Gemma 4's shared layers compute q only and read an earlier layer's K/V.
  const bool stores_kv = hp_.layer_stores_kv(l.index);
  Vec q = matvec(l.wq, x), k = stores_kv ? matvec(l.wk, x) : Vec();
  Vec v = k;  // v from k without attn_v
  if (stores_kv && !l.wv.empty()) v = matvec(l.wv, x);
  // Qwen3.5: attn_q's rows give each head's q (hd values), then that head's output gate.
  Vec gate;
  if (hp_.attn_output_gate) {
    Vec q_only;
    for (int h = 0; h < hp_.n_head; ++h) {
      q_only.insert(q_only.end(), q.begin() + 2 * h * hd, q.begin() + (2 * h + 1) * hd);
      gate.insert(gate.end(), q.begin() + (2 * h + 1) * hd, q.begin() + (2 * h + 2) * hd);
    }
    q = q_only;
  }
  for (double& x : q) x *= l.q_scale;  // BitNet's matrix scales (1 elsewhere), before the biases
  for (double& x : k) x *= l.k_scale;
  for (double& x : v) x *= l.v_scale;
  if (!l.bq.empty()) {
    add(q, l.bq);
    add(k, l.bk);
    add(v, l.bv);
  }
  if (!hp_.qk_norm_after_rope) norm_qk(l, sh, stores_kv, q, k);
  if (hp_.v_norm && stores_kv) norm_heads(v, sh.n_head_kv, hd, Vec(static_cast<size_t>(hd), 1.0));
  for (double& x : v) x *= hp_.v_scale;  // MiMo-V2's; 1 elsewhere
  const bool sliding = hp_.layer_slides(l.index);
  // Llama 4: every nope_layer_step-th layer has no rope but a temperature on q; the others
  // L2-norm q and k after the rotation. Ministral 3: a temperature on q in every layer, after
  // the rotation.
  const bool rotates = hp_.layer_rotates(l.index);
  if (rotates) {
    rope(q, sh.n_head, sliding);
    if (stores_kv) rope(k, sh.n_head_kv, sliding);
    if (hp_.qk_norm_after_rope) norm_qk(l, sh, stores_kv, q, k);  // Hunyuan
    if (hp_.qk_l2_norm) {
      const Vec ones(static_cast<size_t>(hd), 1.0);
      norm_heads(q, sh.n_head, hd, ones);
      norm_heads(k, sh.n_head_kv, hd, ones);
    }
  }
  if (hp_.attn_temp_scale != 0.0f && (!rotates || hp_.attn_temp_every_layer)) {
    const double lengths = std::floor(static_cast<double>(n_tokens_ + 1) / hp_.attn_temp_length);
    for (double& x : q) x *= 1.0 + hp_.attn_temp_scale * std::log(lengths + 1.0);
  }
  if (stores_kv) {
    l.k_cache.push_back(k);
    l.v_cache.push_back(v);
  }
  // The layer whose K/V this one reads: itself, or Gemma 4's source of a shared layer.
  const Layer& kv = stores_kv ? l : layers_[static_cast<size_t>(hp_.kv_source[static_cast<size_t>(l.index)])];

  const int vhd = sh.v_head();  // MiMo-V2's value heads are narrower than its key heads
  Vec att(static_cast<size_t>(sh.n_head) * vhd, 0.0);
  const int group = sh.n_head / sh.n_head_kv;
  const size_t n_pos = kv.k_cache.size();
  // A sliding layer's query at position p sees keys (p - window, p]; a chunked one (Llama 4's
  // rope layers) the keys of its chunk up to p.
  size_t first = sliding && n_pos > static_cast<size_t>(hp_.sliding_window) ? n_pos - hp_.sliding_window : 0;
  if (rotates && hp_.attn_chunk > 0) first = (n_pos - 1) / hp_.attn_chunk * hp_.attn_chunk;
  for (int h = 0; h < sh.n_head; ++h) {
    const size_t kv_at = static_cast<size_t>(h / group) * hd;
    Vec scores(n_pos);
    double max_score = -INFINITY;
    for (size_t t = first; t < n_pos; ++t) {
      double dot = 0;
      for (int i = 0; i < hd; ++i) dot += q[h * hd + i] * kv.k_cache[t][kv_at + i];
      // Granite's attention.scale replaces 1 / sqrt(head size).
      scores[t] = hp_.attn_scale > 0.0f ? dot * hp_.attn_scale : dot / std::sqrt(static_cast<double>(hp_.attn_scale_dim));
      if (hp_.attn_softcap > 0.0f) scores[t] = hp_.attn_softcap * std::tanh(scores[t] / hp_.attn_softcap);
      max_score = std::max(max_score, scores[t]);
    }
    double sum = 0;
    for (size_t t = first; t < n_pos; ++t) sum += (scores[t] = std::exp(scores[t] - max_score));
    if (!l.sinks.empty()) sum += std::exp(l.sinks[static_cast<size_t>(h)] - max_score);  // a key of value 0
    const size_t v_at = static_cast<size_t>(h / group) * vhd;
    for (size_t t = first; t < n_pos; ++t) {
      for (int i = 0; i < vhd; ++i) att[h * vhd + i] += scores[t] / sum * kv.v_cache[t][v_at + i];
    }
  }
  for (size_t i = 0; i < gate.size(); ++i) att[i] /= 1.0 + std::exp(-gate[i]);
  apply_head_gate(l, x, vhd, att);
  if (!l.attn_sub_norm.empty()) att = rmsnorm(att.data(), l.attn_sub_norm, static_cast<int>(att.size()), hp_.rms_eps);
  out = matvec(l.wo, att);
  for (double& x : out) x *= l.o_scale;
  if (!l.bo.empty()) add(out, l.bo);
  if (!l.attn_post_norm.empty()) out = rmsnorm(out.data(), l.attn_post_norm, hp_.n_embd, hp_.rms_eps);
}

// Apertus's feed-forward: down(xIELU(up x)), xIELU in double from its formula with layer l's values.
Vec ReferenceForward::xielu_ffn(const Layer& l, const Vec& x) const {
  const auto i = static_cast<size_t>(l.index);
  const double alpha_n = hp_.xielu_alpha_n[i], alpha_p = hp_.xielu_alpha_p[i], beta = hp_.xielu_beta[i];
  const double eps = hp_.xielu_eps[i];
  Vec up = matvec(l.w_up, x);
  for (double& u : up) u = u > 0.0 ? alpha_p * u * u + beta * u : (std::expm1(std::min(u, eps)) - u) * alpha_n + beta * u;
  return matvec(l.w_down, up);
}

Vec ReferenceForward::feed_forward(const Layer& l, const Vec& x) const {
  if (hp_.ffn_relu_sq && !hp_.layer_is_moe(l.index)) {  // Nemotron-H: down(relu(up x)^2)
    return relu_sq_ffn(l.w_up, l.w_down, 0, static_cast<size_t>(hp_.ffn_width(l.index)), x);
  }
  if (hp_.ffn_xielu) return xielu_ffn(l, x);  // Apertus
  if (hp_.sub_norms) return bitnet_ffn(l, x);
  if (!hp_.layer_is_moe(l.index)) {
    Vec y = swiglu(l.w_gate, l.w_up, l.w_down, 0, static_cast<size_t>(hp_.ffn_width(l.index)), x, gate_of(hp_), {}, {},
                   {}, hp_.ffn_limit(l.index, false));
    if (!l.ffn_post_norm.empty()) y = rmsnorm(y.data(), l.ffn_post_norm, hp_.n_embd, hp_.rms_eps);
    return y;
  }
  Vec out = routed_experts(l, x, x);
  if (hp_.n_ff_shexp > 0) {
    double g = 0;
    for (size_t i = 0; i < l.shexp_gate_inp.size(); ++i) g += l.shexp_gate_inp[i] * x[i];
    const double scale = hp_.shexp_gated ? 1.0 / (1.0 + std::exp(-g)) : 1.0;
    const size_t n_ff = static_cast<size_t>(hp_.n_ff_shexp);
    const Vec y = hp_.ffn_relu_sq ? relu_sq_ffn(l.shexp_up, l.shexp_down, 0, n_ff, x)
                                  : swiglu(l.shexp_gate, l.shexp_up, l.shexp_down, 0, n_ff, x, gate_of(hp_), {}, {}, {},
                                           hp_.ffn_limit(l.index, false));
    for (size_t i = 0; i < out.size(); ++i) out[i] += y[i] * scale;
  }
  return out;
}

std::vector<double> ReferenceForward::step(int32_t token) {
  if (hp_.n_altup > 1) return altup_step(token);  // Gemma 3n
  const int n_embd = hp_.n_embd;
  Vec h(token_embd_.begin() + static_cast<size_t>(token) * n_embd,
        token_embd_.begin() + static_cast<size_t>(token + 1) * n_embd);
  if (hp_.embd_scale != 1.0f) {  // Gemma's sqrt(n_embd), or Granite's embedding_scale
    const double scale = find_arch(hp_.arch)->embed_scaled ? std::sqrt(static_cast<double>(n_embd)) : hp_.embd_scale;
    for (double& v : h) v *= scale;
  }
  // Cohere's layer norm, or the RMS norm of every other architecture; no weight: no norm (OLMo 2's
  // layers).
  auto norm = [&](const Vec& x, const Vec& w) {
    if (w.empty()) return x;
    return hp_.layer_norm ? layernorm(x.data(), w, n_embd, hp_.rms_eps) : rmsnorm(x.data(), w, n_embd, hp_.rms_eps);
  };
  const Vec inputs = hp_.n_embd_per_layer > 0 ? per_layer_inputs(token, h) : Vec();
  for (Layer& l : layers_) {
    Vec att;
    const AttnKind kind = hp_.attn_kind(l.index);
    const Vec normed = kind == AttnKind::kNone ? Vec() : norm(h, l.attn_norm);
    if (kind == AttnKind::kNone) {
      att.assign(h.size(), 0.0);  // Nemotron's layers without attention
    } else if (kind == AttnKind::kLinear) {
      att = matvec(l.wo, normed);
    } else if (hp_.ssm_parallel_attention) {
      mamba2_beside_attention(l, normed, att);
    } else if (hp_.layer_is_recurrent(l.index) && hp_.ssm_short_conv) {
      short_conv(l, normed, att);
    } else if (hp_.layer_is_recurrent(l.index) && hp_.ssm_mamba2) {
      mamba2(l, normed, att);
    } else if (hp_.layer_is_recurrent(l.index)) {
      delta_net(l, normed, att);
    } else if (hp_.is_mla()) {
      mla_attention(l, normed, att);
    } else {
      attention(l, normed, att);
    }
    for (double& v : att) v *= hp_.residual_scale;  // Granite's; 1 elsewhere
    add(h, att);
    if (!hp_.layer_has_ffn(l.index)) continue;  // and its layers without a feed-forward
    // Cohere's parallel block: the feed-forward reads the same norm of the layer's input.
    Vec ffn = hp_.moe_beside_dense && hp_.layer_is_moe(l.index)
                  ? moe_beside_dense(l, h)
                  : feed_forward(l, hp_.parallel_block ? normed : norm(h, l.ffn_norm));
    for (double& v : ffn) v *= hp_.residual_scale;
    add(h, ffn);
    if (!inputs.empty()) add_per_layer_block(l, inputs, h);  // Gemma 4 E2B / E4B
    if (!l.out_scale.empty()) {  // Gemma 4's layer_output_scale
      for (double& v : h) v *= l.out_scale[0];
    }
  }
  ++n_tokens_;
  Vec logits = matvec(output_, norm(h, output_norm_));
  if (hp_.final_softcap > 0.0f) {  // Gemma 2
    for (double& x : logits) x = hp_.final_softcap * std::tanh(x / hp_.final_softcap);
  }
  for (double& x : logits) x /= hp_.logit_scale;  // Granite's and Cohere's; 1 elsewhere
  return logits;
}

LogitErrors logit_errors(ReferenceForward& ref, std::span<const int32_t> tokens, const float* logits) {
  LogitErrors e;
  double total_sq = 0, total_err_sq = 0;
  for (size_t pos = 0; pos < tokens.size(); ++pos) {
    const std::vector<double> expect = ref.step(tokens[pos]);
    const size_t n_vocab = expect.size();
    double sum_sq = 0;
    for (double x : expect) sum_sq += x * x;
    const double rms = std::sqrt(sum_sq / static_cast<double>(n_vocab));
    total_sq += sum_sq;
    for (size_t i = 0; i < n_vocab; ++i) {
      const double err = logits[pos * n_vocab + i] - expect[i];
      total_err_sq += err * err;
      e.max_rel = std::max(e.max_rel, std::fabs(err) / rms);
    }
  }
  e.rms_rel = std::sqrt(total_err_sq / total_sq);
  return e;
}

}  // namespace strata::testing
