// BlockHash: the 128-bit identity of one full K/V block, chained over its whole prefix.
//
// A block's K/V depends on every token before it, so its key is
//   chain_hash(parent's key, the block's own token ids)
// starting from root_hash(model identity). Two sequences share a block only if their keys
// are equal AND the stored token ids match (the cache compares both), so a hash collision
// would have to hit 128 bits and the token ids at once.
//
// The hash is our own multiply-xorshift construction with two independent 64-bit lanes and
// a final avalanche; it is not cryptographic (nobody adversarial chooses our token ids) but
// is well mixed. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace strata {

struct BlockHash {
  uint64_t lo = 0;
  uint64_t hi = 0;

  friend bool operator==(const BlockHash&, const BlockHash&) = default;
  // 32 lowercase hex digits, hi first (used as the park file name).
  std::string hex() const;
};

// The key every chain starts from; model_identity separates models and K/V layouts.
BlockHash root_hash(uint64_t model_identity);
BlockHash chain_hash(const BlockHash& parent, std::span<const int32_t> tokens);

// 64-bit hash of a byte range (checksums of parked K/V bytes and file headers).
uint64_t hash_bytes64(const void* data, size_t n_bytes, uint64_t seed);

}  // namespace strata
