#include "engine/engine_impl.h"

#include <algorithm>
#include <string>

#include "base/clock.h"
#include "base/log.h"
#include "engine/model_fingerprint.h"

namespace strata {

Result<std::unique_ptr<Engine>> Engine::Create(const EngineOptions& options) { return EngineImpl::Create(options); }

namespace {

// Embeddings pool the last token's output (llama.cpp's pooling type 3). A file that asks for
// mean, CLS or rank pooling (<arch>.pooling_type 1, 2, 4: encoder models, rerankers) would get
// the wrong vector, so its embed requests are refused with this message; "" when served.
std::string pooling_error(const GgufFile& gguf, const std::string& arch) {
  const GgufValue* v = gguf.find(arch + ".pooling_type");
  if (v == nullptr) return "";
  const std::optional<uint64_t> type = v->as_uint();
  constexpr uint64_t kLast = 3;
  if (type && (*type == kLast || *type == 0)) return "";
  return "embeddings: this model's " + arch + ".pooling_type is " +
         (type ? std::to_string(*type) : std::string("not an integer")) +
         "; Strata pools the last token only (pooling type 3)";
}

}  // namespace

EngineImpl::EngineImpl(EngineConfig config, int n_vocab)
    : config_(std::move(config)), inbox_(config_.options.max_queue, config_.options.n_groups), sampler_(n_vocab) {}

EngineImpl::~EngineImpl() { shutdown(0.0); }

Result<std::unique_ptr<Engine>> EngineImpl::Create(const EngineOptions& options) {
  if (options.model_path.empty()) return Status::InvalidArgument("no model path (-m)");
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, Model::Load(options.model_path, options.load_progress));
  STRATA_ASSIGN_OR_RETURN(EngineConfig config, resolve_engine_config(options, model->hparams()));
  model->fit_context(config.options.n_ctx);
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::FromGguf(model->gguf()));
  std::unique_ptr<EngineImpl> engine(new EngineImpl(std::move(config), model->hparams().n_vocab));
  engine->model_ = std::move(model);
  engine->tokenizer_ = std::move(tokenizer);
  STRATA_RETURN_IF_ERROR(engine->start());
  return std::unique_ptr<Engine>(std::move(engine));
}

