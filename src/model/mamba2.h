// Mamba-2 layers: the recurrent layers of IBM Granite 4.0-H (Hparams::ssm_mamba2), run in place of
// attention where Hparams::layer_is_recurrent says. Private to src/model.
//
// For each row, from its attention-normed input (s.normed()), with P = ssm_head_v_dim values a
// head, N = ssm_head_k_dim state values a group and head h reading group g = h / (heads / groups):
//   ssm_in x gives z (heads * P), then the convolution's channels x (heads * P), B and C (groups *
//   N each), then dt (a value per head);
// then for each sequence, position after position, from the state its earlier positions left
// (KvView::recurrent_state; zeros for a row at position 0):
//   each channel: silu of ssm_conv's taps over its last ssm_conv_kernel inputs (oldest first;
//     inputs before position 0 are zeros) plus its ssm_conv_b;
//   each head h: d = softplus(dt[h] + ssm_dt_bias[h]), decay = exp(d * ssm_a[h]); for each of its P
//     values p, the state row S[p] (N values) becomes decay * S[p] + d * x[p] * B_g, and
//     y[p] = S[p] . C_g + ssm_d[h] * x[p];
//   y times silu(z), RMS-normed group by group (heads * P / groups values each) with ssm_norm;
// and the layer's output (s.proj(), before the residual add) is ssm_out of that.
//
// Batch invariance: one task runs a sequence's positions in order for a range of channels, or for
// one head, with the same code whatever else is in the batch; the matmuls are batch-invariant by
// the kernels' contract. A prompt chunked any way gives the same bits, since the state carries
// exactly what the convolution and the recurrence need.
#pragma once

#include <span>

#include "base/thread_pool.h"
#include "model/forward_scratch.h"
#include "model/hparams.h"
#include "model/kv_view.h"
#include "model/model.h"
#include "model/model_weights.h"

namespace strata {

struct Mamba2Layer {
  const Hparams& hp;
  const LayerWeights& lw;
  int layer;
};

// Preconditions: the rows of one sequence are consecutive positions (in any order within the
// batch), and each sequence's state holds the positions before its first row.
void mamba2(const Mamba2Layer& m, std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool);

}  // namespace strata
