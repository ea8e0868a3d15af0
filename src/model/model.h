// Model: a loaded transformer (every architecture of model/arch_table.h, dense or
// mixture-of-experts) and its forward pass.
//
// Owns the GgufFile (weight matrices stay memory-mapped, never copied; only the small norm
// and bias vectors are converted to F32 copies) and the bound weight views.
// Immutable after Load (and fit_context), so one Model is shared by all pipeline stages and threads; all
// mutable state lives in the caller's ForwardScratch and KvView.
//
// The forward pass works on a batch of rows that may belong to different sequences; each
// row carries its sequence, position and token. Results are bit-identical per row whatever
// else is in the batch (see kernels/kernels.h, the batch-invariance contract): other rows,
// row order, K/V slot, how a prompt is chunked, and the thread count.
//
// Concurrency: forward_layers() calls on disjoint layer ranges may run at the same time
// (pipeline stages), each with its own ForwardScratch and ThreadPool, over one KvView.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "base/status.h"
#include "base/thread_pool.h"
#include "gguf/gguf_file.h"
#include "model/forward_scratch.h"
#include "model/hparams.h"
#include "model/kv_view.h"

namespace strata {

struct Row {
  int seq = 0;             // sequence id understood by the KvView (the engine's slot)
  int pos = 0;             // position in the sequence; K/V for [0, pos) must already be stored
  int32_t token = 0;
  bool want_logits = false;
};


// The K/V layout of a model with these hparams: n_head_kv heads of head_dim per layer, V the
// K row itself under Multi-head Latent Attention. Model::kv_layout and engines sizing a cache
// before they hold a model both take it from here.
KvLayout kv_layout_of(const Hparams& hp, DType kv_type, int block_tokens);

class Model {
 public:
  // The largest K/V block (tokens) the forward pass accepts; scratch is sized for it.
  static constexpr int kMaxKvBlockTokens = 256;

  // Reports loading: bytes of weight matrices prepared (read, and packed where the kernels
  // pack) so far and in all. Called from the loading threads, one call at a time, about once
  // per percent; last with done == total.
  using LoadProgress = std::function<void(uint64_t done_bytes, uint64_t total_bytes)>;

  static Result<std::unique_ptr<Model>> Load(const std::string& path, const LoadProgress& progress = {});
  static Result<std::unique_ptr<Model>> FromGguf(std::shared_ptr<const GgufFile> gguf,
                                                 const LoadProgress& progress = {});
  ~Model();

  const Hparams& hparams() const;
  const GgufFile& gguf() const;
  // Total bytes of all weight tensors.
  size_t weight_bytes() const;
  // Bytes one decode step of one token streams from memory: every weight except the rows of
  // the embedding table it does not look up and, in a mixture of experts, the experts it
  // does not route to (n_expert_used of n_expert per layer). For the bandwidth roofline.
  size_t decode_weight_bytes() const;
  // Phi-3's LongRoPE: from here on rotate with the long factors when a sequence may hold more
  // than the original context (n_ctx_per_seq > hparams().rope_orig_ctx), else the short ones,
  // as llama.cpp chooses; no effect on a model without them. Load starts with the short ones.
  // Call before any forward pass (the only change to a loaded Model): K/V written under one
  // choice is wrong under the other, so the engine keys parked K/V by uses_long_rope_factors().
  void fit_context(int n_ctx_per_seq);
  bool uses_long_rope_factors() const;
  KvLayout kv_layout(DType kv_type, int block_tokens) const { return kv_layout_of(hparams(), kv_type, block_tokens); }
  // Ok when the forward pass can use K/V storage of this layout: it matches the model, the
  // type can hold the model's heads (Q8_0 needs head_dim % 32 == 0), and blocks hold 1 to
  // kMaxKvBlockTokens tokens. Check once when creating a cache; forward passes do not re-check.
  Status check_kv_layout(const KvLayout& layout) const;

