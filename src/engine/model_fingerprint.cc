#include "engine/model_fingerprint.h"

#include <algorithm>

#include "kvcache/block_hash.h"

namespace strata {

namespace {
constexpr size_t kSampleBytes = 4096;
}

uint64_t model_fingerprint(const GgufFile& gguf) {
  uint64_t h = hash_bytes64(nullptr, 0, gguf.tensors().size());
  for (const GgufTensor& t : gguf.tensors()) {
    h = hash_bytes64(t.name.data(), t.name.size(), h);
    const uint64_t shape[] = {static_cast<uint64_t>(t.type), t.dims.size(), t.n_elements, t.n_bytes};
    h = hash_bytes64(shape, sizeof(shape), h);
    h = hash_bytes64(t.dims.data(), t.dims.size() * sizeof(uint64_t), h);
    if (t.data == nullptr) continue;
    size_t head = std::min(kSampleBytes, t.n_bytes);
    h = hash_bytes64(t.data, head, h);
    if (t.n_bytes > head) {
      size_t tail = std::min(kSampleBytes, t.n_bytes - head);
      h = hash_bytes64(t.data + t.n_bytes - tail, tail, h);
    }
  }
  return h;
}

}  // namespace strata
