// KvView: how the model sees K/V storage. The model never owns or allocates K/V; the engine's
// paged cache (src/kvcache) implements this view, and so does a contiguous single-sequence
// cache used by `strata run` and tests.
//
// Layout of one block (block_tokens consecutive positions of one sequence, all layers):
//   for layer l: K[block_tokens][n_head_kv][head_dim], then V[block_tokens][n_head_kv][head_dim]
// elements in `type` (F32, F16 or Q8_0; Q8_0 needs head_dim % 32 == 0). With v_is_k (Multi-head
// Latent Attention, whose one latent row per token serves as key and value) a layer has K only,
// and V is read from the same bytes.
//
// Hybrid models (Hparams::is_hybrid) keep K/V only for their attention layers (n_layer counts
// those; Hparams::kv_layer numbers them) and, beside the blocks, a recurrent state per sequence:
// state_floats floats (every delta-net layer's, in layer order; Hparams::ssm_state_floats each)
// that hold the sequence after its positions so far. The forward pass zeroes it when a row at
// position 0 arrives, and advances it one position per row, so the view must hand each sequence
// the state its last forward pass left (a sequence cannot restart mid-way from cached K/V alone).
//
// Thread-safety: during one forward call, block() is called concurrently from several
// threads (and from several pipeline stages on different layers); implementations must
// not mutate their block tables while a forward that uses them is in flight.
#pragma once

#include <cstddef>

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

  // One token's K (or V) for one layer.
  size_t token_bytes() const;
  // K+V of one layer for a whole block.
  size_t layer_bytes() const { return (v_is_k ? 1 : 2) * static_cast<size_t>(block_tokens) * token_bytes(); }
  size_t block_bytes() const { return static_cast<size_t>(n_layer) * layer_bytes(); }
  size_t k_offset(int layer, int token_in_block) const {
    return static_cast<size_t>(layer) * layer_bytes() + static_cast<size_t>(token_in_block) * token_bytes();
  }
  size_t v_offset(int layer, int token_in_block) const {
    return k_offset(layer, token_in_block) + (v_is_k ? 0 : static_cast<size_t>(block_tokens) * token_bytes());
  }
};

class KvView {
 public:
  virtual ~KvView() = default;
  virtual const KvLayout& layout() const = 0;
  // Start of block block_index (= pos / block_tokens) of sequence seq. The caller guarantees
  // that every block covering a position in the batch exists before the forward runs.
  virtual std::byte* block(int seq, int block_index) = 0;
  // Sequence seq's recurrent state (layout().state_floats floats); nullptr when
  // state_floats is 0. Sequences' states never overlap.
  virtual float* recurrent_state(int seq) = 0;
};

}  // namespace strata
