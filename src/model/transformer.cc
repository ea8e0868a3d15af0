// The forward pass of a transformer (llama, qwen2, qwen3, their mixture-of-experts forms,
// gemma2, gemma3, gemma4, gpt-oss, phi3, glm4, glm4moe, llama4, smollm3, minimax-m2, mistral3, ernie4_5(-moe),
// granite(moe), seed_oss, bailingmoe2, dots1, cohere2, step35, laguna, mimo2, deci, the vision-language models'
// language models (qwen2vl, qwen3vl(moe)), deepseek2 and glm-dsa, whose latent attention is mla_attention.cc, and the hybrid
// qwen35(moe), qwen3next, granitehybrid, nemotron_h, lfm2(moe), falcon-h1 and bailingmoe3 (latent attention beside
// Kimi Delta Attention), whose recurrent layers are delta_net.cc, mamba2.cc and short_conv.cc), top to bottom.
//
// Rows are independent except through the K/V cache: every per-row step below writes only
// that row's outputs, and the matmuls (the only place rows meet) are batch-invariant by
// the kernels' contract. So a row's bits never depend on what else is in the batch.
#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstring>
#include <span>

#include "kernels/softcap.h"
#include "model/attention_items.h"
#include "model/delta_net.h"
#include "model/dense_ffn.h"
#include "model/forward_matmul.h"
#include "model/mamba2.h"
#include "model/short_conv.h"
#include "model/mla_attention.h"
#include "model/model.h"
#include "model/model_impl.h"
#include "model/moe_ffn.h"
#include "model/row_loop.h"

