// A counter-based random stream: the draw for a token is a pure function of (seed, position),
// so a request samples the same token whether it runs alone or batched with others, and no
// generator state is carried between tokens. Stateless; safe from any thread.
//
// The mix is two rounds of the splitmix64 finalizer (full avalanche: every input bit flips
// about half the output bits).
#pragma once

#include <cstdint>

namespace strata {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline uint64_t counter_hash(uint64_t seed, uint64_t position) { return splitmix64(splitmix64(seed) ^ position); }

// A uniform double in [0, 1) with 53 random bits.
inline double counter_uniform(uint64_t seed, uint64_t position) {
  return static_cast<double>(counter_hash(seed, position) >> 11) * 0x1.0p-53;
}

}  // namespace strata
