// LFM2's short-convolution layers (Hparams::ssm_short_conv), run in place of attention where
// Hparams::layer_is_recurrent says. Private to src/model.
//
// For each row, from its attention-normed input x (s.normed()): B, C and x' are shortconv.in_proj's
// three n_embd-row parts of x; then for each sequence, position after position, each channel of
// B * x' through the causal convolution of its ssm_conv_kernel taps (oldest first; inputs before
// position 0 are zeros; no bias, no activation), the window kept in the sequence's state
// (KvView::recurrent_state); the layer's output (s.proj()) is out_proj(C * conv).
//
// Batch invariance: the convolution runs a sequence's positions in order for a range of channels
// with the same code whatever else is in the batch; the matmuls are batch-invariant by the
// kernels' contract; a prompt chunked any way gives the same bits.
#pragma once

#include <span>

#include "base/thread_pool.h"
#include "model/forward_scratch.h"
#include "model/hparams.h"
#include "model/kv_view.h"
#include "model/model.h"
#include "model/model_weights.h"

namespace strata {

struct ShortConvLayer {
  const Hparams& hp;
  const LayerWeights& lw;
  int layer;
};

// Preconditions: the rows of one sequence are consecutive positions (in any order within the
// batch), and each sequence's state holds the positions before its first row.
void short_conv(const ShortConvLayer& c, std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool);

}  // namespace strata
