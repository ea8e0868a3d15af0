// for_each_row(): runs a per-row function over a batch, on the pool when the batch is large
// enough to repay waking it; scale_row(s) on it. Private to src/model. Each row is computed by the same code
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

// x's n values times scale, in place (Gemma 4's layer_output_scale, BitNet's matrix scales).
inline void scale_row(float* x, float scale, int n) {
  for (int i = 0; i < n; ++i) x[i] *= scale;
}

// The first n_rows rows of width n in x times scale; nothing to do for 1.
inline void scale_rows(float* x, float scale, int n_rows, int n, ThreadPool& pool) {
  if (scale == 1.0f) return;
  for_each_row(pool, n_rows, n, [&](int r) { scale_row(x + static_cast<size_t>(r) * n, scale, n); });
}

}  // namespace strata
