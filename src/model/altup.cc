// Gemma 3n's AltUp ("alternating updates") and laurel branch, as llama.cpp's gemma3n graph
// computes them. A row's hidden state is A = Hparams::n_altup streams of n_embd values; the
// layers run on stream 0. Per row, with tanh-router m(x) = tanh(router . (RMS-norm(x, router_norm)
// / n_embd)) (A values):
//   before layer 0:  stream k = altup_proj[k-1] . stream 0, scaled to stream 0's magnitude (k >= 1)
//   predict:         c = predict_coef . m(stream 0) (A x A); pred_j = stream_j + sum_k c[j][k] stream_k
//   the layer:       runs on pred_0 (attention, laurel, feed-forward), giving y
//   correct:         d = correct_coef . m(y) + 1 (A); stream_j = pred_j + (y - pred_0) * d[j]
//   per-layer input: streams 1.. += the per-layer block gated by stream 0 * correct_scale
//   the output:      (stream 0 + sum_k unembd[k-1] . stream k, each scaled to stream 0's
//                    magnitude) / A, then the final norm.
// laurel(x) = x + RMS-norm(laurel_r . laurel_l . x, laurel_post_norm) of the attention's input x.
// Every step is per row or a batch-invariant matmul, so a row's bits do not depend on the batch.
#include <cmath>
#include <cstring>

#include "model/forward_matmul.h"
#include "model/model.h"
#include "model/model_impl.h"
#include "model/row_loop.h"

namespace strata {
namespace {

// A stream's magnitude: the square root of its values' sum of squares.
float magnitude(const float* x, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  return std::sqrt(sum);
}

// x (n values) times target over its own magnitude.
void match_magnitude(float* x, int n, float target) {
  const float own = magnitude(x, n);
  for (int i = 0; i < n; ++i) x[i] = x[i] * target / own;
}

// Each of x's n rows' router outputs into s.altup_modalities() (A per row); s.normed() holds the
// router's inputs meanwhile.
void router_modalities(const Hparams& hp, const LayerWeights::Altup& u, const float* x, int n, ForwardScratch& s,
                       ThreadPool& pool) {
  const int n_embd = hp.n_embd;
  const float inv_n = 1.0f / static_cast<float>(n_embd);
  {
    ProfileTimer timer(s.profile(), StepPart::kAltup);
    for_each_row(pool, n, 2 * n_embd, [&](int r) {
      float* in = s.normed() + static_cast<size_t>(r) * n_embd;
      kernels::rmsnorm(x + static_cast<size_t>(r) * n_embd, u.router_norm, n_embd, hp.rms_eps, in);
      for (int i = 0; i < n_embd; ++i) in[i] *= inv_n;
    });
  }
  matmul(u.router, s.normed(), n, s.altup_modalities(), s, pool);
  const int a = hp.n_altup;
  ProfileTimer timer(s.profile(), StepPart::kAltup);
  for (int i = 0; i < n * a; ++i) s.altup_modalities()[i] = std::tanh(s.altup_modalities()[i]);
}

}  // namespace

void Model::altup_expand(std::span<const Row> rows, float* hidden, ForwardScratch& s, ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  const int n = static_cast<int>(rows.size());
  const int n_embd = hp.n_embd;
  const size_t stream = static_cast<size_t>(n) * n_embd;
  for (int k = 1; k < hp.n_altup; ++k) {
    matmul(impl_->w.altup_proj[static_cast<size_t>(k - 1)], hidden, n, hidden + k * stream, s, pool);
  }
  {
    ProfileTimer timer(s.profile(), StepPart::kAltup);
    for_each_row(pool, n, hp.n_altup * n_embd, [&](int r) {
      const float target = magnitude(hidden + static_cast<size_t>(r) * n_embd, n_embd);
      for (int k = 1; k < hp.n_altup; ++k) {
        match_magnitude(hidden + k * stream + static_cast<size_t>(r) * n_embd, n_embd, target);
      }
    });
  }
}

void Model::altup_predict(std::span<const Row> rows, int layer, const float* hidden, ForwardScratch& s,
                          ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  const LayerWeights::Altup& u = impl_->w.layers[static_cast<size_t>(layer)].altup;
  const int n = static_cast<int>(rows.size());
  const int n_embd = hp.n_embd, a = hp.n_altup;
  const size_t stream = static_cast<size_t>(n) * n_embd;
  router_modalities(hp, u, hidden, n, s, pool);
  matmul(u.predict_coef, s.altup_modalities(), n, s.altup_coefs(), s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kAltup);
    for_each_row(pool, n, a * a * n_embd, [&](int r) {
      const float* c = s.altup_coefs() + static_cast<size_t>(r) * a * a;
      const size_t at = static_cast<size_t>(r) * n_embd;
      // pred_j = (the sum over k of c[j][k] stream_k, in k's order) + stream_j, over i innermost
      // so the loops vectorise.
      for (int j = 0; j < a; ++j) {
        float* pred = s.altup_pred() + j * stream + at;
        const float* first = hidden + at;
        for (int i = 0; i < n_embd; ++i) pred[i] = c[j * a] * first[i];
        for (int k = 1; k < a; ++k) {
          const float ck = c[j * a + k];
          const float* other = hidden + k * stream + at;
          for (int i = 0; i < n_embd; ++i) pred[i] += ck * other[i];
        }
        const float* own = hidden + j * stream + at;
        for (int i = 0; i < n_embd; ++i) pred[i] += own[i];
      }
      std::memcpy(s.altup_active() + at, s.altup_pred() + at, sizeof(float) * static_cast<size_t>(n_embd));
    });
  }
}

