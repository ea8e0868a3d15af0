// Which vocabulary tokens may come next under a grammar: the mask applied before sampling.
//
// TokenVocabulary holds every token's bytes in a trie laid out in pre-order (each node knows
// where its subtree ends), built once per model. TokenMasker walks that trie against a
// matcher's state: a node whose byte the state refuses is skipped with its whole subtree, so
// the work follows the tokens that are still possible. Tokens with no bytes (control tokens)
// are never allowed; the end-of-generation tokens are allowed exactly when the grammar accepts.
// Each step of the walk is a lookup in a MaskAutomaton over the grammar's states, built lazily
// and kept for the request. A state's mask is made from its local state's (MaskAutomaton::cut),
// computed once and shared by every context it appears in (the inside of a string in each
// field and array item), plus the few tokens that read past the local part (a string's
// closing quote and what follows), walked against the full state. Full masks are cached by
// state too, since outputs revisit states. The masks equal ReferenceTokenMasker's bit for bit
// (token_masker_exactness_test).
//
// TokenVocabulary is immutable and shared; a TokenMasker belongs to one request on one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "grammar/grammar_matcher.h"
#include "grammar/mask_automaton.h"

namespace strata::grammar {

class TokenVocabulary {
 public:
  // token_bytes[id]: the bytes token id stands for in output text ("" for control tokens).
  // end_tokens: the ids that end generation (EOS, end of turn).
  TokenVocabulary(const std::vector<std::string>& token_bytes, std::vector<int32_t> end_tokens);

  int n_vocab() const { return n_vocab_; }
  const std::vector<int32_t>& end_tokens() const { return end_tokens_; }
  const std::string& bytes(int32_t token) const { return bytes_[token]; }

  struct Node {
    uint8_t byte;
    uint16_t depth;          // 1 for a first byte
    uint32_t subtree_end;    // the index just past this node's subtree
    uint32_t token_begin;    // tokens ending here: ordered_tokens[token_begin, +token_count)
    uint32_t token_count;
  };
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<int32_t>& ordered_tokens() const { return ordered_; }
  int max_depth() const { return max_depth_; }

 private:
  int n_vocab_;
  std::vector<std::string> bytes_;
  std::vector<int32_t> end_tokens_;
  std::vector<Node> nodes_;      // nodes_[0] is the root (the empty prefix)
  std::vector<int32_t> ordered_;
  int max_depth_ = 0;
};

class TokenMasker {
 public:
  static constexpr size_t kMaxCachedMasks = 256;
  // Past this the automaton is dropped and rebuilt from the next state asked for.
  static constexpr size_t kMaxAutomatonBytes = size_t{64} << 20;

  explicit TokenMasker(std::shared_ptr<const TokenVocabulary> vocab);

  // One bit per token id (bit t of word t/64): the tokens that may follow the matcher's state.
  // Valid until the next call.
  std::span<const uint64_t> mask(const GrammarMatcher& matcher);
  // The same, without the cache of full masks (the automaton and the local masks are kept);
  // for tests and benchmarks.
  void compute(const GrammarMatcher& matcher, std::vector<uint64_t>* bits);

 private:
  // Trie nodes [begin, end) of one depth's siblings and their subtrees.
  struct NodeRange {
    uint32_t begin, end;
  };
  // A local state's mask: the tokens it accepts whatever the context, and the subtrees whose
  // tokens depend on the context (a stack returned to it before they were read).
  struct LocalMask {
    std::vector<uint64_t> bits;
    std::vector<NodeRange> undecided;
  };

  // The automaton state of the matcher's stacks, after making sure the automaton is this
  // grammar's and not over its memory bound (either resets it and the caches).
  uint32_t root_state(const GrammarMatcher& matcher);
  void compute_state(uint32_t state, std::vector<uint64_t>* bits);
  // The plain walk of the nodes in range under the state at the range's parent.
  void walk(uint32_t parent_state, NodeRange range, uint64_t* words);
  const LocalMask& local_mask(uint32_t local);
  // Adds the undecided tokens that the full state accepts.
  void resolve(uint32_t state, const std::vector<NodeRange>& undecided, uint64_t* words);

  std::shared_ptr<const TokenVocabulary> vocab_;
  std::unique_ptr<MaskAutomaton> automaton_;
  std::unordered_map<uint32_t, std::vector<uint64_t>> cache_;  // full state -> mask
  std::unordered_map<uint32_t, LocalMask> local_cache_;        // local state -> its mask
  std::vector<uint32_t> depth_states_;                           // the state after each trie depth
  std::vector<uint8_t> depth_hole_;  // a stack returned to the context at or above this depth
};

}  // namespace strata::grammar
