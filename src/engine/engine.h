// Engine: turns many concurrent generation requests into windows of rows for the model.
//
// Owns the model, the K/V block pool (prefix cache + park store), the request queue, the
// slots and the engine thread(s). One engine thread owns scheduler, K/V and model state;
// other threads (HTTP handlers, tests) talk to it only through submit()/cancel()/snapshot(),
// which are thread-safe. Two engines can live in one process.
//
// Exactness: a request's tokens and logits are bit-identical whatever else runs beside it,
// in any slot, with any number of stages/groups, from the prefix cache or parked K/V.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "base/env.h"
#include "base/status.h"
#include "engine/engine_types.h"

namespace strata {

class Tokenizer;

// Speculative decoding (--spec): a drafter guesses a generating slot's next tokens, and one
// window verifies them all. The token at each position is still drawn from the target
// model's own logits with the (seed, position) stream, and a draft is accepted only when it
// equals that token, so the output is the same bits as without speculation.
struct SpecOptions {
  std::string method;          // "" = off, "ngram" = prompt lookup over the request's tokens,
                               // "draft" = a draft model (draft_model_path; the default with one)
  std::string draft_model_path;  // --model-draft: same vocabulary as the model, its own K/V
  int max_draft_tokens = 4;    // --spec-tokens: the most tokens one slot drafts per step
  int ngram_min = 1;           // --spec-ngram-min / --spec-ngram-max: suffix lengths looked up
  int ngram_max = 3;
  // Bench hook (the replay drafter of `strata bench --spec`): when set it replaces the
  // method's drafter. Called on the engine thread with (request id, the request's tokens so
  // far, room for at most out.size() drafts); returns how many it wrote.
  std::function<int(uint64_t, std::span<const int32_t>, std::span<int32_t>)> drafter;
  bool enabled() const { return !method.empty() || !draft_model_path.empty() || drafter != nullptr; }
};

struct EngineOptions {
  std::string model_path;
  int n_parallel = 4;           // --parallel: request slots
  int n_ctx = 0;                // per-slot context; 0 = min(model's trained context, 4096)
  int max_queue = 64;           // --max-queue
  int prefill_chunk = 256;      // --prefill-chunk: prompt rows per step, all reading slots together
  int n_stages = 1;             // --stages
  int n_groups = 0;             // --batch-groups; 0 = auto (largest G <= stages dividing parallel)
  // --join-groups: each engine step puts every group's rows into one window that runs all
  // stages' layers on all cores, so the weights are read once for all of them, instead of one
  // window per group flowing through the stages. Stages on CPU cores share one memory bus,
  // which makes joined windows faster at every load measured (README, Performance); false
  // keeps the groups pipelined (stages with their own memory; tests of the pipeline). The
  // outputs are the same bits either way.
  bool join_groups = true;
  int n_threads = 0;            // 0 = all cores
  int kv_block_tokens = 16;     // --kv-block
  int kv_cache_mib = 0;         // 0 = n_ctx * n_parallel worth of blocks (+ prefix-cache room)
  // --state-cache-mib: hybrid models' recurrent-state snapshots (kvcache/state_cache.h), which
  // let a request resume from a cached prefix; -1 = three per slot, 0 = none (no prefix reuse
  // for hybrid models). No effect on other models.
  int state_cache_mib = -1;
  std::string kv_type = "f16";  // f16 | f32 | q8_0
  std::string park_dir;         // empty = no parking
  int park_mib = 1024;
  EngineObserver* observer = nullptr;  // not owned; must outlive the engine
  // The clock request, window and snapshot times come from (its target must outlive the engine);
  // shutdown's deadline is always the machine's, since it bounds a real wait.
  Env env;
  // Called while Create() loads the model: (bytes of weights prepared, total), about once per
  // percent, from the loading threads one call at a time. Empty = silent.
  std::function<void(uint64_t, uint64_t)> load_progress;
  // Test hook (exactness tests, batch-test): called on the engine thread with every raw
  // logits row a request samples from: (request id, index of the token being chosen,
  // n_vocab floats, valid only during the call). Empty = off.
  std::function<void(uint64_t, int, std::span<const float>)> logits_tap;
  SpecOptions spec;
};

using RequestId = uint64_t;
// Called on the engine thread for each event; must not block or call into the engine.
using RequestCallback = std::function<void(const RequestEvent&)>;

class Engine {
 public:
  // Loads the model and starts the engine thread(s). Bad options give kInvalidArgument
  // naming the option (e.g. "--batch-groups 3 does not divide --parallel 4").
  static Result<std::unique_ptr<Engine>> Create(const EngineOptions& options);
  virtual ~Engine() = default;

  // Queues a request. Errors (returned, no callback): kOutOfRange when prompt + max_tokens
  // exceeds the context, kResourceExhausted when the queue is full, kInvalidArgument for
  // an empty prompt or a bad field. An embed request (GenerateRequest::embed) is kUnsupported
  // for a model whose <arch>.pooling_type asks for another pooling than the last token's.
  virtual Result<RequestId> submit(GenerateRequest request, RequestCallback callback) = 0;
  // Stops a queued or running request; its callback gets kDone with FinishReason::kAbort
  // and its slot is free at the next step. Unknown ids are ignored.
  virtual void cancel(RequestId id) = 0;
  // Moves the cached K/V of finished conversations to the park store (see kvcache): blocks
  // the store lacks are written, then all are freed from memory; a later request with the
  // same prefix restores them. Blocks still used by running requests stay. Returns when done.
  // No-op without --park-dir.
  virtual void park_idle() = 0;

  virtual EngineSnapshot snapshot() const = 0;
  // The model's vocabulary, for token-level facts (end-of-generation ids, token bytes). The
  // engine knows no chat template: turning messages into tokens is the caller's (chat/chat_prompt.h).
  virtual const Tokenizer& tokenizer() const = 0;
  virtual const EngineOptions& options() const = 0;

  // Stops admitting, waits up to timeout_s for running requests, aborts the rest, joins threads.
  virtual void shutdown(double timeout_s) = 0;
};

}  // namespace strata
