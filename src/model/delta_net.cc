#include "model/delta_net.h"

#include <algorithm>
#include <cmath>

#include "model/forward_matmul.h"
#include "model/recurrent_rows.h"
#include "model/row_loop.h"

namespace strata {
namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// out = x / max(|x|, eps), n floats.
void l2_normalise(const float* x, int n, float eps, float* out) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  const float inv = 1.0f / std::max(std::sqrt(sum), eps);
  for (int i = 0; i < n; ++i) out[i] = x[i] * inv;
}

// Value head h over rows order[first, last) of one sequence: the recurrence on its state matrix
// S into s.delta_out(), then the gated norm of that output into s.delta_z() (z is read once, so
// kernels::silu_mul's vector form writes silu(z) * o over it).
void run_head(const Hparams& hp, const LayerWeights& lw, const int* order, int first, int last, bool fresh, int h,
              float* S, ForwardScratch& s) {
  const int dk = hp.ssm_head_k_dim, dv = hp.ssm_head_v_dim, n_v = hp.ssm_n_v_heads;
  const int n_channels = hp.ssm_conv_channels();
  const int n_values = n_v * dv;
  const int key_head = hp.ssm_key_head(h);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
  if (fresh) std::fill(S, S + static_cast<size_t>(dk) * dv, 0.0f);
  float q[kMaxSsmHeadDim], k[kMaxSsmHeadDim];
  for (int i = first; i < last; ++i) {
    const int r = order[i];
    const float* ch = s.delta_qkv() + static_cast<size_t>(r) * n_channels;
    l2_normalise(ch + static_cast<size_t>(key_head) * dk, dk, hp.rms_eps, q);
    l2_normalise(ch + static_cast<size_t>(hp.ssm_n_k_heads + key_head) * dk, dk, hp.rms_eps, k);
    const float* v = ch + static_cast<size_t>(2 * hp.ssm_n_k_heads) * dk + static_cast<size_t>(h) * dv;
    const float a = s.delta_alpha()[static_cast<size_t>(r) * n_v + h];
    const float decay = std::exp(lw.ssm_a[h] * ssm_softplus(a + lw.ssm_dt_bias[h]));
    const float beta = sigmoid(s.delta_beta()[static_cast<size_t>(r) * n_v + h]);
    float* o = s.delta_out() + static_cast<size_t>(r) * n_values + static_cast<size_t>(h) * dv;
    kernels::delta_rule(S, q, k, v, decay, beta, scale, dk, dv, o);
    kernels::rmsnorm(o, lw.ssm_norm, dv, hp.rms_eps, o);
    kernels::silu_mul(s.delta_z() + static_cast<size_t>(r) * n_values + static_cast<size_t>(h) * dv, o, dv);
  }
}

// A KDA head's decay per key channel from its inputs f and biases: Ling 3.0's bounded sigmoid
// (kernels::kda_decay), or Kimi Linear's softplus (Hparams::kda_softplus_gate; rate = -exp(A_log)
// there; kernels::kda_softplus_decay, ssm_softplus's formula).
void kda_decays(const Hparams& hp, float rate, const float* f, const float* bias, int d, float* decay) {
  if (hp.kda_softplus_gate) {
    kernels::kda_softplus_decay(f, bias, rate, d, decay);
    return;
  }
  kernels::kda_decay(f, bias, rate, hp.kda_gate_lower_bound, d, decay);
}

