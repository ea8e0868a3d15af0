// attend_all(): one layer's attention for a batch of rows, as work items spread over the pool.
// Private to src/model (transformer.cc calls it after every row's K/V is in the cache).
//
// An item is a tile (a run of consecutive rows of one sequence) times one or more of its K/V
// heads with their query heads. In a sliding-window layer, a row whose window starts past
// position 0 attends alone over its window's keys. The kernels give every (row, head) the bits it would get alone,
// so how the batch is cut into items never changes results.
#pragma once

#include <span>

#include "base/thread_pool.h"
#include "model/forward_scratch.h"
#include "model/hparams.h"
#include "model/kv_view.h"
#include "model/model.h"

namespace strata {

// One layer's attention: its index and, for gpt-oss, its sink logits (n_head; else nullptr).
struct LayerAttention {
  const Hparams& hp;
  int layer;
  const float* sinks;
};

// Writes s.attn_out() for every row from s.q() and the cache (rows[r].pos + 1 keys each, or
// the window's in a sliding layer).
void attend_all(const LayerAttention& la, std::span<const Row> rows, KvView& kv, ForwardScratch& s,
                ThreadPool& pool);

}  // namespace strata
