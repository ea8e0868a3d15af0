// ParkStore: K/V blocks parked in host files, content-addressed by their BlockHash, and for
// hybrid models the recurrent-state snapshots that let a sequence resume after a block.
//
// Owns a directory (--park-dir) holding one file per block, "<hash hex>.kvb", one per block of
// sliding-window layers, "<hash hex>.kvw", and one per state snapshot, "<hash hex>.kvs" (the
// state after the block of that key; park_file.h):
//   a fixed header (magic, format version, the K/V layout and model identity, the key, a
//   checksum of the K/V bytes and one of the header itself), the block's token ids, then
//   the block's K/V bytes, all in host byte order.
// Writes go to a temporary file renamed into place, so a reader never sees half a block;
// the index is rebuilt from the directory on Open, so parked blocks survive a restart.
// Files of another model or K/V layout are left alone and never served; a file that fails
// any check on read is deleted and reported as kCorrupt, and the caller recomputes; a file
// cut short (shorter than its own header says) is logged and deleted on Open.
// Total size (blocks and states together) stays within capacity_bytes by deleting the least
// recently used files.
//
// Because files are named by key, parking a longer conversation again writes only the
// blocks the store does not have yet.
// Not thread-safe: owned by the engine thread's KvCache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>

#include "base/status.h"
#include "kvcache/block_hash.h"

namespace strata {

// A parked file's kind: a block's K/V bytes (its sliding-window layers' apart, as kWindow, when
// the layout keeps them in a group of their own), or a hybrid model's recurrent state after a block.
enum class ParkKind : uint8_t { kBlock, kState, kWindow };

// What a parked block must match to be usable by this engine.
struct ParkIdentity {
  uint64_t model_id = 0;
  uint32_t kv_type = 0;  // DType id
  uint32_t n_layer = 0;
  uint32_t n_head_kv = 0;
  uint32_t head_dim = 0;
  uint32_t block_tokens = 0;
  uint64_t block_bytes = 0;
  uint64_t state_bytes = 0;  // a hybrid model's recurrent state per sequence; 0: no state files
  uint64_t window_bytes = 0;  // a block of the sliding-window layers' group; 0: no window files
  friend bool operator==(const ParkIdentity&, const ParkIdentity&) = default;
};

struct ParkStats {
  uint64_t blocks = 0;          // block files indexed now
  uint64_t states = 0;          // state files indexed now
  uint64_t bytes = 0;           // their total size
  uint64_t capacity_bytes = 0;
  uint64_t parks = 0;           // blocks written
  uint64_t bytes_written = 0;
  uint64_t restores = 0;        // blocks read back successfully
  uint64_t corrupt = 0;         // files rejected on read
  uint64_t deleted = 0;         // files removed to stay within capacity
};

class ParkStore {
 public:
  static Result<std::unique_ptr<ParkStore>> Open(const std::string& dir, uint64_t capacity_bytes,
                                                 const ParkIdentity& identity);

  bool contains(const BlockHash& key, ParkKind kind = ParkKind::kBlock) const {
    return index_.count(FileKey{key, kind}) != 0;
  }
  // Writes the block (or state: identity.state_bytes of data) unless the store already has its
  // key (then it only counts as used). Returns true when a file was written; false also for a
  // state when the identity has no state_bytes.
  Result<bool> put(const BlockHash& key, std::span<const int32_t> tokens, const std::byte* data,
                   ParkKind kind = ParkKind::kBlock);
  // Reads the block (or state) with this key into data. kNotFound when not parked;
  // kCorrupt (file deleted) when any check fails, including tokens differing from `tokens`.
  Status get(const BlockHash& key, std::span<const int32_t> tokens, std::byte* data,
             ParkKind kind = ParkKind::kBlock);

  const ParkStats& stats() const { return stats_; }
  const std::string& dir() const { return dir_; }
  uint64_t file_bytes(ParkKind kind = ParkKind::kBlock) const;

 private:
  struct FileKey {
    BlockHash hash;
    ParkKind kind = ParkKind::kBlock;
    friend bool operator==(const FileKey&, const FileKey&) = default;
  };
  struct KeyHasher {
    size_t operator()(const FileKey& k) const {
      return static_cast<size_t>(k.hash.lo ^ (k.hash.hi * 31) ^ static_cast<uint64_t>(k.kind));
    }
  };
  struct Entry {
    uint64_t last_use = 0;
  };
  ParkStore(std::string dir, uint64_t capacity_bytes, const ParkIdentity& identity);
  // The identity a file of kind carries in its header (block_bytes: its payload's size).
  ParkIdentity file_identity(ParkKind kind) const;
  Status scan();
  void remove_if_cut_short(ParkKind kind, const std::string& path, uint64_t size_bytes);
  std::string path_of(const FileKey& key) const;
  void touch(const FileKey& key);
  void remove(FileKey key);
  void make_room(uint64_t n_bytes);
  uint64_t& file_count(ParkKind kind);  // stats_.blocks (kBlock, kWindow) or stats_.states

  const std::string dir_;
  const ParkIdentity identity_;
  std::unordered_map<FileKey, Entry, KeyHasher> index_;
  std::map<uint64_t, FileKey> by_use_;  // last_use -> key, oldest first
  uint64_t use_counter_ = 0;
  uint64_t tmp_counter_ = 0;
  ParkStats stats_;
};

}  // namespace strata
