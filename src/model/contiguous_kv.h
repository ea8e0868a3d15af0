// ContiguousKv: a KvView over one preallocated buffer holding n_seqs sequences of up to
// max_tokens positions each (sequence s owns blocks [s * blocks_per_seq, (s + 1) * ...)), and
// a second holding each sequence's recurrent state (hybrid models).
// For `strata run`, `strata bench` and tests; the engine uses its paged cache instead. It keeps
// every position of sliding-window layers too (a block's group 1 right after its group 0).
//
// Owns the buffer. block() only computes addresses, so it is safe from many threads.
#pragma once

#include <memory>

#include "base/aligned_buffer.h"
#include "base/status.h"
#include "model/kv_view.h"

namespace strata {

class ContiguousKv final : public KvView {
 public:
  // Fails with kInvalidArgument for a layout the cache cannot hold (Q8_0 with head_dim not a
  // multiple of 32, non-positive sizes) and kResourceExhausted when the buffer size overflows.
  static Result<std::unique_ptr<ContiguousKv>> Create(const KvLayout& layout, int n_seqs, int max_tokens);

  const KvLayout& layout() const override { return layout_; }
  std::byte* block(int seq, int group, int block_index) override;
  float* recurrent_state(int seq) override;

  int n_seqs() const { return n_seqs_; }
  int max_tokens() const { return blocks_per_seq_ * layout_.block_tokens; }
  size_t bytes() const { return buffer_.size(); }

 private:
  ContiguousKv(const KvLayout& layout, int n_seqs, int blocks_per_seq);

  KvLayout layout_;
  int n_seqs_ = 0;
  int blocks_per_seq_ = 0;
  AlignedBuffer buffer_;
  AlignedBuffer states_;
};

}  // namespace strata
