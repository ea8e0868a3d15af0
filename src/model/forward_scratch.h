// ForwardScratch: all working memory of forward passes over at most max_rows rows whose
// positions stay below max_seq_tokens. Sized once by Model::make_scratch so that the
// forward pass allocates nothing.
//
// Not thread-safe: one per concurrent caller (e.g. one per pipeline stage). The contents
// between calls are meaningless; only hidden() may be used by the caller as the residual
// stream buffer of forward().
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "base/aligned_buffer.h"
#include "model/step_profile.h"

namespace strata {

class ForwardScratch {
 public:
  struct Sizes {
    int max_rows = 0;
    int max_seq_tokens = 0;
    int n_embd = 0;
    int q_dim = 0;            // n_head * head_dim
    int kv_dim = 0;           // n_head_kv * head_dim
    int n_ff = 0;             // dense feed-forward width, or the shared expert's in a MoE model
    // Mixture of experts (0 when dense): a routed row fans out to n_expert_used experts.
    int n_layer = 0;
    int n_expert = 0;
    int n_expert_used = 0;
    int n_ff_exp = 0;
    bool router_input = false;  // Gemma 4: the router reads a row of its own (router_in())
    int per_layer_floats = 0;   // Gemma 4 E2B / E4B: Hparams::n_embd_per_layer (0: none)
    // Gemma 3n: AltUp's streams (Hparams::n_altup; 0: none) and the laurel branch's width.
    int altup_streams = 0;
    int laurel_rank = 0;
    // Multi-head Latent Attention (0 otherwise): a row's full-width queries, or its heads'
    // values; its compressed query (Hparams::mla_q_rank); its heads' inputs or outputs of the
    // per-head maps.
    int mla_q_floats = 0;
    int mla_a_floats = 0;
    int mla_heads_floats = 0;
    // Hybrid models (0 otherwise): an attention row's q and gate (Hparams::attn_output_gate), or
    // Step 3.5's gate value per head (Hparams::attn_head_gate);
    // a delta-net row's convolution channels, output gate (and output) values and value heads,
    // and with fused projections (Hparams::ssm_grouped) their outputs before they are split.
    int q_gate_floats = 0;
    int delta_channels = 0;
    int delta_values = 0;
    int delta_heads = 0;
    int delta_gates = 0;  // a row's decay inputs: delta_heads, or KDA's per channel (delta_values)
    int delta_rank = 0;   // Kimi Linear's low-rank KDA inputs (Hparams::kda_rank), 0: none
    bool delta_fused = false;
    size_t matmul_bytes = 0;  // largest matmul scratch over all matrices at max_rows
    size_t attention_floats = 0;  // per attention worker
    int max_block_tokens = 0;     // K/V block size the attention scratch fits
    int n_attention_workers = 0;
  };

  explicit ForwardScratch(const Sizes& sizes);
  ForwardScratch(const ForwardScratch&) = delete;
  ForwardScratch& operator=(const ForwardScratch&) = delete;

  int max_rows() const { return sizes_.max_rows; }
  int max_seq_tokens() const { return sizes_.max_seq_tokens; }
  int max_block_tokens() const { return sizes_.max_block_tokens; }

  // Per-row activations, row-major with the widths of Sizes.
  float* hidden() { return hidden_.as<float>(); }    // residual stream(s) (forward() only)
  float* normed() { return normed_.as<float>(); }    // n_embd: RMS-normed input of a block
  float* q() { return q_.as<float>(); }              // q_dim
  float* k() { return k_.as<float>(); }              // kv_dim
  float* v() { return v_.as<float>(); }              // kv_dim
  float* attn_out() { return attn_out_.as<float>(); }  // q_dim
  float* proj() { return proj_.as<float>(); }        // n_embd: a block's output before the residual add
  float* gate() { return gate_.as<float>(); }        // n_ff
  float* up() { return up_.as<float>(); }            // n_ff (Falcon-H1: its Mamba-2 output, n_embd)
  AlignedBuffer& matmul_scratch() { return matmul_; }
  float* mla_q() { return mla_q_.as<float>(); }      // mla_q_floats per row, rows dense at any width up to it
  float* mla_a() { return mla_a_.as<float>(); }      // mla_a_floats
  float* mla_heads_in() { return mla_heads_in_.as<float>(); }    // mla_heads_floats
  float* mla_heads_out() { return mla_heads_out_.as<float>(); }  // mla_heads_floats
  float* q_gate() { return q_gate_.as<float>(); }            // q_gate_floats: attn_q's output, heads' q and gate
  // Delta-net layers (model/delta_net.h): per row, the q/k/v channels (convolved in place), the
  // output gate z (then the gated outputs), per value head the write strength and decay inputs,
  // and the heads' outputs.
  float* delta_qkv() { return delta_qkv_.as<float>(); }      // delta_channels
  float* delta_z() { return delta_z_.as<float>(); }          // delta_values
  float* delta_beta() { return delta_beta_.as<float>(); }    // delta_heads
  float* delta_alpha() { return delta_alpha_.as<float>(); }  // delta_gates
  float* delta_out() { return delta_out_.as<float>(); }      // delta_values
  // With delta_fused: ssm_in's output (delta_channels + delta_values, and Mamba-2's delta_heads
  // time steps) and ssm_ba's (2 delta_heads); Ling 3.0's q, k and v outputs (delta_values each,
  // one block of rows after another).
  float* delta_in() { return delta_in_.as<float>(); }
  float* delta_ba() { return delta_ba_.as<float>(); }
  // Kimi Linear: per row, the decay input's delta_rank values, then the output gate's.
  float* delta_low_rank() { return delta_low_rank_.as<float>(); }
  // Row indices of a batch ordered by (sequence, position): max_rows entries, then max_rows + 1
  // offsets where each sequence's run starts.
  int* delta_order() { return delta_order_.data(); }
  int* delta_runs() { return delta_order_.data() + sizes_.max_rows; }

