#include "model/model_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "base/log.h"
#include "model/recurrent_weights.h"
#include "model/weight_binder.h"

namespace strata {
namespace {

// A dense feed-forward of the layer's width: gate, up and down, or Phi-3's gate and up in one ffn_up.
void bind_dense_ffn(WeightBinder& b, const Hparams& hp, int layer, const std::string& p, LayerWeights& lw) {
  const int64_t n_ff = hp.ffn_width(layer);
  if (hp.ffn_relu_sq || hp.ffn_xielu) {  // Nemotron-H, Arcee, Apertus: no gate
    for (const char* bias : {"ffn_up.bias", "ffn_down.bias"}) {
      if (b.has(p + bias)) b.fail(Status::Unsupported(b.path() + ": tensor " + p + bias + " is not supported"));
    }
    lw.w_up = b.matrix(p + "ffn_up.weight", hp.n_embd, n_ff);
  } else if (hp.ffn_up_gate_fused) {
    const kernels::WeightMatrix gate_up = b.matrix(p + "ffn_up.weight", hp.n_embd, 2 * n_ff);
    lw.w_gate = WeightBinder::rows(gate_up, 0, n_ff);
    lw.w_up = WeightBinder::rows(gate_up, n_ff, n_ff);
  } else {
    lw.w_gate = b.matrix(p + "ffn_gate.weight", hp.n_embd, n_ff);
    lw.w_up = b.matrix(p + "ffn_up.weight", hp.n_embd, n_ff);
  }
  lw.w_down = b.matrix(p + "ffn_down.weight", n_ff, hp.n_embd);
}

// Multi-head Latent Attention's matrices (LayerWeights). Its per-head maps are views of attn_k_b
// / attn_v_b (llama.cpp's newer converter: head h's key rows transposed, its value rows), or come
// from attn_kv_b (rows of head h: nope key rows, then v value rows, each over the latent): its
// value rows as views, its key rows as F32 transposed copies (exact, as ik_llama.cpp keeps them).
void bind_mla_attention(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw) {
  const int64_t n_head = hp.n_head, rank = hp.mla_kv_rank, nope = hp.mla_nope_dim, v = hp.mla_v_dim;
  const int64_t q_head = nope + hp.n_rot;
  if (hp.mla_q_rank > 0) {
    lw.wq_a = b.matrix(p + "attn_q_a.weight", hp.n_embd, hp.mla_q_rank);
    lw.q_a_norm = b.vector(p + "attn_q_a_norm.weight", hp.mla_q_rank, true);
    lw.wq_b = b.matrix(p + "attn_q_b.weight", hp.mla_q_rank, n_head * q_head);
  } else {
    lw.wq = b.matrix(p + "attn_q.weight", hp.n_embd, n_head * q_head);
  }
  lw.wkv_a = b.matrix(p + "attn_kv_a_mqa.weight", hp.n_embd, rank + hp.n_rot);
  lw.kv_a_norm = b.vector(p + "attn_kv_a_norm.weight", rank, true);
  lw.wo = b.matrix(p + "attn_output.weight", n_head * v, hp.n_embd);
  if (!b.has(p + "attn_kv_b.weight") && b.has(p + "attn_k_b.weight")) {
    lw.k_b = b.experts(p + "attn_k_b.weight", nope, rank, n_head);
    lw.v_b = b.experts(p + "attn_v_b.weight", rank, v, n_head);
    return;
  }
  const kernels::WeightMatrix kv_b = b.matrix(p + "attn_kv_b.weight", rank, n_head * (nope + v));
  const std::vector<float> kv_b_values = b.decoded(
      p + "attn_kv_b.weight", {static_cast<uint64_t>(rank), static_cast<uint64_t>(n_head * (nope + v))}, true);
  if (!b.status().ok()) return;
  for (int64_t h = 0; h < n_head; ++h) {
    const float* k_rows = kv_b_values.data() + h * (nope + v) * rank;  // head h: nope key rows, then v value rows
    float* k_b = b.owned(static_cast<size_t>(rank * nope));
    for (int64_t c = 0; c < rank; ++c) {
      for (int64_t d = 0; d < nope; ++d) k_b[c * nope + d] = k_rows[d * rank + c];
    }
    lw.k_b.push_back({DType::kF32, k_b, rank, nope, sizeof(float) * static_cast<size_t>(nope)});
    lw.v_b.push_back(WeightBinder::rows(kv_b, h * (nope + v) + nope, v));
  }
}

// An attention layer's tensors (LayerWeights): q/k/v (separate, one attn_qkv, or latent), their
// biases and norms, the output and its bias, and the sinks.
void bind_attention(WeightBinder& b, const Hparams& hp, int layer, const std::string& p, LayerWeights& lw) {
  const AttnShape sh = hp.attn_shape(layer);
  const int64_t q_dim = sh.q_dim();
  const int64_t kv_dim = sh.kv_dim();
  if (hp.is_mla()) {
    bind_mla_attention(b, hp, p, lw);
    if (hp.kda_softplus_gate && b.has(p + "attn_gate.weight")) {  // a gate per value, not Ling's per head
      b.fail(Status::Unsupported(b.path() + ": tensor " + p + "attn_gate.weight (a gate on Kimi Linear's latent "
                                 "attention) is not supported"));
    }
  } else if (b.has(p + "attn_qkv.weight")) {
    const kernels::WeightMatrix qkv = b.matrix(p + "attn_qkv.weight", hp.n_embd, q_dim + kv_dim + sh.v_dim());
    lw.wq = WeightBinder::rows(qkv, 0, q_dim);
    lw.wk = WeightBinder::rows(qkv, q_dim, kv_dim);
    lw.wv = WeightBinder::rows(qkv, q_dim + kv_dim, sh.v_dim());
    if (hp.qkv_bias) {  // one attn_qkv.bias, laid out as the rows
      lw.bq = b.vector(p + "attn_qkv.bias", q_dim + kv_dim + sh.v_dim(), true);
      lw.bk = lw.bq == nullptr ? nullptr : lw.bq + q_dim;
      lw.bv = lw.bq == nullptr ? nullptr : lw.bq + q_dim + kv_dim;
    }
  } else {
    lw.wq = b.matrix(p + "attn_q.weight", hp.n_embd, (hp.attn_output_gate ? 2 : 1) * q_dim);
    // Gemma 4's layers that share an earlier layer's K/V have no k or v of their own; its layers
    // without attn_v use k's projection as v.
    if (hp.layer_stores_kv(layer)) {
      lw.wk = b.matrix(p + "attn_k.weight", hp.n_embd, kv_dim);
      if (!hp.v_norm || b.has(p + "attn_v.weight")) lw.wv = b.matrix(p + "attn_v.weight", hp.n_embd, sh.v_dim());
    }
    if (hp.qkv_bias) {
      lw.bq = b.vector(p + "attn_q.bias", q_dim, true);
      lw.bk = b.vector(p + "attn_k.bias", kv_dim, true);
      lw.bv = b.vector(p + "attn_v.bias", sh.v_dim(), true);
    }
  }
  if (hp.qk_norm && hp.qk_norm_per_head_gains) {
    lw.q_norm = b.vectors(p + "attn_q_norm.weight", sh.head_dim, sh.n_head, true);
    lw.k_norm = b.vectors(p + "attn_k_norm.weight", sh.head_dim, sh.n_head_kv, true);
  } else if (hp.qk_norm) {
    lw.q_norm = b.vector(p + "attn_q_norm.weight", hp.qk_norm_whole_row ? q_dim : sh.head_dim, true);
    const int64_t k_norm_width = hp.qk_norm_whole_row ? kv_dim : sh.head_dim;
    lw.k_norm = b.vector(p + "attn_k_norm.weight", k_norm_width, hp.layer_stores_kv(layer));
  }
  if (!hp.is_mla()) lw.wo = b.matrix(p + "attn_output.weight", sh.out_dim(), hp.n_embd);
  // Step 3.5's and Laguna's layers may lack the gate; Ling 3.0's latent layers all have it.
  if (hp.attn_head_gate && (hp.ssm_kda || b.has(p + "attn_gate.weight"))) lw.attn_head_gate = b.matrix(p + "attn_gate.weight", hp.n_embd, sh.n_head);
  lw.bo = b.vector(p + "attn_output.bias", hp.n_embd, false);
  // gpt-oss's layers all have sinks; MiMo-V2's sliding ones do (used whenever the file has them).
  lw.attn_sinks = b.vector(p + "attn_sinks.weight", sh.n_head, hp.attn_sinks);
}

// The experts' gate and up projections as views of one fused ffn_gate_up_exps (each expert's
// gate rows, then its up rows: Gemma 4's files, and llama.cpp's newer converter's for models
// whose checkpoints store them fused, Mistral Small 4's among them).
void bind_gate_up_exps(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw) {
  const int64_t ff = hp.n_ff_exp;
  for (const kernels::WeightMatrix& gate_up : b.experts(p + "ffn_gate_up_exps.weight", hp.n_embd, 2 * ff, hp.n_expert)) {
    lw.exp_gate.push_back(WeightBinder::rows(gate_up, 0, ff));
    lw.exp_up.push_back(WeightBinder::rows(gate_up, ff, ff));
  }
}

// Gemma 4's MoE layer (Hparams::moe_beside_dense): its dense feed-forward, the norms around both
// parts, the router and its input scale, the experts from the fused gate/up tensor, and their
// output scales.
void bind_moe_beside_dense(WeightBinder& b, const Hparams& hp, int layer, const std::string& p, LayerWeights& lw) {
  bind_dense_ffn(b, hp, layer, p, lw);
  lw.ffn_post_norm_1 = b.vector(p + "post_ffw_norm_1.weight", hp.n_embd, true);
  lw.ffn_pre_norm_2 = b.vector(p + "pre_ffw_norm_2.weight", hp.n_embd, true);
  lw.ffn_post_norm_2 = b.vector(p + "post_ffw_norm_2.weight", hp.n_embd, true);
  lw.router = b.matrix(p + "ffn_gate_inp.weight", hp.n_embd, hp.n_expert);
  if (const float* scale = b.vector(p + "ffn_gate_inp.scale", hp.n_embd, true); scale != nullptr) {
    float* folded = b.owned(static_cast<size_t>(hp.n_embd));
    const float root = 1.0f / std::sqrt(static_cast<float>(hp.n_embd));
    for (int i = 0; i < hp.n_embd; ++i) folded[i] = scale[i] * root;
    lw.router_in_scale = folded;
  }
  bind_gate_up_exps(b, hp, p, lw);
  lw.exp_down = b.experts(p + "ffn_down_exps.weight", hp.n_ff_exp, hp.n_embd, hp.n_expert);
  lw.exp_out_scale = b.vector(p + "ffn_down_exps.scale", hp.n_expert, false);
}

// Gemma 4 E2B / E4B's per-layer input tables: per_layer_token_embd (a token's row holds every
// layer's inputs, each a whole number of the type's blocks so a layer's part is read alone),
// per_layer_model_proj (each layer's rows a view of their own) and per_layer_proj_norm.
void bind_per_layer_inputs(WeightBinder& b, const Hparams& hp, ModelWeights& w) {
  const int64_t per_layer = hp.n_embd_per_layer;
  w.ple_token_embd = b.matrix("per_layer_token_embd.weight", per_layer * hp.n_layer, hp.n_vocab);
  const kernels::WeightMatrix proj = b.matrix("per_layer_model_proj.weight", hp.n_embd, per_layer * hp.n_layer);
  w.ple_proj_norm = b.vector("per_layer_proj_norm.weight", per_layer, true);
  if (!b.status().ok()) return;
  if (!dtype_row_bytes(w.ple_token_embd.type, static_cast<uint64_t>(per_layer))) {
    b.fail(Status::Unsupported(b.path() + ": tensor per_layer_token_embd.weight's type " +
                               std::string(dtype_name(w.ple_token_embd.type)) + " does not split into layers of " +
                               std::to_string(per_layer) + " values"));
    return;
  }
  for (int l = 0; l < hp.n_layer; ++l) {
    w.layers[static_cast<size_t>(l)].ple_model_proj = WeightBinder::rows(proj, l * per_layer, per_layer);
  }
}

// Gemma 3n's AltUp and laurel tensors of one layer (LayerWeights::Altup).
void bind_altup_layer(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw) {
  const int64_t n = hp.n_embd, a = hp.n_altup;
  LayerWeights::Altup& u = lw.altup;
  u.router_norm = b.vector(p + "altup_router_norm.weight", n, true);
  u.router = b.matrix(p + "altup_router.weight", n, a);
  u.predict_coef = b.matrix(p + "altup_predict_coef.weight", a, a * a);
  u.correct_coef = b.matrix(p + "altup_correct_coef.weight", a, a);
  u.correct_scale = b.vector(p + "altup_correct_scale.weight", n, true);
  u.laurel_l = b.matrix(p + "laurel_l.weight", n, hp.laurel_rank);
  u.laurel_r = b.matrix(p + "laurel_r.weight", hp.laurel_rank, n);
  u.laurel_post_norm = b.vector(p + "laurel_post_norm.weight", n, true);
}

// BitNet's sub-norms and the one-number scales of its matrices (LayerWeights::scales), each scale
// optional, as llama.cpp reads them.
void bind_bitnet_extras(WeightBinder& b, const Hparams& hp, int layer, const std::string& p, LayerWeights& lw) {
  lw.attn_sub_norm = b.vector(p + "attn_sub_norm.weight", hp.attn_shape(layer).q_dim(), true);
  lw.ffn_sub_norm = b.vector(p + "ffn_sub_norm.weight", hp.ffn_width(layer), true);
  LayerWeights::OutputScales& s = lw.scales;
  const std::pair<const char*, float*> scales[] = {{"attn_q", &s.q},   {"attn_k", &s.k},   {"attn_v", &s.v},
                                                   {"attn_output", &s.o}, {"ffn_gate", &s.gate}, {"ffn_up", &s.up},
                                                   {"ffn_down", &s.down}};
  for (const auto& [name, value] : scales) {
    if (const float* v = b.vector(p + name + ".scale", 1, false); v != nullptr) *value = *v;
  }
}

LayerWeights bind_layer(WeightBinder& b, const Hparams& hp, int layer) {
  const std::string p = "blk." + std::to_string(layer) + ".";
  LayerWeights lw;
  // Nemotron's layers without attention have no attn_norm; its "linear" ones only attn_output.
  const AttnKind kind = hp.attn_kind(layer);
  // OLMo 2's have no pre-norms at all (the blocks read the layer's input; norm_row copies it).
  if (kind != AttnKind::kNone && hp.pre_norms) lw.attn_norm = b.vector(p + "attn_norm.weight", hp.n_embd, true);
  if (hp.ssm_parallel_attention) {  // Falcon-H1: both mixers
    bind_mamba2(b, hp, p, lw);
    bind_attention(b, hp, layer, p, lw);
  } else if (hp.layer_is_recurrent(layer) && hp.ssm_short_conv) {
    bind_short_conv(b, hp, p, lw);
  } else if (hp.layer_is_recurrent(layer) && hp.ssm_mamba2) {
    bind_mamba2(b, hp, p, lw);
  } else if (hp.layer_is_recurrent(layer) && hp.ssm_kda) {
    bind_kda(b, hp, p, lw);
  } else if (hp.layer_is_recurrent(layer)) {
    bind_delta_net(b, hp, p, lw);
  } else if (kind == AttnKind::kLinear) {
    lw.wo = b.matrix(p + "attn_output.weight", hp.n_embd, hp.n_embd);
  } else if (kind == AttnKind::kAttention) {
    bind_attention(b, hp, layer, p, lw);
  }
  lw.out_scale = b.vector(p + "layer_output_scale.weight", 1, false);
  if (!hp.layer_has_ffn(layer)) return lw;  // Nemotron's layers without a feed-forward
  // Cohere's parallel blocks feed the feed-forward the attention's norm: no ffn_norm.
  if (!hp.parallel_block && hp.pre_norms) {
    lw.ffn_norm = b.vector(p + hp.ffn_norm_name + hp.ffn_norm_suffix, hp.n_embd, true);
  }
  if (hp.post_norms) {
    lw.attn_post_norm = b.vector(p + "post_attention_norm.weight", hp.n_embd, true);
    lw.ffn_post_norm = b.vector(p + "post_ffw_norm.weight", hp.n_embd, true);
  }
  if (hp.n_embd_per_layer > 0) {  // Gemma 4 E2B / E4B's per-layer inputs
    lw.ple_gate = b.matrix(p + "inp_gate.weight", hp.n_embd, hp.n_embd_per_layer);
    lw.ple_proj = b.matrix(p + "proj.weight", hp.n_embd_per_layer, hp.n_embd);
    lw.ple_post_norm = b.vector(p + "post_norm.weight", hp.n_embd, true);
  }
  if (hp.n_altup > 1) bind_altup_layer(b, hp, p, lw);
  if (!hp.layer_is_moe(layer)) {
    bind_dense_ffn(b, hp, layer, p, lw);
    if (hp.sub_norms) bind_bitnet_extras(b, hp, layer, p, lw);
    return lw;
  }
  if (hp.moe_beside_dense) {
    bind_moe_beside_dense(b, hp, layer, p, lw);
    return lw;
  }
  lw.router = b.matrix(p + "ffn_gate_inp.weight", hp.n_embd, hp.n_expert);
  if (hp.ffn_relu_sq) {  // Nemotron 3: experts without a gate
    if (b.has(p + "ffn_latent_down.weight")) {
      b.fail(Status::Unsupported(b.path() + ": tensor " + p +
                                 "ffn_latent_down.weight (experts in a latent space) is not supported"));
    }
    lw.exp_up = b.experts(p + "ffn_up_exps.weight", hp.n_embd, hp.n_ff_exp, hp.n_expert);
  } else if (b.has(p + "ffn_gate_up_exps.weight") && !b.has(p + "ffn_gate_exps.weight")) {
    if (b.has(p + "ffn_gate_up_exps.bias")) {
      b.fail(Status::Unsupported(b.path() + ": tensor " + p + "ffn_gate_up_exps.bias (fused expert biases) is not supported"));
    }
    bind_gate_up_exps(b, hp, p, lw);
  } else {
    lw.exp_gate = b.experts(p + "ffn_gate_exps.weight", hp.n_embd, hp.n_ff_exp, hp.n_expert);
    lw.exp_up = b.experts(p + "ffn_up_exps.weight", hp.n_embd, hp.n_ff_exp, hp.n_expert);
  }
  lw.exp_down = b.experts(p + "ffn_down_exps.weight", hp.n_ff_exp, hp.n_embd, hp.n_expert);
  lw.router_b = b.vector(p + "ffn_gate_inp.bias", hp.n_expert, false);
  lw.exp_probs_b = b.vector(p + "exp_probs_b.bias", hp.n_expert, false);
  // Expert biases come as a set: a file with one has all three.
  const bool exp_biases = b.has(p + "ffn_gate_exps.bias");
  lw.exp_gate_b = b.vectors(p + "ffn_gate_exps.bias", hp.n_ff_exp, hp.n_expert, exp_biases);
  lw.exp_up_b = b.vectors(p + "ffn_up_exps.bias", hp.n_ff_exp, hp.n_expert, exp_biases);
  lw.exp_down_b = b.vectors(p + "ffn_down_exps.bias", hp.n_embd, hp.n_expert, exp_biases);
  if (hp.n_ff_shexp > 0) {
    if (!hp.ffn_relu_sq) lw.shexp_gate = b.matrix(p + "ffn_gate_shexp.weight", hp.n_embd, hp.n_ff_shexp);
    lw.shexp_up = b.matrix(p + "ffn_up_shexp.weight", hp.n_embd, hp.n_ff_shexp);
    lw.shexp_down = b.matrix(p + "ffn_down_shexp.weight", hp.n_ff_shexp, hp.n_embd);
    if (hp.shexp_gated) lw.shexp_gate_inp = b.row_vector(p + "ffn_gate_inp_shexp.weight", hp.n_embd);
  }
  return lw;
}

// N of a "blk.N." tensor name; -1 for the others.
int block_index(const std::string& name) {
  if (!name.starts_with("blk.")) return -1;
  int n = 0;
  size_t i = 4;
  for (; i < name.size() && i < 14 && name[i] >= '0' && name[i] <= '9'; ++i) n = n * 10 + (name[i] - '0');
  return i > 4 && i < name.size() && name[i] == '.' ? n : -1;
}

size_t weight_matrix_bytes(const kernels::WeightMatrix& m) { return static_cast<size_t>(m.n_out) * m.row_bytes; }

// Names, once each, the weight types of the file that matmul runs on the scalar reference
// rows: exact, but far slower than the types with SIMD kernels.
void log_reference_kernel_types(const GgufFile& gguf) {
  std::vector<DType> seen;
  for (const GgufTensor& t : gguf.tensors()) {
    if (!kernels::matmul_supports(t.type) || kernels::matmul_has_simd_kernel(t.type)) continue;
    if (std::find(seen.begin(), seen.end(), t.type) != seen.end()) continue;
    seen.push_back(t.type);
    STRATA_LOG_INFO("{}: reference kernels (no SIMD kernel yet)", dtype_name(t.type));
  }
}

}  // namespace

Result<ModelWeights> bind_weights(const GgufFile& gguf, const Hparams& hp) {
  ModelWeights w;
  WeightBinder b(gguf, &w);
  w.token_embd = b.matrix("token_embd.weight", hp.n_embd, hp.n_vocab);
  w.output_norm = b.vector(hp.output_norm_name + ".weight", hp.n_embd, true);
  w.output = hp.tied_embeddings ? w.token_embd : b.matrix("output.weight", hp.n_embd, hp.n_vocab);
  w.layers.reserve(static_cast<size_t>(hp.n_layer));
  for (int l = 0; l < hp.n_layer; ++l) w.layers.push_back(bind_layer(b, hp, l));
  if (hp.n_embd_per_layer > 0) bind_per_layer_inputs(b, hp, w);
  if (hp.n_altup > 1) {
    w.altup_proj = b.experts("altup_proj.weight", hp.n_embd, hp.n_embd, hp.n_altup - 1);
    w.altup_unembd = b.experts("altup_unembd_proj.weight", hp.n_embd, hp.n_embd, hp.n_altup - 1);
  }
  if (hp.qk_l2_norm) {
    w.owned.push_back(std::make_unique<float[]>(static_cast<size_t>(hp.head_dim)));
    std::fill_n(w.owned.back().get(), hp.head_dim, 1.0f);
    for (int l = 0; l < hp.n_layer; ++l) {
      if (hp.layer_rotates(l)) w.layers[static_cast<size_t>(l)].qk_unit_norm = w.owned.back().get();
    }
  }
  if (hp.v_norm) {
    // Ones for every layer's heads (the widest).
    const int width = std::max(hp.head_dim, hp.head_dim_swa);
    float* ones = b.owned(static_cast<size_t>(width));
    std::fill_n(ones, width, 1.0f);
    for (LayerWeights& l : w.layers) l.v_unit_norm = ones;
  }
  // Step 3.5's newer files pad the factors of its half-rotated full layers with 1s to half a head.
  w.rope_freqs = b.rope_factors("rope_freqs.weight", hp.n_rot / 2, hp.rope_freqs_padded ? hp.head_dim / 2 : 0);
  w.rope_factors_short = b.rope_factors("rope_factors_short.weight", hp.n_rot / 2);
  w.rope_factors_long = b.rope_factors("rope_factors_long.weight", hp.n_rot / 2);
  STRATA_RETURN_IF_ERROR(b.status());
  if ((w.rope_factors_short == nullptr) != (w.rope_factors_long == nullptr)) {
    return Status::Corrupt(gguf.path() + ": rope_factors_short.weight and rope_factors_long.weight come as a pair; " +
                           "the file has only " + (w.rope_factors_short ? "the short" : "the long") + " one");
  }
  log_reference_kernel_types(gguf);

  // NextN blocks (GLM-4.5) and GLM-5's sparse-attention indexer: in the file, never run. MLA's key
  // maps, when the file has them only as attn_kv_b rows, are read from their F32 copies instead.
  size_t unused_bytes = 0, copied_bytes = 0;
  for (const GgufTensor& t : gguf.tensors()) {
    w.total_bytes += t.n_bytes;
    if (block_index(t.name) >= hp.n_layer || t.name.find(".indexer.") != std::string::npos) unused_bytes += t.n_bytes;
    if (t.name.ends_with(".attn_kv_b.weight") && block_index(t.name) < hp.n_layer) {
      unused_bytes += t.n_bytes / (hp.mla_nope_dim + hp.mla_v_dim) * hp.mla_nope_dim;
      copied_bytes += sizeof(float) * static_cast<size_t>(hp.n_head) * hp.mla_kv_rank * hp.mla_nope_dim;
    }
  }
  w.decode_bytes = w.total_bytes - unused_bytes + copied_bytes;
  if (!hp.tied_embeddings) w.decode_bytes -= weight_matrix_bytes(w.token_embd);
  w.decode_bytes -= weight_matrix_bytes(w.ple_token_embd);  // one row read per token, as token_embd's
  if (hp.is_moe()) {
    // Per layer: quantisation mixes give some layers' experts a wider type.
    for (const LayerWeights& l : w.layers) {
      if (l.exp_down.empty()) continue;  // a leading dense layer
      const size_t gate = l.exp_gate.empty() ? 0 : weight_matrix_bytes(l.exp_gate[0]);  // Nemotron 3's have none
      const size_t one = gate + weight_matrix_bytes(l.exp_up[0]) + weight_matrix_bytes(l.exp_down[0]);
      w.decode_bytes -= static_cast<size_t>(hp.n_expert - hp.n_expert_used) * one;
      w.expert_bytes = std::max(w.expert_bytes, one);
    }
  }
  return w;
}

std::vector<kernels::WeightMatrix*> all_matrices(ModelWeights& w) {
  std::vector<kernels::WeightMatrix*> out = {&w.output};
  for (LayerWeights& l : w.layers) {
    for (kernels::WeightMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.attn_head_gate, &l.wq_a, &l.wq_b, &l.wkv_a, &l.w_gate, &l.w_up,
                                     &l.w_down, &l.router, &l.shexp_gate, &l.shexp_up, &l.shexp_down,
                                     &l.shexp_gate_inp, &l.ssm_qkv, &l.ssm_z, &l.ssm_beta, &l.ssm_alpha, &l.ssm_in,
                                     &l.ssm_alpha_b, &l.ssm_z_b,
                                     &l.ssm_ba, &l.ssm_out, &l.ple_model_proj, &l.ple_gate, &l.ple_proj,
                                     &l.altup.router, &l.altup.predict_coef, &l.altup.correct_coef,
                                     &l.altup.laurel_l, &l.altup.laurel_r}) {
      if (m->data != nullptr) out.push_back(m);
    }
    for (auto* experts : {&l.exp_gate, &l.exp_up, &l.exp_down, &l.k_b, &l.v_b}) {
      for (kernels::WeightMatrix& m : *experts) out.push_back(&m);
    }
  }
  for (auto* streams : {&w.altup_proj, &w.altup_unembd}) {
    for (kernels::WeightMatrix& m : *streams) out.push_back(&m);
  }
  return out;
}

std::vector<const kernels::WeightMatrix*> all_matrices(const ModelWeights& w) {
  std::vector<kernels::WeightMatrix*> mutable_list = all_matrices(const_cast<ModelWeights&>(w));
  return {mutable_list.begin(), mutable_list.end()};
}

}  // namespace strata