namespace strata {
namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f;

void add_in_place(float* x, const float* y, int n) {
  for (int i = 0; i < n; ++i) x[i] += y[i];
}

// A block's output y joins the residual stream x: times Granite's residual_scale first.
void add_residual(const Hparams& hp, float* x, float* y, int n) {
  if (hp.residual_scale != 1.0f) {
    for (int i = 0; i < n; ++i) y[i] *= hp.residual_scale;
  }
  add_in_place(x, y, n);
}

// RMS-norms each of x's n_heads heads of head_dim values with weight w (head_dim long).
void norm_heads(float* x, int n_heads, int head_dim, const float* w, float eps) {
  for (int h = 0; h < n_heads; ++h) kernels::rmsnorm(x + h * head_dim, w, head_dim, eps, x + h * head_dim);
}

// Command R+: layer-norms each head with its own gains (w holds n_heads rows of head_dim).
void layer_norm_heads(float* x, int n_heads, int head_dim, const float* w, float eps) {
  for (int h = 0; h < n_heads; ++h) {
    kernels::layernorm(x + h * head_dim, w + h * head_dim, head_dim, eps, x + h * head_dim);
  }
}

// QK-norm of one row's q and k: of each whole row (MiniMax-M2), Cohere's layer norm per head
// with gains of its own (Command R+), or an RMS norm per head; k only when the layer stores it.
void norm_qk(const Hparams& hp, const AttnShape& sh, const LayerWeights& lw, bool stores_kv, float* q, float* k) {
  if (lw.q_norm == nullptr) return;
  if (hp.qk_norm_whole_row) {
    kernels::rmsnorm(q, lw.q_norm, sh.q_dim(), hp.rms_eps, q);
    kernels::rmsnorm(k, lw.k_norm, sh.kv_dim(), hp.rms_eps, k);
  } else if (hp.qk_norm_per_head_gains) {
    layer_norm_heads(q, sh.n_head, sh.head_dim, lw.q_norm, hp.rms_eps);
    layer_norm_heads(k, sh.n_head_kv, sh.head_dim, lw.k_norm, hp.rms_eps);
  } else {
    norm_heads(q, sh.n_head, sh.head_dim, lw.q_norm, hp.rms_eps);
    if (stores_kv) norm_heads(k, sh.n_head_kv, sh.head_dim, lw.k_norm, hp.rms_eps);
  }
}

// MiMo-V2's narrow value heads (sh.v_head() values each, packed in v) into the cache's heads of
// sh.head_dim (wide), zero-padded, times v_scale.
void widen_v_row(const AttnShape& sh, float v_scale, const float* v, float* wide) {
  const int n = sh.v_head();
  for (int h = 0; h < sh.n_head_kv; ++h) {
    float* out = wide + static_cast<size_t>(h) * sh.head_dim;
    for (int i = 0; i < n; ++i) out[i] = v[static_cast<size_t>(h) * n + i] * v_scale;
    std::fill(out + n, out + sh.head_dim, 0.0f);
  }
}

// Each head's first sh.v_head() values of one row's attention output (heads of sh.head_dim) into
// out, packed: what attn_output reads when value heads are narrow.
void narrow_out_row(const AttnShape& sh, const float* attn, float* out) {
  const int n = sh.v_head();
  for (int h = 0; h < sh.n_head; ++h) {
    std::memcpy(out + static_cast<size_t>(h) * n, attn + static_cast<size_t>(h) * sh.head_dim, sizeof(float) * n);
  }
}

// Bias, QK-norm (per head, or of the whole row; before the rotation, or after it in Hunyuan) and
// rotary embedding of one row's q and k, and
// q's temperature (Llama 4's layers without rope, every Ministral 3 layer); Gemma 4's v (k's
// projection when the layer has no attn_v, then normed); then the row's k and v go into the
// cache at its position. v holds sh.v_dim() values; with narrow value heads (MiMo-V2) they go to
// the cache through v_wide (sh.kv_dim() floats), padded and scaled.
void finish_qkv_row(const Hparams& hp, const kernels::RopeParams& rope, const LayerWeights& lw, int layer,
                    const Row& row, float* q, float* k, float* v, float* v_wide, KvView& kv) {
  const AttnShape sh = hp.attn_shape(layer);
  const int q_dim = sh.q_dim();
  const int kv_dim = sh.kv_dim();
  // Gemma 4's layers that read an earlier layer's K/V have only q to finish.
  const bool stores_kv = hp.layer_stores_kv(layer);
  if (stores_kv && lw.wv.data == nullptr) std::memcpy(v, k, sizeof(float) * static_cast<size_t>(kv_dim));
  if (lw.scales.q != 1.0f) scale_row(q, lw.scales.q, q_dim);  // BitNet's matrix scales, before the biases
  if (lw.scales.k != 1.0f) scale_row(k, lw.scales.k, kv_dim);
  if (lw.scales.v != 1.0f) scale_row(v, lw.scales.v, sh.v_dim());
  if (lw.bq != nullptr) {
    add_in_place(q, lw.bq, q_dim);
    add_in_place(k, lw.bk, kv_dim);
    add_in_place(v, lw.bv, sh.v_dim());
  }
  if (sh.narrow_v()) {
    widen_v_row(sh, hp.v_scale, v, v_wide);
    v = v_wide;
  } else if (hp.v_scale != 1.0f) {
    for (int i = 0; i < kv_dim; ++i) v[i] *= hp.v_scale;
  }
  if (!hp.qk_norm_after_rope) norm_qk(hp, sh, lw, stores_kv, q, k);
  if (lw.v_unit_norm != nullptr && stores_kv) norm_heads(v, sh.n_head_kv, sh.head_dim, lw.v_unit_norm, hp.rms_eps);
  const bool rotates = hp.layer_rotates(layer);
  if (rotates) {
    kernels::rope(q, sh.n_head, row.pos, rope);
    if (stores_kv) kernels::rope(k, sh.n_head_kv, row.pos, rope);
    if (hp.qk_norm_after_rope) norm_qk(hp, sh, lw, stores_kv, q, k);  // Hunyuan: after the rotation
    if (lw.qk_unit_norm != nullptr) {  // Llama 4: after the rotation, without weights
      norm_heads(q, sh.n_head, sh.head_dim, lw.qk_unit_norm, hp.rms_eps);
      norm_heads(k, sh.n_head_kv, sh.head_dim, lw.qk_unit_norm, hp.rms_eps);
    }
  }
  // Llama 4's layers without rope; Ministral 3's every layer, after the rotation.
  if (hp.attn_temp_scale != 0.0f && (!rotates || hp.attn_temp_every_layer)) {
    const float t = hp.attn_temperature(row.pos);
    for (int i = 0; i < q_dim; ++i) q[i] *= t;
  }
  if (!stores_kv) return;

  const KvLayout& L = kv.layout();
  const int kv_layer = hp.kv_layer(layer);
  std::byte* block = kv.block(row.seq, L.group_of(kv_layer), row.pos / L.block_tokens);
  const int in_block = row.pos % L.block_tokens;
  kernels::store_kv(k, kv_dim, L.type, block + L.k_offset(kv_layer, in_block));
  kernels::store_kv(v, kv_dim, L.type, block + L.v_offset(kv_layer, in_block));
}

// Hparams::attn_output_gate: attn_q gave each head's q then its gate (q_gate, 2 * q_dim
// floats); q gets the q halves.
void split_q_gate(const Hparams& hp, const float* q_gate, float* q) {
  for (int h = 0; h < hp.n_head; ++h) {
    std::memcpy(q + static_cast<size_t>(h) * hp.head_dim, q_gate + static_cast<size_t>(2 * h) * hp.head_dim,
                sizeof(float) * hp.head_dim);
  }
}

// out (q_dim floats) times the sigmoid of each head's gate half of q_gate.
void apply_output_gate(const Hparams& hp, const float* q_gate, float* out) {
  for (int h = 0; h < hp.n_head; ++h) {
    const float* g = q_gate + static_cast<size_t>(2 * h + 1) * hp.head_dim;
    float* o = out + static_cast<size_t>(h) * hp.head_dim;
    for (int i = 0; i < hp.head_dim; ++i) o[i] *= 1.0f / (1.0f + std::exp(-g[i]));
  }
}

// Step 3.5: each head of out (sh.n_head heads) times the sigmoid of its gate value; Laguna: times
// its softplus (log(1 + e^g), g itself past 20, where the two agree to float precision).
void apply_head_gate(const AttnShape& sh, bool softplus, const float* gate, float* out) {
  for (int h = 0; h < sh.n_head; ++h) {
    const float g = softplus ? (gate[h] > 20.0f ? gate[h] : std::log1p(std::exp(gate[h])))
                             : 1.0f / (1.0f + std::exp(-gate[h]));
    float* o = out + static_cast<size_t>(h) * sh.head_dim;
    for (int i = 0; i < sh.head_dim; ++i) o[i] *= g;
  }
}

// One row's norm: RMS, or Cohere's layer norm (Hparams::layer_norm).
// No weight: a layer without pre-norms (OLMo 2), whose blocks read the layer's input as it is.
void norm_row(const Hparams& hp, const float* x, const float* weight, float* out) {
  if (weight == nullptr) {
    std::copy_n(x, hp.n_embd, out);
  } else if (hp.layer_norm) {
    kernels::layernorm(x, weight, hp.n_embd, hp.rms_eps, out);
  } else {
    kernels::rmsnorm(x, weight, hp.n_embd, hp.rms_eps, out);
  }
}

void norm_rows(const Hparams& hp, const float* x, const float* weight, int n_rows, float* out, ThreadPool& pool) {
  const int n = hp.n_embd;
  for_each_row(pool, n_rows, n, [&](int r) {
    norm_row(hp, x + static_cast<size_t>(r) * n, weight, out + static_cast<size_t>(r) * n);
  });
}

// Gemma 4's MoE layer (Hparams::moe_beside_dense) on the rows of hidden, s.normed() holding their
// ffn_norm: s.proj()[r] = post_ffw_norm_1(dense) + post_ffw_norm_2(experts of pre_ffw_norm_2(x),
// routed on RMS-norm(x) times the router's input scale). s.shared_out() holds the dense part.
void moe_beside_dense_ffn(const Hparams& hp, const LayerWeights& lw, int layer, int n, const float* hidden,
                          ForwardScratch& s, ThreadPool& pool) {
  const int n_embd = hp.n_embd;
  dense_ffn(hp, lw, layer, n, s, pool);  // timed by its parts, as a dense layer's
  ProfileTimer timer(s.profile(), StepPart::kMoe);
  for_each_row(pool, n, 3 * n_embd, [&](int r) {
    const size_t at = static_cast<size_t>(r) * n_embd;
    kernels::rmsnorm(s.proj() + at, lw.ffn_post_norm_1, n_embd, hp.rms_eps, s.shared_out() + at);
    kernels::rmsnorm(hidden + at, lw.ffn_pre_norm_2, n_embd, hp.rms_eps, s.normed() + at);
    kernels::rmsnorm(hidden + at, lw.router_in_scale, n_embd, hp.rms_eps, s.router_in() + at);
  });
  moe_ffn(hp, lw, layer, n, s, pool, s.router_in());
  for_each_row(pool, n, 2 * n_embd, [&](int r) {
    float* out = s.proj() + static_cast<size_t>(r) * n_embd;
    kernels::rmsnorm(out, lw.ffn_post_norm_2, n_embd, hp.rms_eps, out);
    add_in_place(out, s.shared_out() + static_cast<size_t>(r) * n_embd, n_embd);
  });
}

// One layer's q/k/v attention over the rows' norms in s.normed() (their K/V into the cache
// first), its output projected into s.proj(); rope is the layer's (sliding or full).
void attention_layer(const Hparams& hp, const kernels::RopeParams& rope, const LayerWeights& lw, int layer,
                     std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool) {
  const int n = static_cast<int>(rows.size());
  const int q_dim = hp.attn_shape(layer).q_dim();
  const int kv_dim = hp.attn_shape(layer).kv_dim();
  const bool gated = hp.attn_output_gate;
  const bool head_gated = lw.attn_head_gate.data != nullptr;  // Step 3.5's and Laguna's gate per head
  // Without attn_v (Gemma 4's full layers) finish_qkv_row takes v from k; Gemma 4's layers
  // that share an earlier layer's K/V multiply q only.
  std::array<kernels::MatmulJob, 4> qkv;
  size_t n_jobs = 0;
  qkv[n_jobs++] = {&lw.wq, s.normed(), n, gated ? s.q_gate() : s.q()};
  if (lw.wk.data != nullptr) qkv[n_jobs++] = {&lw.wk, s.normed(), n, s.k()};
  // Narrow value heads (MiMo-V2) land packed in attn_out (free till the attention), and
  // finish_qkv_row widens them into v.
  const AttnShape sh = hp.attn_shape(layer);
  float* v_out = sh.narrow_v() ? s.attn_out() : s.v();
  if (lw.wv.data != nullptr) qkv[n_jobs++] = {&lw.wv, s.normed(), n, v_out};
  if (head_gated) qkv[n_jobs++] = {&lw.attn_head_gate, s.normed(), n, s.q_gate()};
  matmul_same_input(std::span<const kernels::MatmulJob>(qkv.data(), n_jobs), s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kQkvFinish);
    for_each_row(pool, n, q_dim + 2 * kv_dim, [&](int r) {
      float* q = s.q() + static_cast<size_t>(r) * q_dim;
      if (gated) split_q_gate(hp, s.q_gate() + static_cast<size_t>(r) * 2 * q_dim, q);
      float* v_wide = s.v() + static_cast<size_t>(r) * kv_dim;
      float* v = sh.narrow_v() ? v_out + static_cast<size_t>(r) * sh.v_dim() : v_wide;
      finish_qkv_row(hp, rope, lw, layer, rows[r], q, s.k() + static_cast<size_t>(r) * kv_dim, v, v_wide, kv);
    });
  }
  {
    ProfileTimer timer(s.profile(), StepPart::kAttention);
    attend_all({hp, layer, lw.attn_sinks}, rows, kv, s, pool);
    if (gated) {
      for_each_row(pool, n, q_dim, [&](int r) {
        apply_output_gate(hp, s.q_gate() + static_cast<size_t>(r) * 2 * q_dim,
                          s.attn_out() + static_cast<size_t>(r) * q_dim);
      });
    }
    if (head_gated) {
      for_each_row(pool, n, q_dim, [&](int r) {
        apply_head_gate(sh, hp.attn_head_gate_softplus, s.q_gate() + static_cast<size_t>(r) * sh.n_head,
                        s.attn_out() + static_cast<size_t>(r) * q_dim);
      });
    }
    if (sh.narrow_v()) {  // q is spent: it takes the heads' values, packed
      for_each_row(pool, n, q_dim, [&](int r) {
        narrow_out_row(sh, s.attn_out() + static_cast<size_t>(r) * q_dim, s.q() + static_cast<size_t>(r) * sh.out_dim());
      });
    }
  }
  if (lw.attn_sub_norm != nullptr) {  // BitNet
    for_each_row(pool, n, q_dim, [&](int r) {
      float* o = s.attn_out() + static_cast<size_t>(r) * q_dim;
      kernels::rmsnorm(o, lw.attn_sub_norm, q_dim, hp.rms_eps, o);
    });
  }
  matmul(lw.wo, sh.narrow_v() ? s.q() : s.attn_out(), n, s.proj(), s, pool);
  scale_rows(s.proj(), lw.scales.o, n, hp.n_embd, pool);
}

