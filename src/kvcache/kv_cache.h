// KvCache: the engine's paged K/V cache. Per-sequence block tables over one BlockPool, the
// prefix cache (full blocks shared by chain hash) and, optionally, the park store.
//
// Owns the pool, the tables and the ParkStore. Implements KvView for the model: block()
// maps (sequence, block index) to the block's bytes through the sequence's table.
//
// A hybrid model's sequences (layout.state_floats > 0) also hold a recurrent state each
// (KvView::recurrent_state), which blocks alone cannot restore. publish() files a snapshot of
// it (StateCache) whenever the sequence's computed positions end on a block boundary, and
// admit() reuses the longest cached prefix that ends in a block with a snapshot, held or
// parked, copying it into the sequence's state. Snapshots are parked beside the blocks (as
// ".kvs" files) when the StateCache evicts them and by park_idle(), which keeps them held too
// (their memory is allocated once).
//
// Life of a sequence (the engine's slot):
//   admit()    attach the longest cached prefix (pool first, then parked blocks, restored
//              into fresh blocks) and reserve enough blocks for the rest of the request,
//              so grow() can never fail later;
//   grow()     add blocks before a window writes positions beyond the table;
//   publish()  after K/V is computed, give each newly full block its chain hash so any
//              later sequence can reuse it;
//   release()  drop the sequence's references; full blocks stay cached (LRU), the partial
//              last block is freed.
// A model with sliding-window layers beside full ones (layout.window_tokens > 0) keeps those
// layers' K/V in a second pool (WindowBlocks), of which a sequence holds only the blocks its
// next rows can read; everything above holds for both pools, a prefix being reusable when
// group 0 has all its blocks and the window pool the ones at its end.
// A cached block about to be evicted is written to the park store first (when one is
// configured) unless the store already has it; park_idle() moves every cached block
// there (written unless already parked, then freed), so later requests restore them.
//
// Thread-safety: every method except block()/layout() runs on the engine thread. block()
// is called by pipeline stage threads concurrently; it reads only the table rows of the
// sequences in their window, which the engine thread does not change while that window
// is in flight (tables are fixed-size arrays that never move).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/status.h"
#include "kvcache/block_pool.h"
#include "kvcache/park_store.h"
#include "kvcache/state_cache.h"
#include "kvcache/window_blocks.h"
#include "model/kv_view.h"

namespace strata {

struct KvCacheOptions {
  KvLayout layout;
  int n_blocks = 0;
  int n_seqs = 0;
  int max_seq_tokens = 0;      // a sequence's context
  uint64_t model_id = 0;       // separates models in the park store and in chain keys
  std::string park_dir;        // empty: no parking
  uint64_t park_capacity_bytes = 0;
  int n_state_snapshots = 0;   // hybrid models: StateCache entries (0: no prefix reuse for them)
  int n_window_blocks = 0;     // layout.window_tokens > 0: blocks of the sliding-window layers' pool
  int max_step_tokens = 0;     // layout.window_tokens > 0: the most rows one forward gives a sequence
};

struct KvCacheStats {
  int block_tokens = 0;
  int blocks_total = 0;
  int blocks_used = 0;
  int blocks_cached = 0;
  uint64_t evictions = 0;
  ParkStats park;
  uint64_t restores = 0;        // admissions that restored at least one parked block
  uint64_t restored_blocks = 0;
  uint64_t restored_states = 0;  // hybrid models: state snapshots read back from the park store
  uint64_t bytes_reused = 0;
  uint64_t prefix_queries_tokens = 0;
  uint64_t prefix_hit_tokens = 0;
  int state_snapshots_total = 0;  // hybrid models' StateCache entries, and those holding one
  int state_snapshots_used = 0;
  int window_blocks_total = 0;  // the sliding-window layers' pool (layout.window_tokens > 0)
  int window_blocks_used = 0;
  int window_blocks_cached = 0;
};

struct Admission {
  int reused_tokens = 0;    // K/V present for positions [0, reused_tokens)
  int restored_tokens = 0;  // of which read back from the park store
};

class KvCache final : public KvView {
 public:
  static Result<std::unique_ptr<KvCache>> Create(const KvCacheOptions& options);

