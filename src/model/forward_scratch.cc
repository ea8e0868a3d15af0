#include "model/forward_scratch.h"

#include <algorithm>

namespace strata {
namespace {

size_t floats(int rows, int width) { return static_cast<size_t>(rows) * static_cast<size_t>(width) * sizeof(float); }

}  // namespace

ForwardScratch::ForwardScratch(const Sizes& sizes) : sizes_(sizes) {
  sizes_.n_attention_workers = std::max(sizes.n_attention_workers, 1);
  const int r = std::max(sizes.max_rows, 1);
  hidden_.resize(floats(r, sizes.n_embd * std::max(1, sizes.altup_streams)));
  normed_.resize(floats(r, sizes.n_embd));
  q_.resize(floats(r, sizes.q_dim));
  k_.resize(floats(r, sizes.kv_dim));
  v_.resize(floats(r, sizes.kv_dim));
  attn_out_.resize(floats(r, sizes.q_dim));
  proj_.resize(floats(r, sizes.n_embd));
  gate_.resize(floats(r, sizes.n_ff));
  up_.resize(floats(r, sizes.n_ff));
  matmul_.resize(std::max<size_t>(sizes.matmul_bytes, 64));
  mla_q_.resize(floats(r, sizes.mla_q_floats));
  mla_a_.resize(floats(r, sizes.mla_a_floats));
  mla_heads_in_.resize(floats(r, sizes.mla_heads_floats));
  mla_heads_out_.resize(floats(r, sizes.mla_heads_floats));
  q_gate_.resize(floats(r, sizes.q_gate_floats));
  delta_qkv_.resize(floats(r, sizes.delta_channels));
  delta_z_.resize(floats(r, sizes.delta_values));
  delta_beta_.resize(floats(r, sizes.delta_heads));
  delta_alpha_.resize(floats(r, std::max(sizes.delta_heads, sizes.delta_gates)));
  delta_out_.resize(floats(r, sizes.delta_values));
  if (sizes.delta_fused) {
    delta_in_.resize(floats(r, sizes.delta_channels + sizes.delta_values + sizes.delta_heads));
    delta_ba_.resize(floats(r, 2 * sizes.delta_heads));
  }
  delta_low_rank_.resize(floats(r, 2 * sizes.delta_rank));
  delta_order_.assign(2 * static_cast<size_t>(r) + 1, 0);
  ple_input_.resize(floats(r, sizes.per_layer_floats));
  ple_gate_.resize(floats(r, sizes.per_layer_floats));
  ple_token_.resize(floats(r, sizes.per_layer_floats));
  if (sizes.altup_streams > 0) {
    const int a = sizes.altup_streams;
    altup_pred_.resize(floats(r, a * sizes.n_embd));
    altup_active_.resize(floats(r, sizes.n_embd));
    laurel_.resize(floats(r, sizes.n_embd));
    laurel_mid_.resize(floats(r, sizes.laurel_rank));
    altup_modalities_.resize(floats(r, a));
    altup_coefs_.resize(floats(r, a * a));
  }
  if (sizes.n_expert > 0) {
    const int routes = r * sizes.n_expert_used;
    router_.resize(floats(r, sizes.n_expert));
    route_expert_.resize(floats(routes, 1));
    route_weight_.resize(floats(routes, 1));
    route_slot_.resize(floats(routes, 1));
    expert_first_.resize(floats(2 * (sizes.n_expert + 1), 1));  // offsets, then fill cursors
    expert_x_.resize(floats(routes, sizes.n_embd));
    expert_gate_.resize(floats(routes, sizes.n_ff_exp));
    expert_up_.resize(floats(routes, sizes.n_ff_exp));
    expert_out_.resize(floats(routes, sizes.n_embd));
    shared_out_.resize(floats(r, sizes.n_embd));
    shared_gate_.resize(floats(r, 1));
    if (sizes.router_input) router_in_.resize(floats(r, sizes.n_embd));
    expert_tokens_.assign(static_cast<size_t>(sizes.n_layer) * sizes.n_expert, 0);
  }
  const size_t workers = static_cast<size_t>(sizes_.n_attention_workers);
  attention_.resize(std::max<size_t>(workers * sizes.attention_floats * sizeof(float), 64));
  // One block per position bounds the block count for any block size the K/V view uses.
  blocks_per_worker_ = static_cast<size_t>(std::max(sizes.max_seq_tokens, 1));
  block_ptrs_.assign(workers * 2 * blocks_per_worker_, nullptr);
  attention_tiles_.assign(static_cast<size_t>(r) + 1, 0);
}

}  // namespace strata
