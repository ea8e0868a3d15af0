#include "model/recurrent_rows.h"

#include <algorithm>
#include <array>
#include <numeric>

#include "kernels/kernels.h"

namespace strata {
namespace {

// Multiplying by these is exact: kernels::silu_mul's vector form as a plain silu.
constexpr std::array<float, kConvChannelsPerTask> kOnes = [] {
  std::array<float, kConvChannelsPerTask> ones{};
  ones.fill(1.0f);
  return ones;
}();

}  // namespace

int order_by_sequence(std::span<const Row> rows, ForwardScratch& s) {
  int* order = s.delta_order();
  const int n = static_cast<int>(rows.size());
  std::iota(order, order + n, 0);
  std::sort(order, order + n, [&](int a, int b) {
    return rows[a].seq != rows[b].seq ? rows[a].seq < rows[b].seq : rows[a].pos < rows[b].pos;
  });
  int* runs = s.delta_runs();
  int n_runs = 0;
  for (int i = 0; i < n; ++i) {
    if (i == 0 || rows[order[i]].seq != rows[order[i - 1]].seq) runs[n_runs++] = i;
  }
  runs[n_runs] = n;
  return n_runs;
}

void convolve(const Hparams& hp, ConvWeights w, const int* order, int first, int last, bool fresh, float* conv_state,
              int c0, int c1, float* x) {
  const int window = hp.ssm_conv_kernel - 1;
  const int n_channels = hp.ssm_conv_channels();
  if (fresh) {
    std::fill(conv_state + static_cast<size_t>(c0) * window, conv_state + static_cast<size_t>(c1) * window, 0.0f);
  }
  for (int i = first; i < last; ++i) {
    float* row = x + static_cast<size_t>(order[i]) * n_channels;
    for (int c = c0; c < c1; ++c) {
      float* kept = conv_state + static_cast<size_t>(c) * window;
      const float* taps = w.taps + static_cast<size_t>(c) * hp.ssm_conv_kernel;
      float y = 0.0f;
      for (int j = 0; j < window; ++j) y += taps[j] * kept[j];
      y += taps[window] * row[c];
      for (int j = 0; j + 1 < window; ++j) kept[j] = kept[j + 1];
      kept[window - 1] = row[c];
      row[c] = w.bias != nullptr ? y + w.bias[c] : y;
    }
    if (w.silu) kernels::silu_mul(row + c0, kOnes.data(), c1 - c0);
  }
}

int convolve_runs(const Hparams& hp, int layer, ConvWeights conv, std::span<const Row> rows, KvView& kv,
                  ForwardScratch& s, ThreadPool& pool) {
  const int n_runs = order_by_sequence(rows, s);
  const int* order = s.delta_order();
  const int* runs = s.delta_runs();
  const size_t layer_offset = static_cast<size_t>(hp.recurrent_layer(layer)) * hp.ssm_state_floats();
  const int n_channels = hp.ssm_conv_channels();
  const int n_chunks = (n_channels + kConvChannelsPerTask - 1) / kConvChannelsPerTask;
  pool.parallel_for(n_runs * n_chunks, [&](int task, int) {
    const int run = task / n_chunks, c0 = task % n_chunks * kConvChannelsPerTask;
    const Row& start = rows[order[runs[run]]];
    convolve(hp, conv, order, runs[run], runs[run + 1], start.pos == 0, kv.recurrent_state(start.seq) + layer_offset,
             c0, std::min(n_channels, c0 + kConvChannelsPerTask), s.delta_qkv());
  });
  return n_runs;
}

}  // namespace strata
