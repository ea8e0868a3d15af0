#include "model/kv_view.h"

namespace strata {

size_t KvLayout::token_bytes() const {
  // Heads are stored back to back, each a whole number of blocks of `type` (see kv_view.h).
  return dtype_row_bytes(type, static_cast<uint64_t>(n_head_kv) * static_cast<uint64_t>(head_dim)).value_or(0);
}

}  // namespace strata
