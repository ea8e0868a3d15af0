#include "tokenizer/special_matcher.h"

#include <algorithm>

namespace strata {

bool SpecialMatcher::is_matchable_type(TokenType type) {
  return type == TokenType::kControl || type == TokenType::kUnknown || type == TokenType::kUserDefined;
}

SpecialMatcher::SpecialMatcher(const Vocab& vocab) : vocab_(vocab) {
  for (int32_t id = 0; id < vocab.n_tokens(); ++id) {
    if (!is_matchable_type(vocab.type(id)) || vocab.text(id).empty()) continue;
    by_first_byte_[static_cast<uint8_t>(vocab.text(id)[0])].push_back(id);
  }
  for (auto& ids : by_first_byte_) {
    std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
      return vocab.text(a).size() > vocab.text(b).size();
    });
  }
}

int32_t SpecialMatcher::match_at(std::string_view rest, bool parse_special) const {
  for (int32_t id : by_first_byte_[static_cast<uint8_t>(rest[0])]) {
    if (!parse_special && vocab_.type(id) != TokenType::kUserDefined) continue;
    if (rest.starts_with(vocab_.text(id))) return id;
  }
  return -1;
}

void SpecialMatcher::split(std::string_view text, bool parse_special, std::vector<TextFragment>* out) const {
  size_t raw_begin = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const int32_t id = match_at(text.substr(pos), parse_special);
    if (id < 0) {
      ++pos;
      continue;
    }
    if (pos > raw_begin) out->push_back({-1, text.substr(raw_begin, pos - raw_begin)});
    const size_t n = vocab_.text(id).size();
    out->push_back({id, text.substr(pos, n)});
    pos += n;
    raw_begin = pos;
  }
  if (raw_begin < text.size()) out->push_back({-1, text.substr(raw_begin)});
}

}  // namespace strata