// Falcon-H1's layer (Hparams::ssm_parallel_attention): the Mamba-2 mixer and attention over the same
// s.normed(), their outputs added in s.proj(); up() holds the Mamba-2 output meanwhile (its rows
// are at least n_embd wide in such a model: Model::make_scratch).
void mamba2_beside_attention(const Hparams& hp, const kernels::RopeParams& rope, const LayerWeights& lw, int layer,
                             std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool) {
  const int n = static_cast<int>(rows.size());
  const int n_embd = hp.n_embd;
  mamba2({hp, lw, layer}, rows, kv, s, pool);
  std::copy_n(s.proj(), static_cast<size_t>(n) * n_embd, s.up());
  attention_layer(hp, rope, lw, layer, rows, kv, s, pool);
  for_each_row(pool, n, n_embd, [&](int r) {
    add_in_place(s.proj() + static_cast<size_t>(r) * n_embd, s.up() + static_cast<size_t>(r) * n_embd, n_embd);
  });
}

}  // namespace

void Model::embed(std::span<const Row> rows, float* hidden) const {
  const Hparams& hp = impl_->hp;
  for (size_t r = 0; r < rows.size(); ++r) {
    float* out = hidden + r * hp.n_embd;
    const int32_t token = rows[r].token;
    // Callers validate tokens; an id outside the vocabulary still must not read out of bounds.
    if (token < 0 || token >= hp.n_vocab) {
      std::memset(out, 0, sizeof(float) * hp.n_embd);
      continue;
    }
    kernels::dequantize_row(impl_->w.token_embd, token, out);
    if (hp.embd_scale != 1.0f) {
      for (int i = 0; i < hp.n_embd; ++i) out[i] *= hp.embd_scale;
    }
  }
}

