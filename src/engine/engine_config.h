// EngineConfig: EngineOptions checked against a model and turned into the numbers the
// engine runs with (context, groups, stage layer ranges, threads per stage, pool size).
// Pure; errors name the option that is wrong.
#pragma once

#include <vector>

#include "base/status.h"
#include "engine/engine.h"
#include "model/hparams.h"
#include "model/kv_view.h"

namespace strata {

struct StagePlan {
  int first_layer = 0;  // layers [first_layer, last_layer)
  int last_layer = 0;
  int n_threads = 1;
};

struct EngineConfig {
  EngineOptions options;        // with n_ctx, n_groups and n_threads resolved
  int slots_per_group = 1;
  bool join_groups = false;     // options.join_groups and more than one group
  KvLayout kv_layout;
  size_t kv_block_bytes = 0;       // one block of group 0 (every layer but the sliding-window ones)
  int n_kv_blocks = 0;
  size_t kv_window_block_bytes = 0;  // kv_layout.window_tokens > 0: one block of the sliding-window layers
  int n_kv_window_blocks = 0;
  int max_step_tokens = 0;           // the most rows one forward gives a slot
  int n_state_snapshots = 0;    // hybrid models' StateCache entries (EngineOptions::state_cache_mib)
  int max_drafts = 0;           // drafted tokens one slot may verify per step (0 without --spec)
  int max_window_rows = 0;      // decode and draft rows of every slot in a window + a prefill chunk
  std::vector<StagePlan> stages;
  int group_of(int slot) const { return slot / slots_per_group; }
};

// hardware_threads: what "all cores" means (0 = ask the OS).
Result<EngineConfig> resolve_engine_config(const EngineOptions& options, const Hparams& hparams,
                                           int hardware_threads = 0);

// The largest G <= n_stages that divides n_parallel (1 for a single stage).
int auto_batch_groups(int n_parallel, int n_stages);

}  // namespace strata