  // Working memory for one caller (one per pipeline stage; see forward_scratch.h): batches of
  // up to max_rows rows at positions < max_seq_tokens, attention spread over up to
  // max_threads threads (0 = the number of cores; a larger pool still works, with the extra
  // threads idle during attention).
  std::unique_ptr<ForwardScratch> make_scratch(int max_rows, int max_seq_tokens, int max_threads = 0) const;

  // hidden[r] = embedding of rows[r].token. hidden is n_rows * hparams().hidden_width() floats
  // (Gemma 3n: the layers make the other streams from this one).
  void embed(std::span<const Row> rows, float* hidden) const;
  // Runs layers [first_layer, last_layer) on hidden (in place), storing each row's K/V at
  // its position and attending over its sequence's positions [0, pos].
  // Preconditions: rows.size() <= scratch.max_rows(), every pos < scratch.max_seq_tokens(),
  // no two rows share (seq, pos), and the K/V view holds every block the rows touch.
  void forward_layers(std::span<const Row> rows, int first_layer, int last_layer, float* hidden,
                      KvView& kv, ForwardScratch& scratch, ThreadPool& pool) const;
  // Final norm + output projection for the rows with want_logits, in row order:
  // logits is (number of such rows) * n_vocab floats. Gemma 3n: rewrites those rows' stream 0
  // with their merged streams (final_norm says why).
  void output_logits(std::span<const Row> rows, float* hidden, float* logits,
                     ForwardScratch& scratch, ThreadPool& pool) const;
  // out = the final norm of one row's hidden state (n_embd floats each): what output_logits
  // multiplies by the output matrix, and a last-token embedding. Gemma 3n's streams are merged
  // first: output_logits leaves each wanted row's merged state where stream 0 was (hidden +
  // r * n_embd), so final_norm of that row gives the vector its logits come from.
  void final_norm(const float* hidden, float* out) const;
  // embed + all layers + output_logits. hidden comes from scratch.
  void forward(std::span<const Row> rows, KvView& kv, float* logits, ForwardScratch& scratch,
               ThreadPool& pool) const;

 private:
  struct Impl;
  explicit Model(std::unique_ptr<Impl> impl);
  // Gemma 4 E2B / E4B: adds the layer's per-layer input block to hidden (model/per_layer_input.cc).
  void add_per_layer_input(std::span<const Row> rows, int layer, float* hidden, ForwardScratch& s,
                           ThreadPool& pool) const;
  // The layer's per-layer input block of rows whose gate reads gate_in (n_embd per row): its
  // RMS-normed output in s.proj(). Uses s.normed() and the ple buffers.
  void per_layer_block(std::span<const Row> rows, int layer, const float* gate_in, ForwardScratch& s,
                       ThreadPool& pool) const;
  // Gemma 3n's AltUp (model/altup.cc). hidden holds hp.n_altup streams of the rows, stream k of
  // row r at (k * n_rows + r) * n_embd; stream 0 is what embed() writes.
  // Streams 1.. from stream 0, before the first layer.
  void altup_expand(std::span<const Row> rows, float* hidden, ForwardScratch& s, ThreadPool& pool) const;
  // The layer's predictions of every stream into s.altup_pred(), stream 0's also into
  // s.altup_active(), which the layer then runs on.
  void altup_predict(std::span<const Row> rows, int layer, const float* hidden, ForwardScratch& s,
                     ThreadPool& pool) const;
  // The laurel branch of the layer's attention input s.normed() into s.laurel().
  void laurel(int layer, int n_rows, ForwardScratch& s, ThreadPool& pool) const;
  // hidden's streams = the predictions corrected by what the layer made of stream 0
  // (s.altup_active()), plus the per-layer input block in streams 1...
  void altup_correct(std::span<const Row> rows, int layer, float* hidden, ForwardScratch& s, ThreadPool& pool) const;
  // The rows with want_logits, their streams merged into one (n_embd each, in row order) in out.
  // Uses s.altup_pred().
  int altup_merge(std::span<const Row> rows, const float* hidden, float* out, ForwardScratch& s,
                  ThreadPool& pool) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata
