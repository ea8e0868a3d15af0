// Vocab: the token table of one model: the text, score and type of every id, and the reverse
// look-up from text to id.
//
// Immutable after construction; safe to read from any number of threads.
// Invariants: texts, scores and types have n_tokens() entries; find() returns the lowest id
// whose text matches (a vocabulary may repeat a text; the first one wins).
//
// The reverse look-up is an open-addressing table of ids (the texts are the keys, held once):
// one array for a 200k-token vocabulary instead of a map node and a copied string per token,
// which took most of a large vocabulary's load.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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
  std::vector<std::string> texts_;
  std::vector<float> scores_;
  std::vector<TokenType> types_;
  // Slots of (text hash's high 32 bits << 32 | id + 1); 0 is empty. A power of two in size, at
  // least twice n_tokens(), probed linearly.
  std::vector<uint64_t> slots_;
};

}  // namespace strata