Status EngineImpl::start() {
  const EngineOptions& o = config_.options;
  const Hparams& hp = model_->hparams();
  STRATA_RETURN_IF_ERROR(model_->check_kv_layout(config_.kv_layout));
  KvCacheOptions kv;
  kv.layout = config_.kv_layout;
  kv.n_blocks = config_.n_kv_blocks;
  kv.n_window_blocks = config_.n_kv_window_blocks;
  kv.max_step_tokens = config_.max_step_tokens;
  kv.n_seqs = o.n_parallel;
  kv.max_seq_tokens = o.n_ctx;
  // Parked K/V rotated with Phi-3's long rope factors is another model's to one that uses the
  // short ones (the choice follows --ctx).
  constexpr uint64_t kLongRopeFactors = 0x9e3779b97f4a7c15ull;
  kv.model_id = model_fingerprint(model_->gguf()) ^ (model_->uses_long_rope_factors() ? kLongRopeFactors : 0);
  kv.park_dir = o.park_dir;
  kv.park_capacity_bytes = static_cast<uint64_t>(o.park_mib) << 20;
  kv.n_state_snapshots = config_.n_state_snapshots;
  STRATA_ASSIGN_OR_RETURN(kv_, KvCache::Create(kv));
  if (hp.is_hybrid()) {
    const double state_mib = static_cast<double>(config_.kv_layout.state_floats * sizeof(float)) / (1 << 20);
    STRATA_LOG_INFO("engine: {} delta-net layers: {:.1f} MiB of recurrent state per slot, {} snapshots for prefix reuse "
                    "({:.0f} MiB){}", hp.n_recurrent_layers(), state_mib, config_.n_state_snapshots,
                    state_mib * config_.n_state_snapshots,
                    o.park_dir.empty() ? "" : "; snapshots are parked beside the K/V blocks");
    if (config_.max_drafts > 0) {
      STRATA_LOG_INFO("engine: speculation keeps each slot's state as it was before its drafts ({:.0f} MiB), to "
                      "put back after a rejection", state_mib * o.n_parallel);
    }
  }
  if (hp.sparse_attn_top_k > 0 && o.n_ctx > hp.sparse_attn_top_k) {
    STRATA_LOG_WARN("engine: {}'s sparse-attention indexer keeps {} keys per row; it is not run, so rows past {} "
                    "tokens attend over all their keys (the model's own attention up to that many)",
                    hp.arch, hp.sparse_attn_top_k, hp.sparse_attn_top_k);
  }
  if (!o.spec.draft_model_path.empty() && !o.spec.drafter) {
    STRATA_ASSIGN_OR_RETURN(draft_model_, SpecDraftModel::Load(o.spec.draft_model_path, model_->gguf(), o.n_parallel,
                                                               o.n_ctx, o.n_threads));
  }

  pipeline_ = std::make_unique<StagePipeline>(*model_, *kv_, config_, [this](Window* w) { inbox_.push_window(w); });
  embedding_pooling_error_ = pooling_error(model_->gguf(), hp.arch);
  if (hp.is_moe()) {
    expert_load_ = ExpertLoadWindow(hp.n_layer, hp.n_expert);
    snapshot_.moe.n_layer = hp.n_layer;
    snapshot_.moe.n_expert = hp.n_expert;
    snapshot_.moe.n_expert_used = hp.n_expert_used;
    snapshot_.moe.window_s = ExpertLoadWindow::kSpan_s;
  }
  slots_.resize(o.n_parallel);
  for (int s = 0; s < o.n_parallel; ++s) slots_[s].group = config_.group_of(s);
  if (config_.kv_layout.state_floats > 0 && config_.max_drafts > 0) {
    spec_states_ = AlignedBuffer(static_cast<size_t>(o.n_parallel) * config_.kv_layout.state_floats * sizeof(float));
  }
  step_accepted_per_pos_.assign(config_.max_drafts, 0);
  accepted_per_pos_total_.assign(config_.max_drafts, 0);
  snapshot_.spec_max_draft_tokens = config_.max_drafts;
  work_.resize(static_cast<size_t>(pipeline_->max_window_slots()));
  ready_.reserve(static_cast<size_t>(o.n_groups));
  candidates_.resize(o.n_parallel);
  incoming_.reserve(o.max_queue);

  snapshot_.model_name = model_->gguf().get_string("general.name").value_or(o.model_path);
  snapshot_.arch = hp.arch;
  snapshot_.n_ctx = o.n_ctx;
  snapshot_.n_parallel = o.n_parallel;
  snapshot_.n_groups = o.n_groups;
  snapshot_.n_stages = o.n_stages;
  snapshot_.joined_groups = config_.join_groups;
  snapshot_.n_threads = o.n_threads;
  snapshot_.slots.resize(o.n_parallel);
  snapshot_.kv.dtype = o.kv_type;
  publish_snapshot();
  const char* windows = config_.join_groups ? " (joined windows)" : (o.n_groups > 1 ? " (pipelined)" : "");
  STRATA_LOG_INFO("engine: {} slots in {} groups{}, {} stages, {} threads, context {}, K/V {} x {} tokens ({} MiB {})",
                  o.n_parallel, o.n_groups, windows, o.n_stages, o.n_threads, o.n_ctx, config_.n_kv_blocks,
                  o.kv_block_tokens, (static_cast<uint64_t>(config_.n_kv_blocks) * config_.kv_block_bytes) >> 20, o.kv_type);
  if (config_.n_kv_window_blocks > 0) {
    const KvLayout& L = config_.kv_layout;
    STRATA_LOG_INFO("engine: {} {} layers keep {} {} tokens' K/V: {} x {} tokens ({} MiB)", L.n_windowed_layers,
                    L.window_chunked ? "chunked-attention" : "sliding-window", L.window_chunked ? "their chunk of" : "the last",
                    L.window_tokens, config_.n_kv_window_blocks, o.kv_block_tokens,
                    (static_cast<uint64_t>(config_.n_kv_window_blocks) * config_.kv_window_block_bytes) >> 20);
  }
  if (config_.max_drafts > 0) {
    STRATA_LOG_INFO("engine: speculative decoding by {}, up to {} draft tokens per slot and step",
                    draft_model_ ? "draft model " + o.spec.draft_model_path
                                 : (o.spec.drafter ? std::string("a custom drafter") : std::string("n-gram lookup")),
                    config_.max_drafts);
  }
  thread_ = std::thread([this] { run(); });
  return Status::Ok();
}

