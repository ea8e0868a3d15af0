#include "kvcache/block_hash.h"

#include <cstring>

namespace strata {

namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0xD6E8FEB86659FD93ull;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Full avalanche: every input bit flips each output bit with probability ~1/2.
inline uint64_t avalanche(uint64_t x) {
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  x ^= x >> 33;
  return x;
}

inline uint64_t lane_step(uint64_t acc, uint64_t word, uint64_t prime) {
  acc ^= word * prime;
  acc = rotl(acc, 29);
  return acc * kPrime1 + kPrime4;
}

// Two lanes with different multipliers and rotations over the same 64-bit words; they are
// cross-mixed at the end so the 128-bit result has no weak half.
struct TwoLane {
  uint64_t a;
  uint64_t b;

  void add(uint64_t word) {
    a = lane_step(a, word, kPrime2);
    b = rotl(b ^ (word * kPrime3), 31) * kPrime2 + kPrime1;
  }
  BlockHash finish(uint64_t length) {
    a ^= length;
    b ^= rotl(length, 17);
    uint64_t lo = avalanche(a + rotl(b, 23));
    uint64_t hi = avalanche(b ^ (a * kPrime3));
    return {lo, hi};
  }
};

}  // namespace

std::string BlockHash::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[15 - i] = kDigits[(hi >> (4 * i)) & 0xF];
    out[31 - i] = kDigits[(lo >> (4 * i)) & 0xF];
  }
  return out;
}

BlockHash root_hash(uint64_t model_identity) {
  TwoLane h{kPrime3 ^ 0x5374726174614B56ull, kPrime4};  // "StrataKV"
  h.add(model_identity);
  return h.finish(1);
}

BlockHash chain_hash(const BlockHash& parent, std::span<const int32_t> tokens) {
  TwoLane h{parent.lo ^ kPrime1, parent.hi ^ kPrime2};
  size_t i = 0;
  for (; i + 2 <= tokens.size(); i += 2) {
    uint64_t word = static_cast<uint32_t>(tokens[i]) | (uint64_t{static_cast<uint32_t>(tokens[i + 1])} << 32);
    h.add(word);
  }
  if (i < tokens.size()) h.add(static_cast<uint32_t>(tokens[i]) | (uint64_t{0xFFFFFFFF} << 32));
  return h.finish(tokens.size());
}

uint64_t hash_bytes64(const void* data, size_t n_bytes, uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  // Four independent accumulators keep the multiplier pipeline busy on large payloads.
  uint64_t acc[4] = {seed + kPrime1 + kPrime2, seed + kPrime2, seed, seed - kPrime1};
  size_t i = 0;
  for (; i + 32 <= n_bytes; i += 32) {
    for (int l = 0; l < 4; ++l) {
      uint64_t word;
      std::memcpy(&word, p + i + 8 * l, 8);
      acc[l] = rotl(acc[l] + word * kPrime2, 31) * kPrime1;
    }
  }
  uint64_t h = rotl(acc[0], 1) + rotl(acc[1], 7) + rotl(acc[2], 12) + rotl(acc[3], 18);
  for (int l = 0; l < 4; ++l) h = (h ^ avalanche(acc[l])) * kPrime1 + kPrime4;
  for (; i + 8 <= n_bytes; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    h = rotl(h ^ avalanche(word * kPrime2), 27) * kPrime1 + kPrime4;
  }
  for (; i < n_bytes; ++i) h = rotl(h ^ (p[i] * kPrime3), 11) * kPrime1;
  return avalanche(h ^ n_bytes);
}

}  // namespace strata
