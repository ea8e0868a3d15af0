// Gated delta-net layers: the recurrent layers of a hybrid model (Qwen3.5's linear attention),
// run in place of attention where Hparams::layer_is_recurrent says. Private to src/model.
//
// For each row, from its attention-normed input x (s.normed()):
//   qkv = ssm_qkv x: q (ssm_n_k_heads heads of ssm_head_k_dim), k (the same), v (ssm_n_v_heads
//         heads of ssm_head_v_dim); z = ssm_z x; b = ssm_beta x; a = ssm_alpha x (a value per
//         value head each); with Hparams::ssm_grouped (Qwen3-Next) the same values come from
//         ssm_in x and ssm_ba x, laid out per key head (split_grouped in delta_net.cc);
// then for each sequence, position after position, from the state its earlier positions left
// (KvView::recurrent_state; zeros for a row at position 0):
//   each qkv channel: silu of its causal convolution, ssm_conv's taps over its last
//     ssm_conv_kernel inputs (oldest first; inputs before position 0 are zeros);
//   each value head h, reading key head Hparams::ssm_key_head(h): q and k divided by max(|x|, rms_eps);
//     decay = exp(ssm_a[h] * softplus(a[h] + ssm_dt_bias[h])), beta = sigmoid(b[h]);
//     o = kernels::delta_rule(S_h, q, k, v_h, decay, beta, 1 / sqrt(ssm_head_k_dim));
//     o = silu(z_h) * rmsnorm(o, ssm_norm);
// and the layer's output (s.proj(), before the residual add) is ssm_out o.
// Ling 3.0's Kimi Delta Attention (Hparams::ssm_kda) is the same layer with q, k and v from wq, wk
// and wv (one key head per value head), key channel j of head h decaying by exp(bound *
// sigmoid(ssm_a[h] * (f[j] + ssm_dt_bias[j]))) with f = ssm_alpha x (a value per channel), and
// o = sigmoid(z_h) * rmsnorm(o, ssm_norm).
//
// Batch invariance: one task runs a sequence's positions in order for a range of channels, or
// for one value head, with the same code whatever else is in the batch; the matmuls are
// batch-invariant by the kernels' contract. A prompt chunked any way gives the same bits,
// since the state carries exactly what the convolution and the recurrence need.
#pragma once

#include <span>

#include "base/thread_pool.h"
#include "model/forward_scratch.h"
#include "model/hparams.h"
#include "model/kv_view.h"
#include "model/model.h"
#include "model/model_weights.h"

namespace strata {

struct DeltaNetLayer {
  const Hparams& hp;
  const LayerWeights& lw;
  int layer;
};

// Preconditions: the rows of one sequence are consecutive positions (in any order within the
// batch), and each sequence's state holds the positions before its first row.
void delta_net(const DeltaNetLayer& d, std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool);

}  // namespace strata