// Ling 3.0's and Kimi Linear's Kimi Delta Attention on value head h (Hparams::ssm_kda): one key
// head per value head, of ssm_head_k_dim = ssm_head_v_dim channels. The decay is per key channel
// (kda_decays), applied to S's columns inside kernels::delta_rule_keys; the output gate is
// sigmoid(z) over the normed output (kernels::sigmoid_mul writes it over z, read once, as
// run_head's silu_mul does).
void run_kda_head(const Hparams& hp, const LayerWeights& lw, const int* order, int first, int last, bool fresh, int h,
                  float* S, ForwardScratch& s) {
  static_assert(kMaxSsmHeadDim <= kernels::kMaxDeltaRuleKeys, "delta_rule_keys takes every head the model loads");
  const int d = hp.ssm_head_k_dim, n_heads = hp.ssm_n_v_heads;
  const int n_values = n_heads * d;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  if (fresh) std::fill(S, S + static_cast<size_t>(d) * d, 0.0f);
  float q[kMaxSsmHeadDim], k[kMaxSsmHeadDim], decay[kMaxSsmHeadDim];
  const float* dt_bias = lw.ssm_dt_bias + static_cast<size_t>(h) * d;
  for (int i = first; i < last; ++i) {
    const int r = order[i];
    const float* ch = s.delta_qkv() + static_cast<size_t>(r) * 3 * n_values + static_cast<size_t>(h) * d;
    l2_normalise(ch, d, hp.rms_eps, q);
    l2_normalise(ch + n_values, d, hp.rms_eps, k);
    const float* f = s.delta_alpha() + static_cast<size_t>(r) * n_values + static_cast<size_t>(h) * d;
    kda_decays(hp, lw.ssm_a[h], f, dt_bias, d, decay);
    const float beta = sigmoid(s.delta_beta()[static_cast<size_t>(r) * n_heads + h]);
    float* o = s.delta_out() + static_cast<size_t>(r) * n_values + static_cast<size_t>(h) * d;
    kernels::delta_rule_keys(S, q, k, ch + 2 * n_values, decay, beta, scale, d, d, o);
    kernels::rmsnorm(o, lw.ssm_norm, d, hp.rms_eps, o);
    kernels::sigmoid_mul(s.delta_z() + static_cast<size_t>(r) * n_values + static_cast<size_t>(h) * d, o, d);
  }
}

// Qwen3-Next's fused projections (Hparams::ssm_grouped) into the unfused layout: ssm_in's row of
// each key head g holds q (head_k_dim), k (head_k_dim), v and z (r * head_v_dim each, for value
// heads g * r .. g * r + r - 1, r = n_v_heads / n_k_heads); ssm_ba's holds b then a (r each).
// Copies only, so the values are those separate projections would give.
void split_grouped(const Hparams& hp, int n, const float* in, const float* ba, ForwardScratch& s) {
  const int dk = hp.ssm_head_k_dim, n_k = hp.ssm_n_k_heads;
  const int r = hp.ssm_n_v_heads / n_k, group_values = r * hp.ssm_head_v_dim;
  const int n_channels = hp.ssm_conv_channels(), n_values = hp.ssm_n_v_heads * hp.ssm_head_v_dim;
  const int in_width = n_channels + n_values;
  for (int row = 0; row < n; ++row) {
    const float* x = in + static_cast<size_t>(row) * in_width;
    float* qkv = s.delta_qkv() + static_cast<size_t>(row) * n_channels;
    float* z = s.delta_z() + static_cast<size_t>(row) * n_values;
    for (int g = 0; g < n_k; ++g) {
      const float* group = x + static_cast<size_t>(g) * (2 * dk + 2 * group_values);
      std::copy_n(group, dk, qkv + static_cast<size_t>(g) * dk);
      std::copy_n(group + dk, dk, qkv + static_cast<size_t>(n_k + g) * dk);
      std::copy_n(group + 2 * dk, group_values,
                  qkv + static_cast<size_t>(2 * n_k) * dk + static_cast<size_t>(g) * group_values);
      std::copy_n(group + 2 * dk + group_values, group_values, z + static_cast<size_t>(g) * group_values);
      const float* b = ba + static_cast<size_t>(row) * 2 * hp.ssm_n_v_heads + static_cast<size_t>(g) * 2 * r;
      std::copy_n(b, r, s.delta_beta() + static_cast<size_t>(row) * hp.ssm_n_v_heads + static_cast<size_t>(g) * r);
      std::copy_n(b + r, r, s.delta_alpha() + static_cast<size_t>(row) * hp.ssm_n_v_heads + static_cast<size_t>(g) * r);
    }
  }
}

