#include "engine/engine_config.h"

#include <algorithm>
#include <string>
#include <thread>

#include "model/model.h"
#include "tensor/dtype.h"

namespace strata {

namespace {

std::string str(long long v) { return std::to_string(v); }

Status check_counts(const EngineOptions& o) {
  if (o.n_parallel < 1) return Status::InvalidArgument("--parallel " + str(o.n_parallel) + " must be at least 1");
  if (o.max_queue < 0) return Status::InvalidArgument("--max-queue " + str(o.max_queue) + " must not be negative");
  if (o.prefill_chunk < 1) return Status::InvalidArgument("--prefill-chunk " + str(o.prefill_chunk) + " must be at least 1");
  if (o.n_stages < 1) return Status::InvalidArgument("--stages " + str(o.n_stages) + " must be at least 1");
  if (o.n_groups < 0) return Status::InvalidArgument("--batch-groups " + str(o.n_groups) + " must be positive (or auto)");
  if (o.n_threads < 0) return Status::InvalidArgument("--threads " + str(o.n_threads) + " must not be negative");
  if (o.n_ctx < 0) return Status::InvalidArgument("--ctx-size " + str(o.n_ctx) + " must not be negative");
  if (o.kv_block_tokens < 1) return Status::InvalidArgument("--kv-block " + str(o.kv_block_tokens) + " must be at least 1");
  if (o.kv_cache_mib < 0) return Status::InvalidArgument("--kv-cache-mib " + str(o.kv_cache_mib) + " must not be negative");
  if (o.state_cache_mib < -1) {
    return Status::InvalidArgument("--state-cache-mib " + str(o.state_cache_mib) + " must not be negative (or -1: auto)");
  }
  if (o.park_mib < 0) return Status::InvalidArgument("--park-mib " + str(o.park_mib) + " must not be negative");
  return Status::Ok();
}

Status check_spec(const SpecOptions& s) {
  if (!s.method.empty() && s.method != "ngram" && s.method != "draft") {
    return Status::InvalidArgument("--spec " + s.method + " is not a drafter (known: ngram, draft)");
  }
  if (s.method == "draft" && s.draft_model_path.empty()) {
    return Status::InvalidArgument("--spec draft needs a draft model (--model-draft FILE)");
  }
  if (s.method == "ngram" && !s.draft_model_path.empty()) {
    return Status::InvalidArgument("--spec ngram and --model-draft are two drafters: choose one");
  }
  if (!s.enabled()) return Status::Ok();
  if (s.max_draft_tokens < 1 || s.max_draft_tokens > 32) {
    return Status::InvalidArgument("--spec-tokens " + str(s.max_draft_tokens) + " must be between 1 and 32");
  }
  if (s.ngram_min < 1 || s.ngram_max < s.ngram_min) {
    return Status::InvalidArgument("--spec-ngram-min " + str(s.ngram_min) + " / --spec-ngram-max " +
                                   str(s.ngram_max) + " must satisfy 1 <= min <= max");
  }
  return Status::Ok();
}

Result<DType> kv_dtype(const std::string& name, const Hparams& hp) {
  DType type;
  if (name == "f16") {
    type = DType::kF16;
  } else if (name == "f32") {
    type = DType::kF32;
  } else if (name == "q8_0") {
    type = DType::kQ8_0;
    for (int head_dim : {hp.head_dim, hp.head_dim_swa}) {
      if (head_dim % 32 != 0) {
        return Status::InvalidArgument("--kv-type q8_0 needs head_dim % 32 == 0, but this model's head_dim is " +
                                       str(head_dim) + " (use f16 or f32)");
      }
    }
  } else {
    return Status::InvalidArgument("--kv-type " + name + " is not one of f16, f32, q8_0");
  }
  return type;
}

std::vector<StagePlan> plan_stages(int n_stages, int n_layer, int n_threads) {
  std::vector<StagePlan> plans(n_stages);
  int layer = 0;
  for (int s = 0; s < n_stages; ++s) {
    int n = n_layer / n_stages + (s < n_layer % n_stages ? 1 : 0);
    plans[s].first_layer = layer;
    plans[s].last_layer = layer + n;
    layer += n;
    plans[s].n_threads = std::max(1, n_threads / n_stages + (s < n_threads % n_stages ? 1 : 0));
  }
  return plans;
}

}  // namespace

int auto_batch_groups(int n_parallel, int n_stages) {
  for (int g = std::min(n_stages, n_parallel); g > 1; --g) {
    if (n_parallel % g == 0) return g;
  }
  return 1;
}

Result<EngineConfig> resolve_engine_config(const EngineOptions& options, const Hparams& hp, int hardware_threads) {
  STRATA_RETURN_IF_ERROR(check_counts(options));
  STRATA_RETURN_IF_ERROR(check_spec(options.spec));
  EngineConfig c;
  c.options = options;
  EngineOptions& o = c.options;
  if (o.n_stages > hp.n_layer) {
    return Status::InvalidArgument("--stages " + str(o.n_stages) + " exceeds the model's " + str(hp.n_layer) + " layers");
  }
  if (o.n_groups == 0) o.n_groups = auto_batch_groups(o.n_parallel, o.n_stages);
  if (o.n_parallel % o.n_groups != 0) {
    return Status::InvalidArgument("--batch-groups " + str(o.n_groups) + " does not divide --parallel " + str(o.n_parallel));
  }
  c.slots_per_group = o.n_parallel / o.n_groups;
  if (o.n_ctx == 0) o.n_ctx = std::min(hp.n_ctx_train > 0 ? hp.n_ctx_train : 4096, 4096);
  if (hardware_threads <= 0) hardware_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (o.n_threads == 0) o.n_threads = hardware_threads;

  STRATA_ASSIGN_OR_RETURN(DType type, kv_dtype(o.kv_type, hp));
  c.kv_layout = kv_layout_of(hp, type, o.kv_block_tokens);
  const KvLayout& L = c.kv_layout;
  c.kv_block_bytes = L.group_bytes(0);
  c.kv_window_block_bytes = L.window_tokens > 0 ? L.group_bytes(1) : 0;
  if (c.kv_block_bytes == 0) return Status::InvalidArgument("--kv-type " + o.kv_type + " cannot hold this model's heads");
  c.max_drafts = o.spec.enabled() ? o.spec.max_draft_tokens : 0;
  c.max_step_tokens = std::max(o.prefill_chunk, 1 + c.max_drafts);

  // Every slot can fill its context, plus a quarter more (at least one context) for the
  // prefix cache to keep finished conversations; a hybrid model's cache keeps none
  // (kvcache/kv_cache.h). Sliding-window layers need only their window's blocks per slot,
  // and as many again (at least a quarter of the other layers' room) for the prefix cache,
  // which needs a conversation's last window only to resume it.
  const int blocks_per_seq = (o.n_ctx + o.kv_block_tokens - 1) / o.kv_block_tokens;
  const int room = hp.is_hybrid() ? 0 : std::max(blocks_per_seq, o.n_parallel * blocks_per_seq / 4);
  const int window_per_seq = L.window_tokens > 0 ? std::min(blocks_per_seq, L.window_step_blocks(c.max_step_tokens)) : 0;
  c.n_kv_blocks = o.n_parallel * blocks_per_seq + room;
  c.n_kv_window_blocks =
      L.window_tokens > 0 ? o.n_parallel * window_per_seq + std::max(o.n_parallel * window_per_seq, room / 4) : 0;
  if (o.kv_cache_mib > 0) {
    // The budget keeps the default's proportions, with at least every slot's window.
    const uint64_t budget = static_cast<uint64_t>(o.kv_cache_mib) << 20;
    const double default_bytes = static_cast<double>(c.n_kv_blocks) * static_cast<double>(c.kv_block_bytes) +
                                 static_cast<double>(c.n_kv_window_blocks) * static_cast<double>(c.kv_window_block_bytes);
    if (L.window_tokens > 0) {
      const double share = static_cast<double>(c.n_kv_window_blocks) * static_cast<double>(budget) / default_bytes;
      c.n_kv_window_blocks = static_cast<int>(std::clamp(share, static_cast<double>(o.n_parallel * window_per_seq),
                                                         static_cast<double>(1u << 30)));
    }
    const uint64_t window_bytes = static_cast<uint64_t>(c.n_kv_window_blocks) * c.kv_window_block_bytes;
    const uint64_t n = budget > window_bytes ? (budget - window_bytes) / c.kv_block_bytes : 0;
    if (n < 1) {
      return Status::InvalidArgument(
          "--kv-cache-mib " + str(o.kv_cache_mib) + " holds no K/V block (one block is " +
          str(static_cast<long long>(c.kv_block_bytes)) + " bytes" +
          (window_bytes > 0 ? ", after " + str(static_cast<long long>(window_bytes >> 20)) +
                                  " MiB for the sliding-window layers of every slot"
                            : std::string()) +
          ")");
    }
    c.n_kv_blocks = static_cast<int>(std::min<uint64_t>(n, 1u << 30));
  }
  if (hp.is_hybrid()) {
    const uint64_t state_bytes = c.kv_layout.state_floats * sizeof(float);
    const uint64_t n = o.state_cache_mib < 0 ? 3 * static_cast<uint64_t>(o.n_parallel)
                                             : (static_cast<uint64_t>(o.state_cache_mib) << 20) / state_bytes;
    c.n_state_snapshots = static_cast<int>(std::min<uint64_t>(n, 1u << 16));
  }
  c.join_groups = o.join_groups && o.n_groups > 1;
  // Every decode row may bring its drafts' rows.
  c.max_window_rows = (c.join_groups ? o.n_parallel : c.slots_per_group) * (1 + c.max_drafts) + o.prefill_chunk;
  c.stages = plan_stages(o.n_stages, hp.n_layer, o.n_threads);
  return c;
}

}  // namespace strata
