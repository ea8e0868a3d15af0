// for_each_row(): runs a per-row function over a batch, on the pool when the batch is large
// enough to repay waking it. Private to src/model. Each row is computed by the same code
// either way, so the choice never changes results (batch invariance).
#pragma once

#include <cstdint>

#include "base/thread_pool.h"

namespace strata {

// fn(r) for every row r < n_rows: inline when n_rows * floats_per_row is small (a decode
// step's few rows of norms and adds take less time than a thread wake-up).
template <typename F>
void for_each_row(ThreadPool& pool, int n_rows, int floats_per_row, F&& fn) {
  constexpr int64_t kInlineFloats = 1 << 16;
  if (static_cast<int64_t>(n_rows) * floats_per_row <= kInlineFloats) {
    for (int r = 0; r < n_rows; ++r) fn(r);
    return;
  }
  pool.parallel_for(n_rows, [&](int r, int) { fn(r); });
}

}  // namespace strata
