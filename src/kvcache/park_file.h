// The on-disk format of one parked K/V block, or of one parked recurrent-state snapshot of a
// hybrid model (see park_store.h for the policy around them).
//
//   offset  size  field
//        0     8  magic "STRKVPK1" (a block) or "STRKVST1" (a state)
//        8     4  format version (1)
//       12     4  K/V type (DType id)
//       16     8  model identity
//       24    16  n_layer, n_head_kv, head_dim, block_tokens (u32 each)
//       40     8  payload bytes (a block's K/V bytes, or a state's floats)
//       48    16  key (BlockHash lo, hi)
//       64     8  payload checksum: hash_bytes64(payload)
//       72     8  header checksum: hash_bytes64(bytes [0, 72) + token ids)
//       80  4*bt  token ids of the block (int32; a state's: those of the block it ends with)
//        …        payload: the block's K/V bytes, or the state after the block
// Host byte order. Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "kvcache/block_hash.h"
#include "kvcache/park_store.h"

namespace strata {

inline constexpr size_t kParkHeaderBytes = 80;

// Bytes before the payload: the fixed header and the token ids.
size_t park_prefix_bytes(const ParkIdentity& identity);
size_t park_file_bytes(const ParkIdentity& identity);

// Fills prefix (park_prefix_bytes long) for a file of `kind`; identity.block_bytes is the payload's size.
void encode_park_prefix(ParkKind kind, const ParkIdentity& identity, const BlockHash& key,
                        std::span<const int32_t> tokens, uint64_t payload_checksum, std::byte* prefix);

struct ParkPrefix {
  ParkIdentity identity;
  BlockHash key;
  uint64_t payload_checksum = 0;
  std::vector<int32_t> tokens;
};
// Decodes the fixed header's magic, version and identity only (no checksum: the tokens it
// covers may be missing), e.g. to tell whose block a file cut short was. n_bytes >= 80.
// A file of the other kind is kCorrupt (bad magic).
Result<ParkIdentity> decode_park_identity(ParkKind kind, const std::byte* data, size_t n_bytes, const std::string& name);
// Decodes and checks magic, version and header checksum; errors name what is wrong.
// n_bytes may be longer than the prefix (the tokens' length comes from the header).
Result<ParkPrefix> decode_park_prefix(ParkKind kind, const std::byte* data, size_t n_bytes, const std::string& name);

}  // namespace strata