void Model::laurel(int layer, int n_rows, ForwardScratch& s, ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  const LayerWeights::Altup& u = impl_->w.layers[static_cast<size_t>(layer)].altup;
  const int n_embd = hp.n_embd;
  matmul(u.laurel_l, s.normed(), n_rows, s.laurel_mid(), s, pool);
  matmul(u.laurel_r, s.laurel_mid(), n_rows, s.laurel(), s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kAltup);
    for_each_row(pool, n_rows, 2 * n_embd, [&](int r) {
      float* out = s.laurel() + static_cast<size_t>(r) * n_embd;
      const float* x = s.normed() + static_cast<size_t>(r) * n_embd;
      kernels::rmsnorm(out, u.laurel_post_norm, n_embd, hp.rms_eps, out);
      for (int i = 0; i < n_embd; ++i) out[i] += x[i];
    });
  }
}

void Model::altup_correct(std::span<const Row> rows, int layer, float* hidden, ForwardScratch& s,
                          ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  const LayerWeights::Altup& u = impl_->w.layers[static_cast<size_t>(layer)].altup;
  const int n = static_cast<int>(rows.size());
  const int n_embd = hp.n_embd, a = hp.n_altup;
  const size_t stream = static_cast<size_t>(n) * n_embd;
  router_modalities(hp, u, s.altup_active(), n, s, pool);
  matmul(u.correct_coef, s.altup_modalities(), n, s.altup_coefs(), s, pool);
  // s.laurel() (spent) takes the per-layer block's gate input: corrected stream 0 * correct_scale.
  {
    ProfileTimer timer(s.profile(), StepPart::kAltup);
    for_each_row(pool, n, a * n_embd, [&](int r) {
      const float* d = s.altup_coefs() + static_cast<size_t>(r) * a;
      const size_t at = static_cast<size_t>(r) * n_embd;
      const float* y = s.altup_active() + at;
      const float* pred0 = s.altup_pred() + at;
      for (int j = 0; j < a; ++j) {
        const float coef = d[j] + 1.0f;
        const float* pred = s.altup_pred() + j * stream + at;
        float* out = hidden + j * stream + at;
        for (int i = 0; i < n_embd; ++i) out[i] = (y[i] - pred0[i]) * coef + pred[i];
      }
      float* gate_in = s.laurel() + at;
      for (int i = 0; i < n_embd; ++i) gate_in[i] = hidden[at + static_cast<size_t>(i)] * u.correct_scale[i];
    });
  }
  per_layer_block(rows, layer, s.laurel(), s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kAltup);
    for_each_row(pool, n, a * n_embd, [&](int r) {
      const float* block = s.proj() + static_cast<size_t>(r) * n_embd;
      for (int k = 1; k < a; ++k) {
        float* out = hidden + k * stream + static_cast<size_t>(r) * n_embd;
        for (int i = 0; i < n_embd; ++i) out[i] += block[i];
      }
    });
  }
}

int Model::altup_merge(std::span<const Row> rows, const float* hidden, float* out, ForwardScratch& s,
                       ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  const int n = static_cast<int>(rows.size());
  const int n_embd = hp.n_embd, a = hp.n_altup;
  const size_t stream = static_cast<size_t>(n) * n_embd;
  const size_t row_bytes = sizeof(float) * static_cast<size_t>(n_embd);
  int n_out = 0;
  for (int r = 0; r < n; ++r) {
    if (!rows[static_cast<size_t>(r)].want_logits) continue;
    std::memcpy(out + static_cast<size_t>(n_out++) * n_embd, hidden + static_cast<size_t>(r) * n_embd, row_bytes);
  }
  if (n_out == 0) return 0;
  // Stream 0's magnitude per wanted row (into s.altup_modalities(), free here), before any other
  // stream joins it.
  float* targets = s.altup_modalities();
  for (int j = 0; j < n_out; ++j) targets[j] = magnitude(out + static_cast<size_t>(j) * n_embd, n_embd);
  // Stream k's wanted rows gathered into the first block of s.altup_pred(), unembedded into the second.
  float* gathered = s.altup_pred();
  float* unembedded = s.altup_pred() + stream;
  for (int k = 1; k < a; ++k) {
    for (int r = 0, j = 0; r < n; ++r) {
      if (rows[static_cast<size_t>(r)].want_logits) {
        const float* row = hidden + k * stream + static_cast<size_t>(r) * n_embd;
        std::memcpy(gathered + static_cast<size_t>(j++) * n_embd, row, row_bytes);
      }
    }
    matmul(impl_->w.altup_unembd[static_cast<size_t>(k - 1)], gathered, n_out, unembedded, s, pool);
    {
      ProfileTimer timer(s.profile(), StepPart::kAltup);
      for_each_row(pool, n_out, 2 * n_embd, [&](int j) {
        float* merged = out + static_cast<size_t>(j) * n_embd;
        float* x = unembedded + static_cast<size_t>(j) * n_embd;
        match_magnitude(x, n_embd, targets[j]);
        for (int i = 0; i < n_embd; ++i) merged[i] += x[i];
      });
    }
  }
  const float inv_a = 1.0f / static_cast<float>(a);
  for (size_t i = 0; i < static_cast<size_t>(n_out) * n_embd; ++i) out[i] *= inv_a;
  return n_out;
}

}  // namespace strata