  // Mixture-of-experts working memory, for max_rows rows of n_expert_used routes each.
  float* router_logits() { return router_.as<float>(); }  // n_expert per row
  int32_t* route_expert() { return route_expert_.as<int32_t>(); }  // n_expert_used per row: chosen ids
  float* route_weight() { return route_weight_.as<float>(); }      // n_expert_used per row: their weights
  int32_t* route_slot() { return route_slot_.as<int32_t>(); }      // n_expert_used per row: gathered index
  // n_expert + 1 offsets into the gathered rows, then n_expert + 1 fill cursors.
  int32_t* expert_first() { return expert_first_.as<int32_t>(); }
  float* expert_x() { return expert_x_.as<float>(); }              // gathered rows, n_embd each
  float* expert_gate() { return expert_gate_.as<float>(); }        // gathered rows, n_ff_exp each
  float* expert_up() { return expert_up_.as<float>(); }            // gathered rows, n_ff_exp each
  float* expert_out() { return expert_out_.as<float>(); }          // gathered rows, n_embd each
  float* shared_out() { return shared_out_.as<float>(); }          // n_embd per row (shared expert)
  float* shared_gate() { return shared_gate_.as<float>(); }        // 1 per row (shared expert's gate)
  float* router_in() { return router_in_.as<float>(); }            // n_embd per row, with Sizes::router_input
  // Gemma 4 E2B / E4B's per-layer inputs (model/per_layer_input.cc), per_layer_floats per row
  // each: the layer's input, its gate, and the token's part of per_layer_token_embd.
  float* ple_input() { return ple_input_.as<float>(); }
  float* ple_gate() { return ple_gate_.as<float>(); }
  float* ple_token() { return ple_token_.as<float>(); }
  // Gemma 3n (model/altup.cc): the layer's predictions of every stream (altup_streams blocks of
  // max_rows rows of n_embd), the predicted stream 0 the layer runs on and the laurel branch's
  // output (n_embd per row), its middle (laurel_rank per row), and each row's router outputs and
  // coefficients (altup_streams and altup_streams^2 per row).
  float* altup_pred() { return altup_pred_.as<float>(); }
  float* altup_active() { return altup_active_.as<float>(); }
  float* laurel() { return laurel_.as<float>(); }
  float* laurel_mid() { return laurel_mid_.as<float>(); }
  float* altup_modalities() { return altup_modalities_.as<float>(); }
  float* altup_coefs() { return altup_coefs_.as<float>(); }

  // Routing statistics: for layer l and expert e, expert_tokens()[l * n_expert + e] counts the
  // rows routed to e by forward passes since the caller last zeroed it (the caller owns
  // resetting; the forward pass only adds). Empty for a dense model.
  std::span<uint32_t> expert_tokens() { return {expert_tokens_.data(), expert_tokens_.size()}; }
  // Bytes of expert matrices the forward passes read since the caller last zeroed it: each
  // expert a layer routes at least one row to is read once per pass.
  uint64_t& expert_bytes_read() { return expert_bytes_read_; }

  // Attention workers: each owns block-pointer arrays and kernel scratch. Work items are
  // taken from a shared counter, so which worker does which item never affects results.
  int n_attention_workers() const { return sizes_.n_attention_workers; }
  const void** block_k(int worker) { return block_ptrs_.data() + static_cast<size_t>(worker) * 2 * blocks_per_worker_; }
  const void** block_v(int worker) { return block_k(worker) + blocks_per_worker_; }
  float* attention_scratch(int worker) {
    return attention_.as<float>() + static_cast<size_t>(worker) * sizes_.attention_floats;
  }
  std::atomic<int>& next_attention_item() { return next_item_; }

  // Profiling (model/step_profile.h): the forward passes add their parts' times to *profile
  // while it is set; null (the default) times nothing. Not owned.
  void set_profile(StepProfile* profile) { profile_ = profile; }
  StepProfile* profile() const { return profile_; }
  // Attention tiles of one forward pass: tile i is rows [tiles[i], tiles[i + 1]); room for
  // max_rows + 1 entries.
  int* attention_tiles() { return attention_tiles_.data(); }

 private:
  Sizes sizes_;
  size_t blocks_per_worker_ = 0;
  AlignedBuffer hidden_, normed_, q_, k_, v_, attn_out_, proj_, gate_, up_, matmul_, attention_, mla_q_, mla_a_,
      mla_heads_in_, mla_heads_out_, q_gate_, delta_qkv_, delta_z_, delta_beta_, delta_alpha_, delta_out_,
      delta_in_, delta_ba_, delta_low_rank_, ple_input_, ple_gate_, ple_token_, altup_pred_, altup_active_, laurel_, laurel_mid_,
      altup_modalities_, altup_coefs_;
  std::vector<int> delta_order_;
  AlignedBuffer router_, route_expert_, route_weight_, route_slot_, expert_first_, expert_x_, expert_gate_,
      expert_up_, expert_out_, shared_out_, shared_gate_, router_in_;
  std::vector<uint32_t> expert_tokens_;
  uint64_t expert_bytes_read_ = 0;
  std::vector<const void*> block_ptrs_;
  std::vector<int> attention_tiles_;
  std::atomic<int> next_item_{0};
  StepProfile* profile_ = nullptr;
};

}  // namespace strata
