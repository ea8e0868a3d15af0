#include "tokenizer/vocab.h"

#include <bit>
#include <functional>
#include <utility>

namespace strata {

namespace {

uint64_t text_hash(std::string_view text) { return std::hash<std::string_view>{}(text); }

}  // namespace

Vocab::Vocab(std::vector<std::string> texts, std::vector<float> scores, std::vector<int32_t> types)
    : texts_(std::move(texts)), scores_(std::move(scores)) {
  const size_t n = texts_.size();
  scores_.resize(n, 0.0f);
  types_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    types_.push_back(i < types.size() ? static_cast<TokenType>(types[i]) : TokenType::kNormal);
  }
  slots_.assign(std::bit_ceil(2 * n + 2), 0);
  const size_t mask = slots_.size() - 1;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = text_hash(texts_[i]);
    const uint64_t tag = h >> 32 << 32;
    for (size_t s = h & mask;; s = (s + 1) & mask) {
      if (slots_[s] == 0) {
        slots_[s] = tag | (i + 1);
        break;
      }
      // A text seen before keeps its lower id.
      if ((slots_[s] >> 32 << 32) == tag && texts_[(slots_[s] & 0xFFFFFFFFu) - 1] == texts_[i]) break;
    }
  }
}

int32_t Vocab::find(std::string_view text) const {
  const uint64_t h = text_hash(text);
  const uint64_t tag = h >> 32 << 32;
  const size_t mask = slots_.size() - 1;
  for (size_t s = h & mask; slots_[s] != 0; s = (s + 1) & mask) {
    if ((slots_[s] >> 32 << 32) != tag) continue;
    const size_t id = (slots_[s] & 0xFFFFFFFFu) - 1;
    if (texts_[id] == text) return static_cast<int32_t>(id);
  }
  return -1;
}

}  // namespace strata
