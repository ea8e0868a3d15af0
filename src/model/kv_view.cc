#include "model/kv_view.h"

namespace strata {

size_t KvLayout::token_bytes(int group) const {
  // Heads are stored back to back, each a whole number of blocks of `type` (see kv_view.h).
  const uint64_t n_values = static_cast<uint64_t>(group_n_head_kv(group)) * static_cast<uint64_t>(group_head_dim(group));
  return dtype_row_bytes(type, n_values).value_or(0);
}

void KvLayout::set_windowed(int window, const std::vector<bool>& windowed, bool chunked) {
  window_tokens = window;
  window_chunked = chunked;
  layer_group.assign(static_cast<size_t>(n_layer), 0);
  layer_slot.assign(static_cast<size_t>(n_layer), 0);
  int n_in_group[2] = {0, 0};
  for (int l = 0; l < n_layer; ++l) {
    const int g = windowed[static_cast<size_t>(l)] ? 1 : 0;
    layer_group[static_cast<size_t>(l)] = static_cast<uint8_t>(g);
    layer_slot[static_cast<size_t>(l)] = n_in_group[g]++;
  }
  n_windowed_layers = n_in_group[1];
  if (n_in_group[0] == 0 || n_in_group[1] == 0) {  // one group after all: no window
    window_tokens = n_windowed_layers = 0;
    window_n_head_kv = window_head_dim = 0;
    window_chunked = false;
    layer_group.clear();
    layer_slot.clear();
  }
}

}  // namespace strata
