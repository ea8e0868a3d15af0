#include "tokenizer/vocab.h"

#include <utility>

namespace strata {

Vocab::Vocab(std::vector<std::string> texts, std::vector<float> scores, std::vector<int32_t> types)
    : texts_(std::move(texts)), scores_(std::move(scores)) {
  const size_t n = texts_.size();
  scores_.resize(n, 0.0f);
  types_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    types_.push_back(i < types.size() ? static_cast<TokenType>(types[i]) : TokenType::kNormal);
  }
  ids_.reserve(n);
  for (size_t i = 0; i < n; ++i) ids_.emplace(texts_[i], static_cast<int32_t>(i));
}

int32_t Vocab::find(std::string_view text) const {
  auto it = ids_.find(text);
  return it == ids_.end() ? -1 : it->second;
}

}  // namespace strata