  const KvLayout& layout() const override { return layout_; }
  std::byte* block(int seq, int group, int block_index) override {
    if (group == 1) return window_->block(seq, block_index);
    return pool_.data(tables_[static_cast<size_t>(seq) * max_blocks_ + block_index]);
  }
  float* recurrent_state(int seq) override {
    return layout_.state_floats == 0 ? nullptr : states_.as<float>() + static_cast<size_t>(seq) * layout_.state_floats;
  }

  int blocks_for_tokens(int n_tokens) const { return (n_tokens + block_tokens_ - 1) / block_tokens_; }
  // False for a hybrid model without state snapshots: its sequences never resume a prefix.
  bool reuses_prefixes() const { return layout_.state_floats == 0 || snapshots_ != nullptr; }
  int n_blocks() const { return pool_.n_blocks(); }

  // Starts sequence seq (which must hold no blocks) for a request whose tokens begin with
  // `tokens` and may grow to total_tokens positions. Reuses at most max_reuse_tokens
  // (rounded down to whole blocks). nullopt, with nothing changed, when the pool cannot
  // guarantee the request's blocks right now (the caller retries after others finish).
  std::optional<Admission> admit(int seq, std::span<const int32_t> tokens, int max_reuse_tokens, int total_tokens);
  // Ensures blocks for positions [0, n_tokens). kResourceExhausted only if the sequence
  // grows past what admit() reserved and the pool is full.
  Status grow(int seq, int n_tokens);
  // tokens[0, n_computed) are the ids whose K/V is now stored; publishes the full blocks.
  void publish(int seq, std::span<const int32_t> tokens, int n_computed);
  void release(int seq);
  // Moves every cached block to the park store (writing those it lacks) and frees its
  // memory, and parks every held state snapshot; returns how many files were written.
  int park_idle();
  // Blocks of seq's previous conversation that are still cached (allocator rule 3); with a
  // window pool, no more than the prefix whose window blocks are cached too, the most a
  // follow-up could resume.
  int retained_blocks(int seq) const;

  KvCacheStats stats() const;

 private:
  struct Seq {
    int n_table = 0;
    int n_hashed = 0;       // leading blocks whose chain hash is known
    int reserved = 0;       // blocks admit() promised grow() may still take
    int n_last = 0;         // length of last_hashes (previous conversation)
    int n_prompt = 0;       // tokens given to admit(), for its prompt point (state_cache.h)
    std::vector<BlockHash> hashes;
    std::vector<BlockHash> last_hashes;
  };
  static constexpr int kParked = -2;  // planned table entry still in the park store
  KvCache(const KvCacheOptions& options, size_t block_bytes);
  int* table(int seq) { return tables_.data() + static_cast<size_t>(seq) * max_blocks_; }
  int restore_planned(int seq, std::span<const int32_t> tokens, int n_plan, int* n_restored);
  int cut_to_snapshot(int seq, int n_plan);
  int resume_state(int seq, std::span<const int32_t> tokens);
  void snapshot_state(int seq, std::span<const int32_t> tokens, int n_computed);
  // Writes a block of pool (group 0's, kind kBlock, or the window pool's, kWindow) to the park
  // store unless it has it; park_pool() moves every cached block of pool there.
  void park_block(const BlockPool& pool, ParkKind kind, int block);
  void park_pool(BlockPool& pool, ParkKind kind);
  // Fits the admitted prefix of seq (its table's length) to the window pool; false when that
  // pool cannot promise the request's blocks now (seq is then released).
  bool attach_window(int seq, std::span<const int32_t> tokens, int total_tokens, int* n_restored);
  void park_state(const BlockHash& key, const float* state, std::span<const int32_t> tokens);
  int outstanding_reservations() const;

  KvLayout layout_;
  const int block_tokens_;
  const int max_blocks_;
  BlockHash root_;
  BlockPool pool_;
  std::unique_ptr<ParkStore> store_;
  std::vector<int> tables_;  // n_seqs x max_blocks_
  std::vector<Seq> seqs_;
  AlignedBuffer states_;  // n_seqs x layout_.state_floats
  std::unique_ptr<StateCache> snapshots_;  // hybrid models with n_state_snapshots > 0
  std::unique_ptr<WindowBlocks> window_;   // layout_.window_tokens > 0
  KvCacheStats counters_;
};

// The identity a parked block must match: model, K/V type and shape.
ParkIdentity park_identity(const KvLayout& layout, uint64_t model_id, size_t block_bytes);

}  // namespace strata
