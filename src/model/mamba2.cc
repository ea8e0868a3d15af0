#include "model/mamba2.h"

#include <algorithm>
#include <cmath>

#include "model/forward_matmul.h"
#include "model/recurrent_rows.h"
#include "model/row_loop.h"

namespace strata {
namespace {

// Head h over rows order[first, last) of one sequence: the recurrence on its state S (P rows of
// N; kernels::ssm_scan) into its P values of s.delta_out(), plus the skip term.
void run_mamba_head(const Hparams& hp, const LayerWeights& lw, const int* order, int first, int last, bool fresh,
                    int h, float* S, ForwardScratch& s) {
  const int P = hp.ssm_head_v_dim, N = hp.ssm_head_k_dim, n_heads = hp.ssm_n_v_heads;
  const int n_channels = hp.ssm_conv_channels(), n_values = n_heads * P;
  const int group = hp.ssm_key_head(h);
  if (fresh) std::fill(S, S + static_cast<size_t>(P) * N, 0.0f);
  for (int i = first; i < last; ++i) {
    const int r = order[i];
    const float* xbc = s.delta_qkv() + static_cast<size_t>(r) * n_channels;
    const float* x = xbc + static_cast<size_t>(h) * P;
    const float* B = xbc + n_values + static_cast<size_t>(group) * N;
    const float* C = xbc + n_values + static_cast<size_t>(hp.ssm_n_k_heads + group) * N;
    const float dt = ssm_softplus(s.delta_alpha()[static_cast<size_t>(r) * n_heads + h] + lw.ssm_dt_bias[h]);
    const float decay = std::exp(dt * lw.ssm_a[h]);
    float* y = s.delta_out() + static_cast<size_t>(r) * n_values + static_cast<size_t>(h) * P;
    kernels::ssm_scan(S, x, B, C, decay, dt, N, P, y);
    for (int p = 0; p < P; ++p) y[p] += lw.ssm_d[h] * x[p];
  }
}

// ssm_in's output (z, x/B/C, dt per row) into s.delta_z(), s.delta_qkv() and s.delta_alpha().
void split_inputs(const Hparams& hp, int n, ForwardScratch& s, ThreadPool& pool) {
  const int n_heads = hp.ssm_n_v_heads, n_values = n_heads * hp.ssm_head_v_dim;
  const int n_channels = hp.ssm_conv_channels(), width = n_values + n_channels + n_heads;
  for_each_row(pool, n, width, [&](int r) {
    const float* in = s.delta_in() + static_cast<size_t>(r) * width;
    std::copy_n(in, n_values, s.delta_z() + static_cast<size_t>(r) * n_values);
    std::copy_n(in + n_values, n_channels, s.delta_qkv() + static_cast<size_t>(r) * n_channels);
    std::copy_n(in + n_values + n_channels, n_heads, s.delta_alpha() + static_cast<size_t>(r) * n_heads);
  });
}

// y times silu(z) over z's place (kernels::silu_mul writes silu(gate) * up over the gate), then
// each group's values RMS-normed with its part of ssm_norm (when the layer has one: Falcon-H1's
// may not).
void gate_and_norm(const Hparams& hp, const LayerWeights& lw, int n, ForwardScratch& s, ThreadPool& pool) {
  const int n_values = hp.ssm_n_v_heads * hp.ssm_head_v_dim, group_values = n_values / hp.ssm_n_k_heads;
  for_each_row(pool, n, n_values, [&](int r) {
    float* z = s.delta_z() + static_cast<size_t>(r) * n_values;
    kernels::silu_mul(z, s.delta_out() + static_cast<size_t>(r) * n_values, n_values);
    if (lw.ssm_norm == nullptr) return;
    for (int g = 0; g < hp.ssm_n_k_heads; ++g) {
      float* part = z + static_cast<size_t>(g) * group_values;
      kernels::rmsnorm(part, lw.ssm_norm + static_cast<size_t>(g) * group_values, group_values, hp.rms_eps, part);
    }
  });
}

}  // namespace

void mamba2(const Mamba2Layer& m, std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool) {
  const Hparams& hp = m.hp;
  const LayerWeights& lw = m.lw;
  const int n = static_cast<int>(rows.size());
  matmul(lw.ssm_in, s.normed(), n, s.delta_in(), s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kDeltaNet);
    split_inputs(hp, n, s, pool);
    run_recurrence(hp, m.layer, {lw.ssm_conv, lw.ssm_conv_b}, rows, kv, s, pool,
                   [&](const int* order, int first, int last, bool fresh, int h, float* S) {
                     run_mamba_head(hp, lw, order, first, last, fresh, h, S, s);
                   });
    gate_and_norm(hp, lw, n, s, pool);
  }
  matmul(lw.ssm_out, s.delta_z(), n, s.proj(), s, pool);
}

}  // namespace strata