Result<RequestId> EngineImpl::submit(GenerateRequest request, RequestCallback callback) {
  if (!accepting_.load()) return Status::Cancelled("the engine is shutting down");
  const EngineOptions& o = config_.options;
  const int n_prompt = static_cast<int>(request.prompt_tokens.size());
  if (n_prompt == 0) return Status::InvalidArgument("the prompt is empty");
  if (request.embed) {
    if (!embedding_pooling_error_.empty()) return Status::Unsupported(embedding_pooling_error_);
    request.max_tokens = 0;
    request.sampling = SamplingParams{};
    request.constraint = nullptr;
    request.speculative_tokens = 0;
  } else if (request.max_tokens < 1) {
    return Status::InvalidArgument("max_tokens must be at least 1, got " + std::to_string(request.max_tokens));
  }
  const int n_vocab = model_->hparams().n_vocab;
  for (int i = 0; i < n_prompt; ++i) {
    int32_t t = request.prompt_tokens[i];
    if (t < 0 || t >= n_vocab) {
      return Status::InvalidArgument("prompt token " + std::to_string(i) + " is id " + std::to_string(t) +
                                     ", outside the vocabulary of " + std::to_string(n_vocab));
    }
  }
  STRATA_RETURN_IF_ERROR(validate_sampling(request.sampling, n_vocab));
  const long long total = static_cast<long long>(n_prompt) + request.max_tokens;
  if (total > o.n_ctx) {
    return Status::OutOfRange("prompt of " + std::to_string(n_prompt) + " tokens + max_tokens " +
                              std::to_string(request.max_tokens) + " = " + std::to_string(total) +
                              " exceeds the context of " + std::to_string(o.n_ctx) + " tokens");
  }
  if (kv_->blocks_for_tokens(static_cast<int>(total)) > kv_->n_blocks()) {
    return Status::OutOfRange("prompt of " + std::to_string(n_prompt) + " tokens + max_tokens " +
                              std::to_string(request.max_tokens) + " needs more K/V blocks than the pool's " +
                              std::to_string(kv_->n_blocks()) + " (raise --kv-cache-mib)");
  }
  PendingRequest p;
  p.id = next_id_.fetch_add(1);
  p.request = std::move(request);
  p.callback = std::move(callback);
  p.arrival_s = now_s();
  RequestId id = p.id;
  if (!inbox_.push_request(std::move(p))) {
    if (!accepting_.load()) return Status::Cancelled("the engine is shutting down");
    return Status::ResourceExhausted("the request queue is full (--max-queue " + std::to_string(o.max_queue) + ")");
  }
  return id;
}

void EngineImpl::cancel(RequestId id) { inbox_.push_cancel(id); }

void EngineImpl::park_idle() {
  if (!thread_.joinable()) return;
  inbox_.wait_parked(inbox_.push_park());
}

EngineSnapshot EngineImpl::snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  EngineSnapshot snap = snapshot_;
  if (expert_load_.n_cells() > 0) {
    // Advanced to now, so an idle engine's window empties as its minute passes.
    expert_load_.advance(now_s());
    snap.moe.tokens.assign(expert_load_.totals().begin(), expert_load_.totals().end());
    snap.moe.routed_tokens_total = expert_load_.recorded_total();
  }
  return snap;
}

void EngineImpl::shutdown(double timeout_s) {
  accepting_.store(false);
  stop_deadline_s_.store(monotonic_s() + std::max(0.0, timeout_s));
  inbox_.stop();
  if (thread_.joinable()) thread_.join();
  pipeline_.reset();
}

}  // namespace strata