// A KDA layer's q, k and v from their own matrices, a block of n rows each in s.delta_in(), then
// copied into s.delta_qkv()'s rows as the convolution's channels (q, k, v); z, beta and the
// per-channel decay inputs straight into their buffers.
void project_kda_inputs(const Hparams& hp, const LayerWeights& lw, int n, ForwardScratch& s, ThreadPool& pool) {
  const int n_values = hp.ssm_n_v_heads * hp.ssm_head_v_dim;
  const size_t block = static_cast<size_t>(n) * n_values;
  float* in = s.delta_in();
  // Kimi Linear's low-rank inputs go through s.delta_low_rank() first (f's rank values, then z's).
  const int rank = hp.kda_rank;
  float* low_f = s.delta_low_rank();
  float* low_z = low_f + static_cast<size_t>(n) * rank;
  const bool low_rank_z = lw.ssm_z_b.data != nullptr;
  const kernels::MatmulJob inputs[] = {{&lw.wq, s.normed(), n, in},
                                       {&lw.wk, s.normed(), n, in + block},
                                       {&lw.wv, s.normed(), n, in + 2 * block},
                                       {&lw.ssm_z, s.normed(), n, low_rank_z ? low_z : s.delta_z()},
                                       {&lw.ssm_beta, s.normed(), n, s.delta_beta()},
                                       {&lw.ssm_alpha, s.normed(), n, rank > 0 ? low_f : s.delta_alpha()}};
  matmul_same_input(inputs, s, pool);
  if (rank > 0) matmul(lw.ssm_alpha_b, low_f, n, s.delta_alpha(), s, pool);
  if (low_rank_z) matmul(lw.ssm_z_b, low_z, n, s.delta_z(), s, pool);
  ProfileTimer timer(s.profile(), StepPart::kDeltaNet);
  for_each_row(pool, n, 3 * n_values, [&](int r) {
    float* qkv = s.delta_qkv() + static_cast<size_t>(r) * 3 * n_values;
    for (int part = 0; part < 3; ++part) {
      std::copy_n(in + part * block + static_cast<size_t>(r) * n_values, n_values, qkv + part * n_values);
    }
  });
}

// The layer's input projections into s.delta_qkv(), delta_z(), delta_beta() and delta_alpha().
void project_inputs(const Hparams& hp, const LayerWeights& lw, int n, ForwardScratch& s, ThreadPool& pool) {
  if (hp.ssm_kda) {
    project_kda_inputs(hp, lw, n, s, pool);
    return;
  }
  if (!hp.ssm_grouped) {
    const kernels::MatmulJob inputs[] = {{&lw.ssm_qkv, s.normed(), n, s.delta_qkv()},
                                         {&lw.ssm_z, s.normed(), n, s.delta_z()},
                                         {&lw.ssm_beta, s.normed(), n, s.delta_beta()},
                                         {&lw.ssm_alpha, s.normed(), n, s.delta_alpha()}};
    matmul_same_input(inputs, s, pool);
    return;
  }
  const kernels::MatmulJob inputs[] = {{&lw.ssm_in, s.normed(), n, s.delta_in()},
                                       {&lw.ssm_ba, s.normed(), n, s.delta_ba()}};
  matmul_same_input(inputs, s, pool);
  split_grouped(hp, n, s.delta_in(), s.delta_ba(), s);
}

}  // namespace

void delta_net(const DeltaNetLayer& d, std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool) {
  const Hparams& hp = d.hp;
  const LayerWeights& lw = d.lw;
  const int n = static_cast<int>(rows.size());
  project_inputs(hp, lw, n, s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kDeltaNet);
    run_recurrence(hp, d.layer, {lw.ssm_conv, nullptr}, rows, kv, s, pool,
                   [&](const int* order, int first, int last, bool fresh, int h, float* S) {
                     if (hp.ssm_kda) {
                       run_kda_head(hp, lw, order, first, last, fresh, h, S, s);
                     } else {
                       run_head(hp, lw, order, first, last, fresh, h, S, s);
                     }
                   });
  }
  matmul(lw.ssm_out, s.delta_z(), n, s.proj(), s, pool);
}

}  // namespace strata
