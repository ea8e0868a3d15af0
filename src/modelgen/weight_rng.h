// WeightRng: a counter-based random source for generated weights. Element i of a tensor
// is a pure function of (seed, tensor name, i), so a tensor's values do not depend on the
// order tensors are written in, on threads, or on which rows are computed first.
// A plain value; copy freely; const methods are safe from any thread.
#pragma once

#include <cstdint>
#include <string_view>

namespace strata {

class WeightRng {
 public:
  WeightRng(uint64_t seed, std::string_view tensor_name) : key_(mix(seed ^ fnv1a(tensor_name))) {}

  // Uniform in [0, 1) with 24 random bits (every value exact in float).
  float uniform(uint64_t i) const {
    return static_cast<float>(mix(key_ + i * 0x9e3779b97f4a7c15ull) >> 40) * 0x1p-24f;
  }
  // Uniform in [-half_width, half_width).
  float symmetric(uint64_t i, float half_width) const { return (uniform(i) * 2.0f - 1.0f) * half_width; }

 private:
  // A 64-bit finaliser (SplitMix64's): every input bit affects every output bit.
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  static uint64_t fnv1a(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return h;
  }

  uint64_t key_;
};

}  // namespace strata