void Model::forward_layers(std::span<const Row> rows, int first_layer, int last_layer, float* hidden, KvView& kv,
                           ForwardScratch& s, ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  const int n = static_cast<int>(rows.size());
  assert(n <= s.max_rows());
  assert(kv.layout().block_tokens <= s.max_block_tokens());
  assert(std::all_of(rows.begin(), rows.end(), [&](const Row& r) { return r.pos >= 0 && r.pos < s.max_seq_tokens(); }));
  if (n == 0) return;
  const int n_embd = hp.n_embd;
  // Gemma 3n: hidden holds AltUp's streams; each layer runs on its prediction of stream 0.
  const bool altup = hp.n_altup > 1;
  if (altup && first_layer == 0) altup_expand(rows, hidden, s, pool);
  float* const streams = hidden;
  for (int layer = first_layer; layer < last_layer; ++layer) {
    const LayerWeights& lw = impl_->w.layers[layer];
    if (altup) {
      altup_predict(rows, layer, streams, s, pool);
      hidden = s.altup_active();
    }
    // Nemotron's layers may lack the attention (kNone), or have attn_output alone (kLinear).
    const AttnKind kind = hp.attn_kind(layer);
    // Attention. Every row stores its K/V before any row attends, and every row reads its
    // keys back from the cache, so a prompt gives the same bits whatever its chunking.
    if (kind != AttnKind::kNone) {
      {
        ProfileTimer timer(s.profile(), StepPart::kNorm);
        norm_rows(hp, hidden, lw.attn_norm, n, s.normed(), pool);
      }
      if (altup) laurel(layer, n, s, pool);
      if (hp.ssm_parallel_attention) {
        mamba2_beside_attention(hp, impl_->rope, lw, layer, rows, kv, s, pool);
      } else if (hp.layer_is_recurrent(layer) && hp.ssm_short_conv) {
        short_conv({hp, lw, layer}, rows, kv, s, pool);
      } else if (hp.layer_is_recurrent(layer) && hp.ssm_mamba2) {
        mamba2({hp, lw, layer}, rows, kv, s, pool);
      } else if (hp.layer_is_recurrent(layer)) {
        delta_net({hp, lw, layer}, rows, kv, s, pool);
      } else if (hp.is_mla()) {
        mla_attention({hp, impl_->rope, lw, layer}, rows, kv, s, pool);
      } else if (kind == AttnKind::kLinear) {
        matmul(lw.wo, s.normed(), n, s.proj(), s, pool);
      } else {
        attention_layer(hp, hp.layer_slides(layer) ? impl_->rope_sliding : impl_->rope, lw, layer, rows, kv, s, pool);
      }
    }
    const bool has_ffn = hp.layer_has_ffn(layer);
    if (kind == AttnKind::kNone && !has_ffn) continue;

    // Output bias (gpt-oss), residual (of the post-normed output, gemma3), then the
    // feed-forward block: gated, or routed through experts; Cohere's parallel block feeds it the
    // attention's norm of the layer's input, still in s.normed().
    {
      ProfileTimer timer(s.profile(), StepPart::kNorm);
      for_each_row(pool, n, n_embd, [&](int r) {
        float* h = hidden + static_cast<size_t>(r) * n_embd;
        float* proj = s.proj() + static_cast<size_t>(r) * n_embd;
        if (kind != AttnKind::kNone) {
          if (lw.bo != nullptr) add_in_place(proj, lw.bo, n_embd);
          if (lw.attn_post_norm != nullptr) kernels::rmsnorm(proj, lw.attn_post_norm, n_embd, hp.rms_eps, proj);
          add_residual(hp, h, proj, n_embd);
          if (altup) {  // Gemma 3n: the laurel branch joins the attention's output
            const float* branch = s.laurel() + static_cast<size_t>(r) * n_embd;
            for (int i = 0; i < n_embd; ++i) h[i] = (h[i] + branch[i]) * kInvSqrt2;
          }
        }
        if (!hp.parallel_block && has_ffn) norm_row(hp, h, lw.ffn_norm, s.normed() + static_cast<size_t>(r) * n_embd);
      });
    }
    if (!has_ffn) continue;  // Nemotron's layers without a feed-forward keep their attention's output
    if (hp.layer_is_moe(layer) && hp.moe_beside_dense) {
      moe_beside_dense_ffn(hp, lw, layer, n, hidden, s, pool);
    } else if (hp.layer_is_moe(layer)) {
      ProfileTimer timer(s.profile(), StepPart::kMoe);
      moe_ffn(hp, lw, layer, n, s, pool);
    } else {
      dense_ffn(hp, lw, layer, n, s, pool);
    }
    {
      ProfileTimer residual_timer(s.profile(), StepPart::kResidual);
      for_each_row(pool, n, n_embd, [&](int r) {
        float* proj = s.proj() + static_cast<size_t>(r) * n_embd;
        float* h = hidden + static_cast<size_t>(r) * n_embd;
        if (lw.ffn_post_norm != nullptr) kernels::rmsnorm(proj, lw.ffn_post_norm, n_embd, hp.rms_eps, proj);
        add_residual(hp, h, proj, n_embd);
        if (lw.out_scale != nullptr && lw.ple_gate.data == nullptr) scale_row(h, *lw.out_scale, n_embd);
      });
    }
    // Timed by their parts (their matmuls by type), not inside the residual add's timer.
    if (altup) {
      altup_correct(rows, layer, streams, s, pool);
    } else if (lw.ple_gate.data != nullptr) {
      add_per_layer_input(rows, layer, hidden, s, pool);
    }
  }
}

