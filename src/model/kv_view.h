// KvView: how the model sees K/V storage. The model never owns or allocates K/V; the engine's
// paged cache (src/kvcache) implements this view, and so does a contiguous single-sequence
// cache used by `strata run` and tests.
//
// Layout of one block (block_tokens consecutive positions of one sequence, all layers):
//   for layer l: K[block_tokens][n_head_kv][head_dim], then V[block_tokens][n_head_kv][head_dim]
// elements in `type` (F32, F16 or Q8_0; Q8_0 needs head_dim % 32 == 0); value heads narrower than
// key heads (MiMo-V2: AttnShape::v_head_dim) are stored zero-padded to head_dim. With v_is_k (Multi-head
// Latent Attention, whose one latent row per token serves as key and value) a layer has K only,
// and V is read from the same bytes.
//
// Nemotron's files keep K/V only for their layers with K/V heads (n_layer counts those;
// Hparams::kv_layer numbers them). Hybrid models (Hparams::is_hybrid) keep K/V only for their
// attention layers, numbered the same way, and, beside the blocks, a recurrent state per sequence:
// state_floats floats (every delta-net layer's, in layer order; Hparams::ssm_state_floats each)
// that hold the sequence after its positions so far. The forward pass zeroes it when a row at
// position 0 arrives, and advances it one position per row, so the view must hand each sequence
// the state its last forward pass left (a sequence cannot restart mid-way from cached K/V alone).
//
// Sliding-window layers (KvLayout::window_tokens > 0) keep their K/V in a second group of
// blocks: a row at position p reads only keys (p - window_tokens, p] there (or, for Llama 4's
// chunked layers, keys from p - p % window_tokens), so a paged cache need not keep the blocks
// before them. Within a group's block, its layers follow one another
// in layer order as above. The two groups' heads may differ (Gemma 4: the sliding layers' are
// window_n_head_kv heads of window_head_dim), so sizes and offsets are per group.
//
// Thread-safety: during one forward call, block() is called concurrently from several
// threads (and from several pipeline stages on different layers); implementations must
// not mutate their block tables while a forward that uses them is in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensor/dtype.h"

namespace strata {

struct KvLayout {
  DType type = DType::kF16;
  int n_layer = 0;
  int n_head_kv = 0;
  int head_dim = 0;
  int block_tokens = 16;
  bool v_is_k = false;
  size_t state_floats = 0;  // recurrent state per sequence; 0 unless the model is hybrid
  // > 0: the layers in group 1 (windowed) attend over the last window_tokens keys only, so
  // their K/V lives in blocks of its own that a paged cache frees once no later row can read
  // them; the other layers are group 0. layer_group and layer_slot are empty when every layer
  // is in group 0 (window_tokens 0).
  int window_tokens = 0;
  // Group 1 attends within chunks of window_tokens keys (Llama 4: a row at p reads keys from
  // p - p % window_tokens) rather than over the last window_tokens.
  bool window_chunked = false;
  std::vector<uint8_t> layer_group;  // per layer: 0 or 1
  std::vector<int> layer_slot;       // per layer: its index among its group's layers
  int n_windowed_layers = 0;         // layers in group 1
  // Group 1's heads when they differ from group 0's (Gemma 4); 0: n_head_kv and head_dim.
  int window_n_head_kv = 0;
  int window_head_dim = 0;

  // Marks the layers for which windowed[l] is true as group 1 over `window` keys, or chunks of
  // them (no group 1 when that would leave either group without layers).
  void set_windowed(int window, const std::vector<bool>& windowed, bool chunked = false);
  int n_groups() const { return window_tokens > 0 ? 2 : 1; }
  int group_of(int layer) const { return layer_group.empty() ? 0 : layer_group[static_cast<size_t>(layer)]; }
  int n_group_layers(int group) const { return group == 0 ? n_layer - n_windowed_layers : n_windowed_layers; }
  // The first block a row at position pos (or any later row) can read in group 1.
  int first_window_block(int pos) const {
    if (window_chunked) return (pos - pos % window_tokens) / block_tokens;
    return (pos >= window_tokens ? pos - window_tokens + 1 : 0) / block_tokens;
  }
  // Group 1 blocks a sequence needs at once: the window before its next rows and the
  // max_step_tokens rows of one forward, over block boundaries (a chunk starts no earlier
  // than a window of its size would).
  int window_step_blocks(int max_step_tokens) const {
    return (window_tokens - 1 + max_step_tokens + block_tokens - 1) / block_tokens + 1;
  }

  // A group's K/V heads and their size.
  int group_n_head_kv(int group) const { return group == 1 && window_n_head_kv > 0 ? window_n_head_kv : n_head_kv; }
  int group_head_dim(int group) const { return group == 1 && window_head_dim > 0 ? window_head_dim : head_dim; }
  // One token's K (or V) for one layer of the group.
  size_t token_bytes(int group) const;
  // K+V of one layer of the group for a whole block.
  size_t layer_bytes(int group) const {
    return (v_is_k ? 1 : 2) * static_cast<size_t>(block_tokens) * token_bytes(group);
  }
  // One block of one group (its layers in order), and of every group.
  size_t group_bytes(int group) const { return static_cast<size_t>(n_group_layers(group)) * layer_bytes(group); }
  size_t block_bytes() const { return group_bytes(0) + (n_groups() > 1 ? group_bytes(1) : 0); }
  // Offsets within the block of the layer's group.
  size_t k_offset(int layer, int token_in_block) const {
    const int slot = layer_slot.empty() ? layer : layer_slot[static_cast<size_t>(layer)];
    const int group = group_of(layer);
    return static_cast<size_t>(slot) * layer_bytes(group) + static_cast<size_t>(token_in_block) * token_bytes(group);
  }
  size_t v_offset(int layer, int token_in_block) const {
    const size_t v_at = v_is_k ? 0 : static_cast<size_t>(block_tokens) * token_bytes(group_of(layer));
    return k_offset(layer, token_in_block) + v_at;
  }
};

class KvView {
 public:
  virtual ~KvView() = default;
  virtual const KvLayout& layout() const = 0;
  // Start of block block_index (= pos / block_tokens) of sequence seq in layer group `group`
  // (KvLayout::group_of). The caller guarantees that every block covering a position in the
  // batch exists before the forward runs, and in group 1 every block from the one holding the
  // first key a row of the batch reads (KvLayout::first_window_block); earlier ones may not.
  virtual std::byte* block(int seq, int group, int block_index) = 0;
  // Sequence seq's recurrent state (layout().state_floats floats); nullptr when
  // state_floats is 0. Sequences' states never overlap.
  virtual float* recurrent_state(int seq) = 0;
};

}  // namespace strata
