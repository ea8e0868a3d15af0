// Vocab: the token table of one model: the text, score and type of every id, and the reverse
// look-up from text to id.
//
// Immutable after construction; safe to read from any number of threads.
// Invariants: texts, scores and types have n_tokens() entries; find() returns the lowest id
// whose text matches (a vocabulary may repeat a text; the first one wins).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/tokenizer_spec.h"

namespace strata {

class Vocab {
 public:
  // scores and types may be empty (all 0 / all kNormal); otherwise they match texts in size
  // (checked by the caller, Tokenizer::FromSpec).
  Vocab(std::vector<std::string> texts, std::vector<float> scores, std::vector<int32_t> types);

  int32_t n_tokens() const { return static_cast<int32_t>(texts_.size()); }
  bool contains(int32_t id) const { return id >= 0 && id < n_tokens(); }
  const std::string& text(int32_t id) const { return texts_[id]; }
  float score(int32_t id) const { return scores_[id]; }
  TokenType type(int32_t id) const { return types_[id]; }
  // -1 when no token has exactly this text.
  int32_t find(std::string_view text) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> texts_;
  std::vector<float> scores_;
  std::vector<TokenType> types_;
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace strata
