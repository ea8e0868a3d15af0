// What the recurrent layers (model/delta_net.h, model/mamba2.h) share: the batch's rows ordered
// into runs of one sequence each, and the causal convolution over a run's positions with the
// window each channel keeps in the sequence's state. Private to src/model.
//
// Batch invariance: a run is computed position after position with the same code whatever else
// is in the batch, and a channel's result depends only on its own window and input.
#pragma once

#include <cmath>
#include <span>

#include "model/forward_scratch.h"
#include "model/hparams.h"
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

// What convolve() reads: the taps (each channel's ssm_conv_kernel, oldest input first) and an
// optional bias per channel (Mamba-2's; nullptr: none).
struct ConvWeights {
  const float* taps = nullptr;
  const float* bias = nullptr;
};

// The convolution of channels [c0, c1) (at most kConvChannelsPerTask) over rows order[first, last)
// of one sequence, in place in x (rows of hp.ssm_conv_channels()), each output plus its bias and
// through SiLU, advancing the window each channel keeps in conv_state (zeroed first when fresh:
// inputs before position 0 are zeros).
void convolve(const Hparams& hp, ConvWeights w, const int* order, int first, int last, bool fresh, float* conv_state,
              int c0, int c1, float* x);

}  // namespace strata
