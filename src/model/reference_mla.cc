// The float64 reference's Multi-head Latent Attention (DeepSeek-V2/V3), in the plain form the
// model was trained in: every position's full per-head keys and values are expanded from its
// latent row and cached, and each head attends as ordinary multi-head attention does. The fast
// path's absorbed form (mla_attention.cc) computes the same products in another order.
#include <algorithm>
#include <cmath>

#include "model/reference_forward.h"
#include "model/reference_ops.h"

namespace strata::testing {

using namespace reference_ops;  // NOLINT: the reference's own vocabulary

// The per-head maps come from attn_kv_b (head h's rows: nope key rows, then v value rows) or
// from attn_k_b (head h: rank rows of nope, the key map transposed) and attn_v_b.
Status ReferenceForward::decode_mla(const GgufFile& gguf, const std::string& p, Layer& l) const {
  const size_t n_head = hp_.n_head, rank = hp_.mla_kv_rank, nope = hp_.mla_nope_dim, v = hp_.mla_v_dim;
  const bool q_lora = hp_.mla_q_rank > 0;
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_q.weight", !q_lora, &l.wq));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_q_a.weight", q_lora, &l.wq_a));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_q_a_norm.weight", q_lora, &l.q_a_norm));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_q_b.weight", q_lora, &l.wq_b));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_kv_a_mqa.weight", true, &l.wkv_a));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_kv_a_norm.weight", true, &l.kv_a_norm));
  l.mla_k.assign(n_head * nope * rank, 0.0);
  l.mla_v.assign(n_head * v * rank, 0.0);
  Vec kv_b;
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_kv_b.weight", false, &kv_b));
  if (!kv_b.empty()) {
    for (size_t h = 0; h < n_head; ++h) {
      const double* head = kv_b.data() + h * (nope + v) * rank;
      std::copy(head, head + nope * rank, l.mla_k.data() + h * nope * rank);
      std::copy(head + nope * rank, head + (nope + v) * rank, l.mla_v.data() + h * v * rank);
    }
    return Status::Ok();
  }
  Vec k_b;
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_k_b.weight", true, &k_b));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_v_b.weight", true, &l.mla_v));
  for (size_t h = 0; h < n_head; ++h) {
    for (size_t c = 0; c < rank; ++c) {
      for (size_t d = 0; d < nope; ++d) l.mla_k[(h * nope + d) * rank + c] = k_b[(h * rank + c) * nope + d];
    }
  }
  return Status::Ok();
}

void ReferenceForward::mla_attention(Layer& l, const Vec& x, Vec& out) const {
  const int n_head = hp_.n_head, rank = hp_.mla_kv_rank, nope = hp_.mla_nope_dim, rot = hp_.n_rot;
  const int v_dim = hp_.mla_v_dim, q_head = nope + rot;
  Vec q = l.wq_a.empty() ? matvec(l.wq, x) : matvec(l.wq_b, rmsnorm(matvec(l.wq_a, x).data(), l.q_a_norm,
                                                                     hp_.mla_q_rank, hp_.rms_eps));
  const Vec kv_a = matvec(l.wkv_a, x);
  const Vec latent = rmsnorm(kv_a.data(), l.kv_a_norm, rank, hp_.rms_eps);
  Vec k_rot(kv_a.begin() + rank, kv_a.end());
  const bool rotates = hp_.layer_rotates(l.index);  // Kimi Linear's latent layers have no rope
  if (rotates) rope(k_rot, 1, false, rot);
  // Each head's rotated query part: copied out, rotated, copied back.
  Vec q_rot(static_cast<size_t>(n_head) * rot);
  for (int h = 0; h < n_head; ++h) {
    for (int i = 0; i < rot; ++i) q_rot[h * rot + i] = q[h * q_head + nope + i];
  }
  if (rotates) rope(q_rot, n_head, false, rot);
  for (int h = 0; h < n_head; ++h) {
    for (int i = 0; i < rot; ++i) q[h * q_head + nope + i] = q_rot[h * rot + i];
  }
  // This position's full keys (nope from the latent, then the shared rotated part) and values.
  const Vec k_nope = matvec(l.mla_k, latent), v = matvec(l.mla_v, latent);
  Vec k(static_cast<size_t>(n_head) * q_head);
  for (int h = 0; h < n_head; ++h) {
    for (int i = 0; i < nope; ++i) k[h * q_head + i] = k_nope[h * nope + i];
    for (int i = 0; i < rot; ++i) k[h * q_head + nope + i] = k_rot[i];
  }
  l.k_cache.push_back(k);
  l.v_cache.push_back(v);

  const double mscale = hp_.rope_attn_factor * (1.0 + hp_.rope_yarn_log_mul * std::log(1.0 / hp_.rope_freq_scale));
  const double scale = mscale * mscale / std::sqrt(static_cast<double>(q_head));
  const size_t n_pos = l.k_cache.size();
  Vec att(static_cast<size_t>(n_head) * v_dim, 0.0);
  for (int h = 0; h < n_head; ++h) {
    Vec p(n_pos);
    double max_score = -INFINITY;
    for (size_t t = 0; t < n_pos; ++t) {
      double dot = 0;
      for (int i = 0; i < q_head; ++i) dot += q[h * q_head + i] * l.k_cache[t][h * q_head + i];
      p[t] = dot * scale;
      max_score = std::max(max_score, p[t]);
    }
    double sum = 0;
    for (double& s : p) sum += (s = std::exp(s - max_score));
    for (size_t t = 0; t < n_pos; ++t) {
      for (int i = 0; i < v_dim; ++i) att[h * v_dim + i] += p[t] / sum * l.v_cache[t][h * v_dim + i];
    }
  }
  apply_head_gate(l, x, v_dim, att);  // Ling 3.0's
  out = matvec(l.wo, att);
}

}  // namespace strata::testing
