#include "kvcache/park_file.h"

#include <cstring>

namespace strata {

namespace {

constexpr char kBlockMagic[8] = {'S', 'T', 'R', 'K', 'V', 'P', 'K', '1'};
constexpr char kStateMagic[8] = {'S', 'T', 'R', 'K', 'V', 'S', 'T', '1'};
constexpr char kWindowMagic[8] = {'S', 'T', 'R', 'K', 'V', 'W', 'N', '1'};

const char* magic(ParkKind kind) {
  return kind == ParkKind::kState ? kStateMagic : kind == ParkKind::kWindow ? kWindowMagic : kBlockMagic;
}
constexpr uint32_t kFormatVersion = 1;
constexpr uint64_t kHeaderSeed = 0x7061726B2D686472ull;  // "park-hdr"
// A block of more tokens than this is not something we ever write; it bounds decoding.
constexpr uint32_t kMaxBlockTokens = 1 << 16;

template <typename T>
void put(std::byte* p, size_t offset, T v) { std::memcpy(p + offset, &v, sizeof(T)); }
template <typename T>
T get(const std::byte* p, size_t offset) {
  T v;
  std::memcpy(&v, p + offset, sizeof(T));
  return v;
}

uint64_t header_checksum(const std::byte* prefix, size_t n_tokens) {
  // The checksum field itself (offset 72) is excluded; tokens follow at offset 80.
  uint64_t h = hash_bytes64(prefix, 72, kHeaderSeed);
  return hash_bytes64(prefix + kParkHeaderBytes, n_tokens * sizeof(int32_t), h);
}

}  // namespace

size_t park_prefix_bytes(const ParkIdentity& identity) {
  return kParkHeaderBytes + static_cast<size_t>(identity.block_tokens) * sizeof(int32_t);
}

size_t park_file_bytes(const ParkIdentity& identity) {
  return park_prefix_bytes(identity) + identity.block_bytes;
}

void encode_park_prefix(ParkKind kind, const ParkIdentity& id, const BlockHash& key,
                        std::span<const int32_t> tokens, uint64_t payload_checksum, std::byte* prefix) {
  std::memcpy(prefix, magic(kind), sizeof(kBlockMagic));
  put<uint32_t>(prefix, 8, kFormatVersion);
  put<uint32_t>(prefix, 12, id.kv_type);
  put<uint64_t>(prefix, 16, id.model_id);
  put<uint32_t>(prefix, 24, id.n_layer);
  put<uint32_t>(prefix, 28, id.n_head_kv);
  put<uint32_t>(prefix, 32, id.head_dim);
  put<uint32_t>(prefix, 36, id.block_tokens);
  put<uint64_t>(prefix, 40, id.block_bytes);
  put<uint64_t>(prefix, 48, key.lo);
  put<uint64_t>(prefix, 56, key.hi);
  put<uint64_t>(prefix, 64, payload_checksum);
  std::memcpy(prefix + kParkHeaderBytes, tokens.data(), tokens.size() * sizeof(int32_t));
  put<uint64_t>(prefix, 72, header_checksum(prefix, tokens.size()));
}

Result<ParkIdentity> decode_park_identity(ParkKind kind, const std::byte* data, size_t n_bytes,
                                          const std::string& name) {
  if (n_bytes < kParkHeaderBytes) {
    return Status::Corrupt(name + ": " + std::to_string(n_bytes) + " bytes is shorter than a park header");
  }
  if (std::memcmp(data, magic(kind), sizeof(kBlockMagic)) != 0) {
    return Status::Corrupt(name + (kind == ParkKind::kState    ? ": not a parked state (bad magic)"
                                   : kind == ParkKind::kWindow ? ": not a parked sliding-window K/V block (bad magic)"
                                                               : ": not a parked K/V block (bad magic)"));
  }
  uint32_t version = get<uint32_t>(data, 8);
  if (version != kFormatVersion) {
    return Status::Unsupported(name + ": park format version " + std::to_string(version) + ", expected " +
                               std::to_string(kFormatVersion));
  }
  ParkIdentity identity;
  identity.kv_type = get<uint32_t>(data, 12);
  identity.model_id = get<uint64_t>(data, 16);
  identity.n_layer = get<uint32_t>(data, 24);
  identity.n_head_kv = get<uint32_t>(data, 28);
  identity.head_dim = get<uint32_t>(data, 32);
  identity.block_tokens = get<uint32_t>(data, 36);
  identity.block_bytes = get<uint64_t>(data, 40);
  return identity;
}

Result<ParkPrefix> decode_park_prefix(ParkKind kind, const std::byte* data, size_t n_bytes, const std::string& name) {
  ParkPrefix out;
  STRATA_ASSIGN_OR_RETURN(out.identity, decode_park_identity(kind, data, n_bytes, name));
  out.key.lo = get<uint64_t>(data, 48);
  out.key.hi = get<uint64_t>(data, 56);
  out.payload_checksum = get<uint64_t>(data, 64);
  uint32_t n_tokens = out.identity.block_tokens;
  if (n_tokens == 0 || n_tokens > kMaxBlockTokens) {
    return Status::Corrupt(name + ": block_tokens " + std::to_string(n_tokens) + " is out of range");
  }
  if (n_bytes < kParkHeaderBytes + size_t{n_tokens} * sizeof(int32_t)) {
    return Status::Corrupt(name + ": truncated inside the token ids");
  }
  if (get<uint64_t>(data, 72) != header_checksum(data, n_tokens)) {
    return Status::Corrupt(name + ": header checksum mismatch");
  }
  out.tokens.resize(n_tokens);
  std::memcpy(out.tokens.data(), data + kParkHeaderBytes, size_t{n_tokens} * sizeof(int32_t));
  return out;
}

}  // namespace strata
