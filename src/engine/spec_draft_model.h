// SpecDraftModel: the draft-model drafter of speculative decoding (--model-draft FILE): a
// smaller model with the target's vocabulary guesses each slot's next tokens greedily.
//
// It keeps its own small K/V (one contiguous sequence per slot) and remembers which tokens
// that K/V holds, so each step only feeds what changed: the tokens the target accepted since
// the last draft (rejected drafts simply fall out of the common prefix), then one row per
// further drafted token. Its guesses are only proposals the engine verifies against the
// target, so its numerics never reach the output.
//
// Owns the draft model, its K/V, scratch and thread pool. Used by the engine thread only
// (between windows); not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "model/contiguous_kv.h"
#include "model/forward_scratch.h"
#include "model/model.h"

namespace strata {

class GgufFile;

class SpecDraftModel {
 public:
  // Loads path for n_seqs slots of up to max_seq_tokens positions. kInvalidArgument when
  // its vocabulary differs from the target's (size or any token's text), naming the first
  // difference.
  static Result<std::unique_ptr<SpecDraftModel>> Load(const std::string& path, const GgufFile& target, int n_seqs,
                                                      int max_seq_tokens, int n_threads);

  // Writes up to out.size() greedy guesses of what follows `tokens` in sequence seq and
  // returns how many (fewer only at the end of the context).
  int draft(int seq, std::span<const int32_t> tokens, std::span<int32_t> out);
  // Forgets sequence seq's K/V (a new request in that slot).
  void reset(int seq);

 private:
  SpecDraftModel() = default;
  // Feeds tokens[from, to) of seq at their positions; returns the greedy next token (the
  // logits of the last row).
  int32_t feed(int seq, std::span<const int32_t> tokens, int from, int to);

  std::unique_ptr<Model> model_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<ForwardScratch> scratch_;
  std::unique_ptr<ContiguousKv> kv_;
  int max_rows_ = 0;
  int max_seq_tokens_ = 0;
  std::vector<std::vector<int32_t>> cached_;  // per seq: the tokens whose K/V is stored
  std::vector<Row> rows_;
  std::vector<float> logits_;                 // one row
};

// Ok when the two files' vocabularies are the same list of token texts.
Status check_same_vocabulary(const GgufFile& target, const GgufFile& draft);

}  // namespace strata
