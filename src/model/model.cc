#include "model/model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>

#include "model/forward_scratch.h"
#include "model/model_impl.h"

namespace strata {
namespace {

kernels::RopeParams rope_params(const Hparams& hp) {
  kernels::RopeParams p;
  p.head_dim = hp.head_dim;
  p.n_rot = hp.n_rot;
  p.neox = hp.rope_neox;
  p.freq_base = hp.rope_freq_base;
  p.freq_scale = hp.rope_freq_scale;
  p.yarn_attn_factor = hp.rope_attn_factor;
  p.yarn_beta_fast = hp.rope_yarn_beta_fast;
  p.yarn_beta_slow = hp.rope_yarn_beta_slow;
  if (hp.rope_yarn_orig_ctx > 0) {
    p.yarn_orig_ctx = hp.rope_yarn_orig_ctx;
    p.yarn_ext_factor = 1.0f;
  }
  if (hp.is_mla()) {
    // MLA rotates the last n_rot values of each query head (mla_attention.cc), and its
    // rotations keep their length: the kernel's YaRN magnitude, 1 + 0.1 ln(factor), is undone
    // (as llama.cpp does), and the attention factor goes into the score scale instead.
    p.head_dim = hp.mla_nope_dim + hp.n_rot;
    const bool yarn = hp.rope_yarn_orig_ctx > 0;
    p.yarn_attn_factor = yarn ? 1.0f / (1.0f + 0.1f * std::log(1.0f / hp.rope_freq_scale)) : 1.0f;
  }
  return p;
}

size_t largest_matmul_scratch(const ModelWeights& w, int max_rows) {
  size_t bytes = 0;
  auto consider = [&](const kernels::WeightMatrix& m) {
    bytes = std::max(bytes, kernels::matmul_scratch_bytes(m.type, m.n_in, max_rows));
  };
  for (const kernels::WeightMatrix* m : all_matrices(w)) consider(*m);
  return bytes;
}

// matmul_many() scratch of MLA's per-head maps: every head's product over max_rows rows in one
// call, each head with its own input.
size_t mla_matmul_scratch(const ModelWeights& w, int max_rows) {
  size_t bytes = 0;
  for (const LayerWeights& l : w.layers) {
    for (const std::vector<kernels::WeightMatrix>* maps : {&l.k_b, &l.v_b}) {
      std::vector<float> inputs(maps->size());  // distinct addresses: nothing is read
      std::vector<kernels::MatmulJob> jobs;
      for (size_t h = 0; h < maps->size(); ++h) jobs.push_back({&(*maps)[h], &inputs[h], max_rows, nullptr});
      bytes = std::max(bytes, kernels::matmul_many_scratch_bytes(jobs));
    }
  }
  return bytes;
}

// matmul_many() scratch of a MoE layer: the router and shared-expert products over max_rows
// rows, then the experts' over max_rows * n_expert_used gathered rows (bounded by taking
// every expert matrix's type at that many rows).
size_t moe_matmul_scratch(const ModelWeights& w, const Hparams& hp, int max_rows) {
  size_t bytes = 0;
  const int routes = max_rows * hp.n_expert_used;
  for (const LayerWeights& l : w.layers) {
    if (l.exp_down.empty()) continue;  // a leading dense layer (largest_matmul_scratch covers it)
    size_t shared = 0;
    for (const kernels::WeightMatrix* m : {&l.router, &l.shexp_gate, &l.shexp_up, &l.shexp_gate_inp}) {
      if (m->data != nullptr) shared += kernels::matmul_scratch_bytes(m->type, m->n_in, max_rows);
    }
    // Nemotron 3's experts have no gate.
    const size_t gate = l.exp_gate.empty() ? 0 : kernels::matmul_scratch_bytes(l.exp_gate[0].type, hp.n_embd, routes);
    const size_t gate_up = gate + kernels::matmul_scratch_bytes(l.exp_up[0].type, hp.n_embd, routes);
    const size_t down = kernels::matmul_scratch_bytes(l.exp_down[0].type, hp.n_ff_exp, routes);
    bytes = std::max({bytes, shared, gate_up, down});
  }
  return bytes;
}

// Kernel scratch for one attention work item (a tile of rows, one K/V head and its query heads),
// for any K/V type and any block size up to max_block_tokens.
size_t largest_attention_scratch(const Hparams& hp, int max_seq_tokens, int max_block_tokens) {
  size_t n_floats = 0;
  for (int layer = 0; layer < hp.n_layer; ++layer) {
    const AttnShape shape = hp.attn_shape(layer);
    for (DType type : {DType::kF32, DType::kF16, DType::kQ8_0}) {
      kernels::AttentionArgs a;
      a.block_tokens = max_block_tokens;
      a.n_tokens = max_seq_tokens;
      a.n_head = shape.n_head;
      a.n_head_kv = shape.n_head_kv;
      a.head_dim = shape.head_dim;
      a.kv_type = type;
      a.n_rows = largest_attention_tile_rows(hp, shape);
      n_floats = std::max(n_floats, kernels::attention_scratch_floats(a));
    }
  }
  return n_floats;
}

// A representative layer of each K/V group: the first one in it (-1 when the group is empty).
int first_layer_of_group(const KvLayout& layout, int group) {
  for (int l = 0; l < layout.n_layer; ++l) {
    if (layout.group_of(l) == group) return l;
  }
  return -1;
}

}  // namespace

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

Result<std::unique_ptr<Model>> Model::Load(const std::string& path, const LoadProgress& progress) {
  STRATA_ASSIGN_OR_RETURN(GgufFile gguf, GgufFile::Open(path));
  return FromGguf(std::make_shared<const GgufFile>(std::move(gguf)), progress);
}

Result<std::unique_ptr<Model>> Model::FromGguf(std::shared_ptr<const GgufFile> gguf, const LoadProgress& progress) {
  auto impl = std::make_unique<Impl>();
  STRATA_ASSIGN_OR_RETURN(impl->hp, read_hparams(*gguf));
  STRATA_ASSIGN_OR_RETURN(impl->w, bind_weights(*gguf, impl->hp));
  pack_weights(*gguf, impl->w, progress);
  impl->rope = rope_params(impl->hp);
  if (!impl->hp.rope_pos0_pairs.empty()) impl->rope.pos0_pairs = impl->hp.rope_pos0_pairs.data();
  impl->rope.freq_factors = impl->w.rope_freqs ? impl->w.rope_freqs : impl->w.rope_factors_short;
  impl->rope_sliding = impl->rope;
  if (impl->hp.rope_freq_base_swa > 0.0f) {
    impl->rope_sliding.freq_base = impl->hp.rope_freq_base_swa;
    impl->rope_sliding.freq_scale = 1.0f;
    impl->rope_sliding.freq_factors = nullptr;
    impl->rope_sliding.yarn_orig_ctx = 0;
    impl->rope_sliding.yarn_attn_factor = 1.0f;
  }
  if (impl->hp.head_dim_swa > 0) {  // Gemma 4's sliding heads
    impl->rope_sliding.head_dim = impl->hp.head_dim_swa;
    impl->rope_sliding.n_rot = impl->hp.n_rot_swa;
  }
  impl->gguf = std::move(gguf);
  return std::unique_ptr<Model>(new Model(std::move(impl)));
}

void Model::fit_context(int n_ctx_per_seq) {
  ModelWeights& w = impl_->w;
  if (w.rope_freqs != nullptr || w.rope_factors_long == nullptr) return;
  const bool long_context = n_ctx_per_seq > impl_->hp.rope_orig_ctx;
  impl_->rope.freq_factors = long_context ? w.rope_factors_long : w.rope_factors_short;
  if (impl_->hp.rope_freq_base_swa <= 0.0f) impl_->rope_sliding.freq_factors = impl_->rope.freq_factors;
}

bool Model::uses_long_rope_factors() const {
  return impl_->w.rope_factors_long != nullptr && impl_->rope.freq_factors == impl_->w.rope_factors_long;
}

const Hparams& Model::hparams() const { return impl_->hp; }
const GgufFile& Model::gguf() const { return *impl_->gguf; }
size_t Model::weight_bytes() const { return impl_->w.total_bytes; }
size_t Model::decode_weight_bytes() const { return impl_->w.decode_bytes; }

KvLayout kv_layout_of(const Hparams& hp, DType kv_type, int block_tokens) {
  KvLayout layout;
  layout.type = kv_type;
  layout.n_layer = hp.n_kv_layers();
  layout.n_head_kv = hp.n_head_kv;
  layout.head_dim = hp.head_dim;
  layout.block_tokens = block_tokens;
  layout.v_is_k = hp.is_mla();
  if (hp.is_hybrid()) layout.state_floats = static_cast<size_t>(hp.n_recurrent_layers()) * hp.ssm_state_floats();
  // Sliding layers beside full ones (Gemma 2 and 3, gpt-oss) keep their K/V apart, so a paged
  // cache keeps only their window; when every layer slides (Phi-3) nothing would be left in
  // group 0 to carry the prefix chain, and they stay there.
  // Llama 4's chunked layers likewise keep only their chunk's.
  const bool slides = hp.mixes_sliding_layers();
  if ((slides || hp.attn_chunk > 0) && !hp.is_hybrid()) {
    std::vector<bool> windowed(static_cast<size_t>(layout.n_layer));
    for (int l = 0; l < layout.n_layer; ++l) windowed[static_cast<size_t>(l)] = slides ? hp.layer_slides(l) : hp.layer_chunked(l);
    layout.set_windowed(slides ? hp.sliding_window : hp.attn_chunk, windowed, !slides);
  }
  // Gemma 4: group 1's heads are the sliding layers' (read_hparams requires both kinds of layer
  // when they differ, so both groups exist); group 0's the full ones'.
  if (layout.n_groups() > 1) {
    const AttnShape sliding = hp.attn_shape(first_layer_of_group(layout, 1));
    if (sliding != hp.attn_shape(first_layer_of_group(layout, 0))) {
      layout.window_n_head_kv = sliding.n_head_kv;
      layout.window_head_dim = sliding.head_dim;
    }
  }
  return layout;
}

Status Model::check_kv_layout(const KvLayout& layout) const {
  const Hparams& hp = impl_->hp;
  const KvLayout want = kv_layout_of(hp, layout.type, layout.block_tokens);
  if (layout.n_layer != want.n_layer || layout.n_head_kv != want.n_head_kv || layout.head_dim != want.head_dim ||
      layout.v_is_k != want.v_is_k || layout.state_floats != want.state_floats ||
      layout.window_tokens != want.window_tokens || layout.window_chunked != want.window_chunked ||
      layout.layer_group != want.layer_group || layout.window_n_head_kv != want.window_n_head_kv ||
      layout.window_head_dim != want.window_head_dim) {
    return Status::InvalidArgument(
        "K/V layout does not match the model's layers, K/V heads, head size, latent rows, recurrent state or "
        "sliding-window layers");
  }
  if (layout.block_tokens <= 0 || layout.block_tokens > kMaxKvBlockTokens) {
    return Status::InvalidArgument("K/V block size must be 1 to " + std::to_string(kMaxKvBlockTokens) + " tokens, got " +
                                   std::to_string(layout.block_tokens));
  }
  for (int group = 0; group < layout.n_groups(); ++group) {
    const int head_dim = layout.group_head_dim(group);
    if (!kernels::kv_type_supported(layout.type, head_dim)) {
      return Status::InvalidArgument("K/V cache type " + std::string(dtype_name(layout.type)) +
                                     " cannot hold heads of " + std::to_string(head_dim) +
                                     " values (f32 and f16 always can; q8_0 needs a multiple of 32)");
    }
    kernels::AttentionArgs a;
    a.block_tokens = layout.block_tokens;
    a.token_stride_bytes = layout.token_bytes(group);
    a.n_tokens = 0;  // shapes only: no block tables yet
    a.n_head = hp.n_head;
    a.n_head_kv = layout.group_n_head_kv(group);
    a.head_dim = head_dim;
    a.kv_type = layout.type;
    a.scale = 1.0f;
    STRATA_RETURN_IF_ERROR(kernels::check_attention_args(a));
  }
  return Status::Ok();
}

std::unique_ptr<ForwardScratch> Model::make_scratch(int max_rows, int max_seq_tokens, int max_threads) const {
  const Hparams& hp = impl_->hp;
  if (max_threads <= 0) max_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ForwardScratch::Sizes s;
  s.max_rows = max_rows;
  s.max_seq_tokens = max_seq_tokens;
  s.n_embd = hp.n_embd;
  s.q_dim = hp.max_q_dim();
  s.kv_dim = hp.max_kv_dim();
  // gate()/up() hold a dense layer's feed-forward, or a MoE layer's shared expert.
  s.n_ff = hp.n_ff_shexp;
  for (int l = 0; l < hp.n_layer; ++l) {
    if (!hp.layer_is_moe(l) || hp.moe_beside_dense) s.n_ff = std::max(s.n_ff, hp.n_ff);
  }
  // Falcon-H1's layers keep their Mamba-2 output in up() while their attention runs.
  if (hp.ssm_parallel_attention) s.n_ff = std::max(s.n_ff, hp.n_embd);
  s.router_input = hp.moe_beside_dense;
  s.per_layer_floats = hp.n_embd_per_layer;
  if (hp.n_altup > 1) {
    s.altup_streams = hp.n_altup;
    s.laurel_rank = hp.laurel_rank;
  }
  s.n_layer = hp.n_layer;
  s.n_expert = hp.n_expert;
  s.n_expert_used = hp.n_expert_used;
  s.n_ff_exp = hp.n_ff_exp;
  if (hp.is_mla()) {
    s.mla_q_floats = hp.n_head * std::max(hp.mla_nope_dim + hp.n_rot, hp.mla_v_dim);
    s.mla_a_floats = hp.mla_q_rank;
    s.mla_heads_floats = hp.n_head * std::max({hp.mla_kv_rank, hp.mla_nope_dim, hp.mla_v_dim});
  }
  if (hp.attn_output_gate) s.q_gate_floats = 2 * s.q_dim;
  if (hp.attn_head_gate) s.q_gate_floats = hp.max_n_head();  // Step 3.5: a gate value per head
  if (hp.is_hybrid()) {
    s.delta_channels = hp.ssm_conv_channels();
    s.delta_values = hp.ssm_n_v_heads * hp.ssm_head_v_dim;
    s.delta_heads = hp.ssm_n_v_heads;
    s.delta_gates = hp.ssm_kda ? s.delta_values : s.delta_heads;
    s.delta_rank = hp.kda_rank;
    // Qwen3-Next's fused inputs, Mamba-2's one ssm_in, or Ling 3.0's separate q, k and v
    s.delta_fused = hp.ssm_grouped || hp.ssm_kda;
  }
  s.matmul_bytes = largest_matmul_scratch(impl_->w, max_rows);
  if (hp.is_moe()) s.matmul_bytes = std::max(s.matmul_bytes, moe_matmul_scratch(impl_->w, hp, max_rows));
  if (hp.is_mla()) s.matmul_bytes = std::max(s.matmul_bytes, mla_matmul_scratch(impl_->w, max_rows));
  s.max_block_tokens = kMaxKvBlockTokens;
  s.attention_floats = largest_attention_scratch(hp, max_seq_tokens, s.max_block_tokens);
  s.n_attention_workers = max_threads;
  return std::make_unique<ForwardScratch>(s);
}

void Model::forward(std::span<const Row> rows, KvView& kv, float* logits, ForwardScratch& scratch,
                    ThreadPool& pool) const {
  {
    ProfileTimer timer(scratch.profile(), StepPart::kEmbed);
    embed(rows, scratch.hidden());
  }
  forward_layers(rows, 0, impl_->hp.n_layer, scratch.hidden(), kv, scratch, pool);
  output_logits(rows, scratch.hidden(), logits, scratch, pool);
}

}  // namespace strata
