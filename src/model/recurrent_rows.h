// What the recurrent layers (model/delta_net.h, model/mamba2.h) share: the batch's rows ordered
// into runs of one sequence each, and the causal convolution over a run's positions with the
// window each channel keeps in the sequence's state. Private to src/model.
//
// Batch invariance: a run is computed position after position with the same code whatever else
// is in the batch, and a channel's result depends only on its own window and input.
#pragma once

#include <cmath>
#include <span>

#include "base/thread_pool.h"
#include "model/forward_scratch.h"
#include "model/hparams.h"
#include "model/kv_view.h"
#include "model/model.h"

namespace strata {

// A time step's softplus as ggml computes it: the identity above 20, where log1p(exp(x)) rounds
// to x anyway.
inline float ssm_softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

// Channels of one convolution task: enough to repay a task, few enough that a decode step's
// thousands of channels still spread over the pool.
constexpr int kConvChannelsPerTask = 512;

// Orders the batch's rows by (sequence, position) into s.delta_order(); run i of one sequence's
// rows is [s.delta_runs()[i], s.delta_runs()[i + 1]). Returns the number of runs. In place (it
// allocates nothing), and the order depends only on the rows, not on their count.
int order_by_sequence(std::span<const Row> rows, ForwardScratch& s);

// What convolve() reads: the taps (each channel's ssm_conv_kernel, oldest input first), an
// optional bias per channel (Mamba-2's; nullptr: none), and whether SiLU follows (LFM2's short
// convolution has none).
struct ConvWeights {
  const float* taps = nullptr;
  const float* bias = nullptr;
  bool silu = true;
};

// The convolution of channels [c0, c1) (at most kConvChannelsPerTask) over rows order[first, last)
// of one sequence, in place in x (rows of hp.ssm_conv_channels()), each output plus its bias and
// through SiLU (when w.silu), advancing the window each channel keeps in conv_state (zeroed first when fresh:
// inputs before position 0 are zeros).
void convolve(const Hparams& hp, ConvWeights w, const int* order, int first, int last, bool fresh, float* conv_state,
              int c0, int c1, float* x);

// A recurrent layer's sequence-ordered part up to its heads, on the pool: orders the rows into runs
// (order_by_sequence), then convolves every run's channels in place in s.delta_qkv(), the window
// in the sequence's state (its layer's part of KvView::recurrent_state). Returns the number of
// runs. LFM2's short convolution is this alone; the other recurrent layers go on with
// run_recurrence's heads.
int convolve_runs(const Hparams& hp, int layer, ConvWeights conv, std::span<const Row> rows, KvView& kv,
                  ForwardScratch& s, ThreadPool& pool);

// convolve_runs(), then head(order, first, last, fresh, h, S) on the pool for every run [first,
// last) of order and value head h, S being that head's state matrix (after the convolution's
// window in the layer's state); fresh: the run starts at position 0, so its state starts from zeros.
template <typename HeadFn>
void run_recurrence(const Hparams& hp, int layer, ConvWeights conv, std::span<const Row> rows, KvView& kv,
                    ForwardScratch& s, ThreadPool& pool, HeadFn&& head) {
  const int n_runs = convolve_runs(hp, layer, conv, rows, kv, s, pool);
  const int* order = s.delta_order();
  const int* runs = s.delta_runs();
  const size_t first_head = static_cast<size_t>(hp.recurrent_layer(layer)) * hp.ssm_state_floats() +
                            hp.ssm_conv_state_floats();
  const size_t head_floats = static_cast<size_t>(hp.ssm_head_k_dim) * hp.ssm_head_v_dim;
  pool.parallel_for(n_runs * hp.ssm_n_v_heads, [&](int task, int) {
    const int run = task / hp.ssm_n_v_heads, h = task % hp.ssm_n_v_heads;
    const Row& start = rows[order[runs[run]]];
    float* S = kv.recurrent_state(start.seq) + first_head + static_cast<size_t>(h) * head_floats;
    head(order, runs[run], runs[run + 1], start.pos == 0, h, S);
  });
}

}  // namespace strata
