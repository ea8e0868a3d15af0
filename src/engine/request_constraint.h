// RequestConstraint: one request's output constraint while it runs (response_format, a
// grammar, a forced tool call): a GrammarMatcher over the request's shared compiled grammar and
// the masker that turns the matcher's state into the tokens allowed next.
//
// allowed() is applied to the request's own logits row before sampling, and depends only on
// the request's own output so far, so a constrained request samples the same tokens alone or
// beside others. End-of-generation tokens are allowed exactly when the grammar accepts.
//
// Owned by the request's RequestState on the engine thread; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "grammar/grammar_matcher.h"
#include "grammar/token_masker.h"

namespace strata {

class Tokenizer;

// Every token's output bytes (control tokens: none) and the end-of-generation ids, in the
// trie the masker walks. Built once per engine, on the first constrained request.
std::shared_ptr<const grammar::TokenVocabulary> build_constraint_vocabulary(const Tokenizer& tokenizer);

class RequestConstraint {
 public:
  RequestConstraint(std::shared_ptr<const grammar::CompiledGrammar> grammar,
                    std::shared_ptr<const grammar::TokenVocabulary> vocab);

  // One bit per token id: the tokens that may come next. Valid until the next call.
  std::span<const uint64_t> allowed();
  // Advances past the chosen token; false when its bytes do not continue the output.
  bool accept(int32_t token);
  // The output is complete: the grammar accepts and nothing more may follow.
  bool complete() const { return matcher_.accepting() && !matcher_.can_continue(); }

 private:
  std::shared_ptr<const grammar::TokenVocabulary> vocab_;
  grammar::GrammarMatcher matcher_;
  grammar::TokenMasker masker_;
};

}  // namespace strata
