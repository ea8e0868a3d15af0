#include "modelgen/tensor_plan.h"

#include "gguf/file_type.h"
#include "tensor/quantize.h"

namespace strata {

namespace {

bool is_k_mix(DType t) { return t == DType::kQ4_K || t == DType::kQ5_K; }

// llama.cpp's _M mixes give some layers' attn_v and ffn_down more bits: the first and last
// eighth of the layers and every third one between.
bool more_bits_layer(int layer, int n_layer) {
  return layer < n_layer / 8 || layer >= 7 * n_layer / 8 || (layer - n_layer / 8) % 3 == 2;
}

DType next_fallback(DType t) {
  switch (t) {
    case DType::kQ4_K: return DType::kQ5_0;
    case DType::kQ5_K: case DType::kQ6_K: return DType::kQ8_0;
    default: return DType::kF16;
  }
}

// The requested type, raised for the tensors a _M mix keeps in Q6_K.
DType mix_type(DType requested, const std::string& role, int layer, int n_layer, bool tied) {
  if (!is_k_mix(requested)) return requested;
  if (role == "output" || (role == "token_embd" && tied)) return DType::kQ6_K;
  if ((role == "attn_v" || role == "ffn_down") && more_bits_layer(layer, n_layer)) return DType::kQ6_K;
  return requested;
}

void add_matrix(TensorPlan* plan, const ModelSpec& spec, DType requested, const std::string& name,
                const std::string& role, int layer, uint64_t n_in, uint64_t n_out, WeightKind kind) {
  PlannedTensor t{name, {n_in, n_out}, kind, mix_type(requested, role, layer, spec.n_layer, spec.tied_embeddings), ""};
  DType wanted = t.type;
  while (n_in % dtype_info(t.type).block_size != 0) t.type = next_fallback(t.type);
  if (t.type != wanted) {
    t.fallback = "width " + std::to_string(n_in) + " is not whole " + std::string(dtype_name(wanted)) +
                 " blocks of " + std::to_string(dtype_info(wanted).block_size);
  }
  plan->tensors.push_back(std::move(t));
}

void add_vector(TensorPlan* plan, const std::string& name, uint64_t n, WeightKind kind) {
  plan->tensors.push_back(PlannedTensor{name, {n}, kind, DType::kF32, ""});
}

Status check_spec(const ModelSpec& s) {
  if (s.n_vocab <= 0 || s.n_embd <= 0 || s.n_layer <= 0 || s.n_head <= 0 || s.n_head_kv <= 0 || s.head_dim <= 0 ||
      s.n_ff <= 0 || s.n_ctx <= 0) {
    return Status::InvalidArgument("model shape has a non-positive size");
  }
  if (s.n_head % s.n_head_kv != 0) {
    return Status::InvalidArgument("head_count " + std::to_string(s.n_head) + " is not a multiple of head_count_kv " +
                                   std::to_string(s.n_head_kv));
  }
  if (s.head_dim % 2 != 0) return Status::InvalidArgument("head_dim must be even for rope");
  if (s.rope_freqs && s.arch != "llama") {
    return Status::InvalidArgument("rope_freqs (Llama 3.1 rope frequency factors) is for llama models, not " + s.arch);
  }
  return Status::Ok();
}

}  // namespace

bool can_generate_type(DType type) {
  switch (type) {
    case DType::kF32: case DType::kF16: case DType::kBF16: case DType::kQ8_0: case DType::kQ4_0:
    case DType::kQ5_0: case DType::kQ4_K: case DType::kQ5_K: case DType::kQ6_K:
      return can_quantize(type);
    default:
      return false;
  }
}

Result<TensorPlan> plan_tensors(const ModelSpec& s, DType type) {
  if (!can_generate_type(type)) {
    return Status::Unsupported("mkmodel cannot write type " + std::string(dtype_name(type)));
  }
  STRATA_RETURN_IF_ERROR(check_spec(s));
  TensorPlan plan;
  plan.file_type = file_type_for(type, is_k_mix(type)).value_or(0);
  auto embd = static_cast<uint64_t>(s.n_embd);
  auto q_dim = static_cast<uint64_t>(s.n_head) * s.head_dim;
  auto kv_dim = static_cast<uint64_t>(s.n_head_kv) * s.head_dim;
  auto ff = static_cast<uint64_t>(s.n_ff);
  if (s.rope_freqs) {
    add_vector(&plan, "rope_freqs.weight", static_cast<uint64_t>(s.head_dim / 2), WeightKind::kRopeFreqs);
  }
  add_matrix(&plan, s, type, "token_embd.weight", "token_embd", 0, embd, s.n_vocab, WeightKind::kEmbedding);
  for (int l = 0; l < s.n_layer; ++l) {
    std::string p = "blk." + std::to_string(l) + ".";
    add_vector(&plan, p + "attn_norm.weight", embd, WeightKind::kNorm);
    add_matrix(&plan, s, type, p + "attn_q.weight", "attn_q", l, embd, q_dim, WeightKind::kMatrix);
    add_matrix(&plan, s, type, p + "attn_k.weight", "attn_k", l, embd, kv_dim, WeightKind::kMatrix);
    add_matrix(&plan, s, type, p + "attn_v.weight", "attn_v", l, embd, kv_dim, WeightKind::kMatrix);
    if (s.qkv_bias) {
      add_vector(&plan, p + "attn_q.bias", q_dim, WeightKind::kBias);
      add_vector(&plan, p + "attn_k.bias", kv_dim, WeightKind::kBias);
      add_vector(&plan, p + "attn_v.bias", kv_dim, WeightKind::kBias);
    }
    if (s.qk_norm) {
      add_vector(&plan, p + "attn_q_norm.weight", s.head_dim, WeightKind::kNorm);
      add_vector(&plan, p + "attn_k_norm.weight", s.head_dim, WeightKind::kNorm);
    }
    add_matrix(&plan, s, type, p + "attn_output.weight", "attn_output", l, q_dim, embd, WeightKind::kMatrix);
    add_vector(&plan, p + "ffn_norm.weight", embd, WeightKind::kNorm);
    add_matrix(&plan, s, type, p + "ffn_gate.weight", "ffn_gate", l, embd, ff, WeightKind::kMatrix);
    add_matrix(&plan, s, type, p + "ffn_up.weight", "ffn_up", l, embd, ff, WeightKind::kMatrix);
    add_matrix(&plan, s, type, p + "ffn_down.weight", "ffn_down", l, ff, embd, WeightKind::kMatrix);
  }
  add_vector(&plan, "output_norm.weight", embd, WeightKind::kNorm);
  if (!s.tied_embeddings) {
    add_matrix(&plan, s, type, "output.weight", "output", 0, embd, s.n_vocab, WeightKind::kMatrix);
  }
  return plan;
}

}  // namespace strata
