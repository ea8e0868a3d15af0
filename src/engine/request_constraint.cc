#include "engine/request_constraint.h"

#include <algorithm>

#include "tokenizer/tokenizer.h"

namespace strata {

std::shared_ptr<const grammar::TokenVocabulary> build_constraint_vocabulary(const Tokenizer& tokenizer) {
  std::vector<std::string> bytes(tokenizer.n_vocab());
  std::vector<int32_t> end_tokens;
  for (int32_t id = 0; id < tokenizer.n_vocab(); ++id) {
    if (tokenizer.is_eog(id)) end_tokens.push_back(id);
    // Control tokens stand for no output text: a constrained output never contains them.
    if (!tokenizer.is_eog(id) && !tokenizer.is_special(id)) bytes[id] = tokenizer.token_to_piece(id);
  }
  return std::make_shared<grammar::TokenVocabulary>(bytes, std::move(end_tokens));
}

RequestConstraint::RequestConstraint(std::shared_ptr<const grammar::CompiledGrammar> grammar,
                                     std::shared_ptr<const grammar::TokenVocabulary> vocab)
    : vocab_(vocab), matcher_(std::move(grammar)), masker_(std::move(vocab)) {}

std::span<const uint64_t> RequestConstraint::allowed() { return masker_.mask(matcher_); }

bool RequestConstraint::accept(int32_t token) {
  const std::vector<int32_t>& ends = vocab_->end_tokens();
  if (std::find(ends.begin(), ends.end(), token) != ends.end()) return matcher_.accepting();
  if (token < 0 || token >= vocab_->n_vocab() || vocab_->bytes(token).empty()) return false;
  return matcher_.accept(vocab_->bytes(token));
}

}  // namespace strata
