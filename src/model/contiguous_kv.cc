#include "model/contiguous_kv.h"

#include <cassert>
#include <limits>
#include <memory>
#include <string>

namespace strata {

Result<std::unique_ptr<ContiguousKv>> ContiguousKv::Create(const KvLayout& layout, int n_seqs, int max_tokens) {
  if (layout.type != DType::kF32 && layout.type != DType::kF16 && layout.type != DType::kQ8_0) {
    return Status::InvalidArgument("K/V cache type must be f32, f16 or q8_0, got " + std::string(dtype_name(layout.type)));
  }
  for (int group = 0; group < layout.n_groups(); ++group) {
    if (!dtype_row_bytes(layout.type, static_cast<uint64_t>(layout.group_head_dim(group)))) {
      return Status::InvalidArgument("K/V cache type " + std::string(dtype_name(layout.type)) +
                                     " needs a head size that is a multiple of 32, the model's is " +
                                     std::to_string(layout.group_head_dim(group)));
    }
  }
  if (n_seqs <= 0 || max_tokens <= 0 || layout.block_tokens <= 0 || layout.n_layer <= 0) {
    return Status::InvalidArgument("K/V cache needs positive sequence count, context and block size");
  }
  const int blocks_per_seq = (max_tokens + layout.block_tokens - 1) / layout.block_tokens;
  const size_t n_blocks = static_cast<size_t>(n_seqs) * static_cast<size_t>(blocks_per_seq);
  if (layout.block_bytes() != 0 && n_blocks > std::numeric_limits<size_t>::max() / layout.block_bytes()) {
    return Status::ResourceExhausted("K/V cache size overflows");
  }
  if (layout.state_floats > std::numeric_limits<size_t>::max() / sizeof(float) / static_cast<size_t>(n_seqs)) {
    return Status::ResourceExhausted("recurrent state size overflows");
  }
  return std::unique_ptr<ContiguousKv>(new ContiguousKv(layout, n_seqs, blocks_per_seq));
}

ContiguousKv::ContiguousKv(const KvLayout& layout, int n_seqs, int blocks_per_seq)
    : layout_(layout), n_seqs_(n_seqs), blocks_per_seq_(blocks_per_seq),
      buffer_(static_cast<size_t>(n_seqs) * static_cast<size_t>(blocks_per_seq) * layout.block_bytes()),
      states_(static_cast<size_t>(n_seqs) * layout.state_floats * sizeof(float)) {}

std::byte* ContiguousKv::block(int seq, int group, int block_index) {
  assert(seq >= 0 && seq < n_seqs_ && block_index >= 0 && block_index < blocks_per_seq_ && group >= 0 &&
         group < layout_.n_groups());
  const size_t index = static_cast<size_t>(seq) * static_cast<size_t>(blocks_per_seq_) + static_cast<size_t>(block_index);
  // Both groups of a position's block sit together, group 0 first, so a block's whole K/V
  // (block_bytes()) starts at its group 0 address.
  return buffer_.data() + index * layout_.block_bytes() + (group == 1 ? layout_.group_bytes(0) : 0);
}

float* ContiguousKv::recurrent_state(int seq) {
  assert(seq >= 0 && seq < n_seqs_);
  if (layout_.state_floats == 0) return nullptr;
  return states_.as<float>() + static_cast<size_t>(seq) * layout_.state_floats;
}

}  // namespace strata