void Model::final_norm(const float* hidden, float* out) const {
  norm_row(impl_->hp, hidden, impl_->w.output_norm, out);
}

void Model::output_logits(std::span<const Row> rows, float* hidden, float* logits, ForwardScratch& s,
                          ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  int n_out = 0;
  if (hp.n_altup > 1) {  // Gemma 3n: the wanted rows' streams merged first, into their stream 0
    n_out = altup_merge(rows, hidden, s.altup_active(), s, pool);
    const size_t row_bytes = sizeof(float) * static_cast<size_t>(hp.n_embd);
    for (size_t r = 0, j = 0; r < rows.size(); ++r) {
      if (!rows[r].want_logits) continue;
      const float* merged = s.altup_active() + j * hp.n_embd;
      std::memcpy(hidden + r * hp.n_embd, merged, row_bytes);
      final_norm(merged, s.normed() + j * hp.n_embd);
      ++j;
    }
  } else {
    ProfileTimer timer(s.profile(), StepPart::kNorm);
    for (size_t r = 0; r < rows.size(); ++r) {
      if (!rows[r].want_logits) continue;
      final_norm(hidden + r * hp.n_embd, s.normed() + static_cast<size_t>(n_out) * hp.n_embd);
      ++n_out;
    }
  }
  if (n_out == 0) return;
  matmul(impl_->w.output, s.normed(), n_out, logits, s, pool);
  if (hp.final_softcap <= 0.0f && hp.logit_scale == 1.0f) return;
  // Gemma 2's soft cap (a tanhf per logit) or Granite's and Cohere's logit scale, spread over the
  // pool in chunks.
  constexpr size_t kChunk = 8192;
  const size_t n = static_cast<size_t>(n_out) * hp.n_vocab;
  const float inv_logit_scale = 1.0f / hp.logit_scale;
  for_each_row(pool, static_cast<int>((n + kChunk - 1) / kChunk), kChunk, [&](int c) {
    const size_t end = std::min(n, (static_cast<size_t>(c) + 1) * kChunk);
    for (size_t i = static_cast<size_t>(c) * kChunk; i < end; ++i) {
      logits[i] = hp.final_softcap > 0.0f ? kernels::softcap(logits[i], hp.final_softcap) : logits[i] * inv_logit_scale;
    }
  });
}

}  // namespace strata
