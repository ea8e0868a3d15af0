#include "engine/spec_draft_model.h"

#include <algorithm>

#include "gguf/gguf_file.h"
#include "kernels/kernels.h"
#include "tensor/dtype.h"

namespace strata {

namespace {
constexpr const char* kTokensKey = "tokenizer.ggml.tokens";
constexpr int kDraftMaxRows = 64;  // rows per catch-up pass; a longer prompt takes several
}  // namespace

Status check_same_vocabulary(const GgufFile& target, const GgufFile& draft) {
  const GgufValue* a = target.get_array(kTokensKey);
  const GgufValue* b = draft.get_array(kTokensKey);
  if (a == nullptr || b == nullptr) {
    return Status::InvalidArgument(std::string("--model-draft: ") + (a ? "the draft model" : "the model") + " has no " +
                                   kTokensKey);
  }
  if (a->array_size() != b->array_size()) {
    return Status::InvalidArgument("--model-draft: the draft model's vocabulary has " +
                                   std::to_string(b->array_size()) + " tokens, the model's " +
                                   std::to_string(a->array_size()));
  }
  for (size_t i = 0; i < a->array_size(); ++i) {
    const std::string* x = a->string_at(i);
    const std::string* y = b->string_at(i);
    if (x == nullptr || y == nullptr || *x != *y) {
      return Status::InvalidArgument("--model-draft: token " + std::to_string(i) + " differs between the model ('" +
                                     (x ? *x : std::string("?")) + "') and the draft model ('" +
                                     (y ? *y : std::string("?")) + "')");
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<SpecDraftModel>> SpecDraftModel::Load(const std::string& path, const GgufFile& target,
                                                             int n_seqs, int max_seq_tokens, int n_threads) {
  std::unique_ptr<SpecDraftModel> d(new SpecDraftModel());
  STRATA_ASSIGN_OR_RETURN(d->model_, Model::Load(path));
  d->model_->fit_context(max_seq_tokens);
  if (d->model_->hparams().is_hybrid()) {
    // draft() rewinds a sequence to its common prefix, which a recurrent state cannot do.
    return Status::InvalidArgument("--model-draft: a " + d->model_->hparams().arch +
                                   " draft model is not supported (its delta-net layers cannot rewind)");
  }
  STRATA_RETURN_IF_ERROR(check_same_vocabulary(target, d->model_->gguf()));
  d->max_rows_ = kDraftMaxRows;
  d->max_seq_tokens_ = max_seq_tokens;
  d->pool_ = std::make_unique<ThreadPool>(std::max(1, n_threads));
  d->scratch_ = d->model_->make_scratch(d->max_rows_, max_seq_tokens, d->pool_->size());
  const KvLayout layout = d->model_->kv_layout(DType::kF16, 16);
  STRATA_RETURN_IF_ERROR(d->model_->check_kv_layout(layout));
  STRATA_ASSIGN_OR_RETURN(d->kv_, ContiguousKv::Create(layout, n_seqs, max_seq_tokens));
  d->cached_.resize(static_cast<size_t>(n_seqs));
  for (auto& c : d->cached_) c.reserve(static_cast<size_t>(max_seq_tokens));
  d->rows_.reserve(static_cast<size_t>(d->max_rows_));
  d->logits_.resize(static_cast<size_t>(d->model_->hparams().n_vocab));
  return d;
}

void SpecDraftModel::reset(int seq) { cached_[static_cast<size_t>(seq)].clear(); }

int32_t SpecDraftModel::feed(int seq, std::span<const int32_t> tokens, int from, int to) {
  for (int start = from; start < to; start += max_rows_) {
    const int end = std::min(to, start + max_rows_);
    rows_.clear();
    for (int p = start; p < end; ++p) rows_.push_back(Row{seq, p, tokens[static_cast<size_t>(p)], p == to - 1});
    model_->forward(rows_, *kv_, logits_.data(), *scratch_, *pool_);
  }
  return kernels::argmax(logits_.data(), static_cast<int>(logits_.size()));
}

int SpecDraftModel::draft(int seq, std::span<const int32_t> tokens, std::span<int32_t> out) {
  std::vector<int32_t>& cached = cached_[static_cast<size_t>(seq)];
  const int len = static_cast<int>(tokens.size());
  // Each guess needs a row at the position before it: the last guess's row is the last
  // position this sequence's K/V may hold.
  const int room = std::min(static_cast<int>(out.size()), max_seq_tokens_ - len + 1);
  if (room <= 0 || len == 0) return 0;
  // Keep the K/V of the common prefix; the last token is always fed again for its logits.
  const size_t common = std::mismatch(cached.begin(), cached.end(), tokens.begin(), tokens.end()).first - cached.begin();
  const int keep = std::min(static_cast<int>(common), len - 1);
  cached.assign(tokens.begin(), tokens.end());
  int32_t next = feed(seq, tokens, keep, len);
  for (int i = 0; i < room; ++i) {
    out[static_cast<size_t>(i)] = next;
    if (i + 1 == room) break;
    cached.push_back(next);
    next = feed(seq, cached, static_cast<int>(cached.size()) - 1, static_cast<int>(cached.size()));
  }
  return room;
}

}  // namespace strata
