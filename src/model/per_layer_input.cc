// Gemma 4 E2B / E4B's per-layer inputs (Hparams::n_embd_per_layer): each layer adds to a row's
// stream a block driven by the row's token, computed here from the token alone (its embedding
// and its row of per_layer_token_embd), so no state passes from layer to layer or from one
// pipeline stage to the next. Per row, with P = n_embd_per_layer and x the scaled embedding:
//   input = (RMS-norm(per_layer_model_proj[layer] . x / sqrt(n_embd), per_layer_proj_norm)
//            + per_layer_token_embd[token][layer] * sqrt(P)) / sqrt(2)
//   h += RMS-norm(proj . (GELU(inp_gate . h) * input), post_norm)
// then h times the layer's output scale. Gemma 3n's block is the same but for its gate's input
// and where it goes (model/altup.cc: per_layer_block). Every step is per row or a batch-invariant
// matmul.
#include <cmath>
#include <cstring>

#include "model/forward_matmul.h"
#include "model/model.h"
#include "model/model_impl.h"
#include "model/row_loop.h"

namespace strata {

void Model::per_layer_block(std::span<const Row> rows, int layer, const float* gate_in, ForwardScratch& s,
                            ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  const ModelWeights& w = impl_->w;
  const LayerWeights& lw = w.layers[static_cast<size_t>(layer)];
  const int n = static_cast<int>(rows.size());
  const int n_embd = hp.n_embd;
  const int per_layer = hp.n_embd_per_layer;
  embed(rows, s.normed());
  matmul(lw.ple_model_proj, s.normed(), n, s.ple_input(), s, pool);
  matmul(lw.ple_gate, gate_in, n, s.ple_gate(), s, pool);
  const float proj_scale = 1.0f / std::sqrt(static_cast<float>(n_embd));
  const float token_scale = std::sqrt(static_cast<float>(per_layer));
  const float mix_scale = 1.0f / std::sqrt(2.0f);
  // Layer l's part of a token's per_layer_token_embd row: whole blocks (bind_weights checks).
  kernels::WeightMatrix part = w.ple_token_embd;
  part.n_in = per_layer;
  const size_t part_offset = dtype_row_bytes(part.type, static_cast<uint64_t>(per_layer) * layer).value_or(0);
  part.row_bytes = dtype_row_bytes(part.type, static_cast<uint64_t>(per_layer)).value_or(0);
  for_each_row(pool, n, 4 * per_layer, [&](int r) {
    float* input = s.ple_input() + static_cast<size_t>(r) * per_layer;
    for (int i = 0; i < per_layer; ++i) input[i] *= proj_scale;
    kernels::rmsnorm(input, w.ple_proj_norm, per_layer, hp.rms_eps, input);
    float* token_part = s.ple_token() + static_cast<size_t>(r) * per_layer;
    const int32_t token = rows[static_cast<size_t>(r)].token;
    if (token >= 0 && token < hp.n_vocab) {
      kernels::WeightMatrix row = part;
      row.data = static_cast<const std::byte*>(w.ple_token_embd.data) +
                 static_cast<size_t>(token) * w.ple_token_embd.row_bytes + part_offset;
      kernels::dequantize_row(row, 0, token_part);
    } else {
      std::memset(token_part, 0, sizeof(float) * static_cast<size_t>(per_layer));
    }
    for (int i = 0; i < per_layer; ++i) input[i] = (input[i] + token_part[i] * token_scale) * mix_scale;
    kernels::gelu_mul(s.ple_gate() + static_cast<size_t>(r) * per_layer, input, per_layer);
  });
  matmul(lw.ple_proj, s.ple_gate(), n, s.proj(), s, pool);
  for_each_row(pool, n, n_embd, [&](int r) {
    float* out = s.proj() + static_cast<size_t>(r) * n_embd;
    kernels::rmsnorm(out, lw.ple_post_norm, n_embd, hp.rms_eps, out);
  });
}

void Model::add_per_layer_input(std::span<const Row> rows, int layer, float* hidden, ForwardScratch& s,
                                ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  const LayerWeights& lw = impl_->w.layers[static_cast<size_t>(layer)];
  const int n_embd = hp.n_embd;
  per_layer_block(rows, layer, hidden, s, pool);
  for_each_row(pool, static_cast<int>(rows.size()), n_embd, [&](int r) {
    const float* out = s.proj() + static_cast<size_t>(r) * n_embd;
    float* h = hidden + static_cast<size_t>(r) * n_embd;
    for (int i = 0; i < n_embd; ++i) h[i] += out[i];
    if (lw.out_scale != nullptr) {
      for (int i = 0; i < n_embd; ++i) h[i] *= *lw.out_scale;
    }
  });
}

}  // namespace strata
