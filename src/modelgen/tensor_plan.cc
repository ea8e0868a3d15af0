#include "modelgen/tensor_plan.h"

#include "gguf/file_type.h"
#include "modelgen/plan_builder.h"
#include "modelgen/spec_checks.h"
#include "modelgen/type_mix.h"
#include "tensor/quantize.h"

namespace strata {

namespace {

// What llama.cpp's quantizer reads of s's file. It counts every block, NextN ones too
// (hparams.n_layer = block_count), and n_gqa is its hparams.n_gqa(): layer 0's head_count /
// head_count_kv as the file gives them, 0 where a Mamba-2 hybrid's head_count_kv is 0 in layer 0 (a
// Mamba-2 or short-convolution layer; Qwen3.5's one head_count_kv stands for every layer). Granite
// 4.0-H's, Nemotron-H's and LFM2's attn_v are numbered among their attending layers
// (MixModel::attn_v_layers), Ling 3.0's and Kimi Linear's among their KDA layers (the only ones with
// an attn_v: the latent layers' attn_kv_b / attn_v_b are not named so), Nemotron-H's ffn_down among
// its feed-forward layers (MixModel::ffn_down_layers; LFM2's every layer has one).
MixModel mix_model_of(const ModelSpec& s) {
  MixModel m;
  m.n_layer = block_count(s);
  m.n_expert = s.n_expert;
  const bool kv_heads_per_layer = s.mamba2 || s.nemotron_h || s.lfm2 || s.kda;
  m.n_gqa = kv_heads_per_layer && !layer_attends(s, 0) ? 0 : s.n_head / head_count_kv(s);
  m.has_output = !s.tied_embeddings;
  m.full_attn_interval = s.full_attn_interval;
  for (int l = 0; kv_heads_per_layer && l < s.n_layer; ++l) {
    if (layer_attends(s, l) != s.kda) m.attn_v_layers.push_back(l);
  }
  const std::string kinds = nemotron_layer_pattern(s);
  for (size_t l = 0; l < kinds.size(); ++l) {
    if (kinds[l] == '-' || kinds[l] == 'E') m.ffn_down_layers.push_back(static_cast<int>(l));
  }
  return m;
}

// The requested type, or the one the mix (a file type, 0 for none) gives this tensor
// (type_mix.h). Routers stay F32 in every file (llama.cpp never quantizes ffn_gate_inp).
DType mix_type(DType requested, uint32_t mix, const std::string& name, uint64_t n_in, const MixModel& model) {
  if (!is_quantizable_tensor(name, 2)) return DType::kF32;
  if (mix == 0) return requested;
  return mix_tensor_type(mix, model, name, n_in);
}

PlannedTensor planned_tensor(const std::string& name, std::vector<uint64_t> dims, WeightKind kind, DType type) {
  return PlannedTensor{.name = name, .dims = std::move(dims), .kind = kind, .type = type};
}

// dims = {n_in, n_out} or, for experts, {n_in, n_out, n_expert}: rows are n_in wide either way.
void add_matrix(TensorPlan* plan, const MixModel& model, DType requested, uint32_t mix, const std::string& name,
                std::vector<uint64_t> dims, WeightKind kind) {
  const uint64_t n_in = dims[0];
  PlannedTensor t = planned_tensor(name, std::move(dims), kind, mix_type(requested, mix, name, n_in, model));
  const DType wanted = t.type;
  t.type = width_fallback(wanted, n_in);
  if (t.type != wanted) {
    t.fallback = "width " + std::to_string(n_in) + " is not whole " + std::string(dtype_name(wanted)) +
                 " blocks of " + std::to_string(dtype_info(wanted).block_size);
  }
  plan->tensors.push_back(std::move(t));
}

void add_vector(TensorPlan* plan, const std::string& name, uint64_t n, WeightKind kind) {
  plan->tensors.push_back(planned_tensor(name, {n}, kind, DType::kF32));
}

}  // namespace

void PlanBuilder::matrix(const std::string& name, std::vector<uint64_t> dims, WeightKind kind) {
  if (s.bitnet && kind == WeightKind::kMatrix) kind = WeightKind::kTernary;  // BitNet's, token_embd's not
  add_matrix(plan, model, type, mix, name, std::move(dims), kind);
}

void PlanBuilder::vector(const std::string& name, uint64_t n, WeightKind kind) { add_vector(plan, name, n, kind); }

void PlanBuilder::vectors(const std::string& name, std::vector<uint64_t> dims, WeightKind kind) {
  plan->tensors.push_back(planned_tensor(name, std::move(dims), kind, DType::kF32));
}

// deepseek2's split attn_kv_b: attn_k_b [qk_nope, kv_lora_rank, n_head] (each head's key rows
// transposed) and attn_v_b [kv_lora_rank, v_head_dim, n_head], drawn from kv_b's values.
void PlanBuilder::split_kv_b(const std::string& p, uint64_t nope, uint64_t kv_lora, uint64_t v, uint64_t n_head) {
  const std::string source = p + "attn_kv_b.weight";
  matrix(p + "attn_k_b.weight", {nope, kv_lora, n_head}, WeightKind::kKvBKeys);
  matrix(p + "attn_v_b.weight", {kv_lora, v, n_head}, WeightKind::kKvBValues);
  for (size_t i = plan->tensors.size() - 2; i < plan->tensors.size(); ++i) {
    plan->tensors[i].source = source;
    plan->tensors[i].source_head_rows = nope + v;
  }
}

// deepseek2's Multi-head Latent Attention (tensor_plan.h).
void PlanBuilder::mla_attention(const std::string& p) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const auto n_head = static_cast<uint64_t>(s.n_head);
  const auto key = static_cast<uint64_t>(s.head_dim);
  const auto rope = static_cast<uint64_t>(s.rope_dim);
  const auto kv_lora = static_cast<uint64_t>(s.kv_lora_rank);
  const auto v = static_cast<uint64_t>(s.v_head_dim);
  vector(p + "attn_norm.weight", embd, WeightKind::kNorm);
  if (s.q_lora_rank > 0) {
    const auto q_lora = static_cast<uint64_t>(s.q_lora_rank);
    matrix(p + "attn_q_a.weight", {embd, q_lora});
    vector(p + "attn_q_a_norm.weight", q_lora, WeightKind::kNorm);
    matrix(p + "attn_q_b.weight", {q_lora, n_head * key});
  } else {
    matrix(p + "attn_q.weight", {embd, n_head * key});
  }
  matrix(p + "attn_kv_a_mqa.weight", {embd, kv_lora + rope});
  vector(p + "attn_kv_a_norm.weight", kv_lora, WeightKind::kNorm);
  if (s.split_kv_b) {
    split_kv_b(p, key - rope, kv_lora, v, n_head);
  } else {
    matrix(p + "attn_kv_b.weight", {kv_lora, n_head * (key - rope + v)});
  }
  matrix(p + "attn_output.weight", {n_head * v, embd});
  if (s.glm_dsa) dsa_indexer(p);
  if (s.arch == "bailingmoe3") matrix(p + "attn_gate.weight", {embd, n_head});  // Ling 3.0's gate per head
}

// GLM-5's sparse-attention indexer (model_spec.h): its queries from the query latent, its keys
// and their layer norm, and a weight per head.
void PlanBuilder::dsa_indexer(const std::string& p) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const auto heads = static_cast<uint64_t>(s.indexer_n_head);
  const auto head = static_cast<uint64_t>(s.indexer_head_dim);
  matrix(p + "indexer.attn_q_b.weight", {static_cast<uint64_t>(s.q_lora_rank), heads * head});
  matrix(p + "indexer.attn_k.weight", {embd, head});
  vector(p + "indexer.k_norm.weight", head, WeightKind::kNorm);
  vector(p + "indexer.k_norm.bias", head, WeightKind::kBias);
  matrix(p + "indexer.proj.weight", {embd, heads});
}

void PlanBuilder::attention(const std::string& p, int l) {
  if (s.deepseek2) {
    mla_attention(p);
    return;
  }
  const auto embd = static_cast<uint64_t>(s.n_embd);
  // Gemma 4's full layers have heads of their own.
  const bool full_heads = s.gemma4 && !gemma4_layer_slides(s, l);
  const auto head = static_cast<uint64_t>(full_heads ? s.head_dim_full : s.head_dim);
  const auto heads = static_cast<uint64_t>(step35_layer_heads(s, l));  // Step 3.5's sliding layers have more
  const auto q_dim = heads * head;
  const auto kv_dim = static_cast<uint64_t>(layer_kv_heads(s, l)) * head;
  // MiMo-V2's value heads are narrower than its key heads.
  const auto v_head = static_cast<uint64_t>(s.mimo2 ? s.v_head_dim : head);
  const auto v_dim = static_cast<uint64_t>(layer_kv_heads(s, l)) * v_head;
  // OLMo 2 and EXAONE 4.0 norm only after it; Falcon-H1's one norm is falcon_h1_block()'s.
  if (!s.olmo2 && !s.exaone4 && !s.falcon_h1) vector(p + "attn_norm.weight", embd, WeightKind::kNorm);
  if (s.phi3) {
    matrix(p + "attn_qkv.weight", {embd, q_dim + 2 * kv_dim});
  } else {
    // Qwen3.5's attn_q holds each head's output gate after its q.
    matrix(p + "attn_q.weight", {embd, (s.full_attn_interval > 0 ? 2 : 1) * q_dim});
    // Gemma 4's full layers take v from k; its shared layers read an earlier layer's K/V.
    const bool own_kv = !(s.gemma4 && gemma4_layer_shares_kv(s, l));
    if (own_kv) matrix(p + "attn_k.weight", {embd, kv_dim});
    if (own_kv && !full_heads) matrix(p + "attn_v.weight", {embd, v_dim});
  }
  if (s.qkv_bias) {
    vector(p + "attn_q.bias", q_dim, WeightKind::kBias);
    vector(p + "attn_k.bias", kv_dim, WeightKind::kBias);
    vector(p + "attn_v.bias", kv_dim, WeightKind::kBias);
  }
  if (s.qk_norm) {  // MiniMax-M2, OLMo 2 and OLMoE norm each whole row
    const WeightKind q_norm = s.gemma4 || s.gemma3n ? WeightKind::kUnscaledQNorm : WeightKind::kNorm;
    const bool whole_rows = s.minimax_m2 || s.olmo2 || s.arch == "olmoe";
    vector(p + "attn_q_norm.weight", whole_rows ? q_dim : head, q_norm);
    if (!(s.gemma4 && gemma4_layer_shares_kv(s, l))) {
      vector(p + "attn_k_norm.weight", whole_rows ? kv_dim : head, WeightKind::kNorm);
    }
  }
  matrix(p + "attn_output.weight", {heads * v_head, embd});
  if (s.bitnet) vector(p + "attn_sub_norm.weight", heads * v_head, WeightKind::kNorm);  // before attn_output
  if (s.step35 || s.laguna) matrix(p + "attn_gate.weight", {embd, heads});
  if (s.gpt_oss) vector(p + "attn_output.bias", embd, WeightKind::kOssBias);
  if (s.gpt_oss || (s.mimo2 && mimo2_layer_slides(l))) {  // MiMo-V2's sliding layers only
    vector(p + "attn_sinks.weight", static_cast<uint64_t>(s.n_head), WeightKind::kSink);
  }
  if (s.post_norms) vector(p + "post_attention_norm.weight", embd, WeightKind::kNorm);
  if (s.gemma4) vector(p + "layer_output_scale.weight", 1, WeightKind::kLayerScale);
  if (s.n_embd_per_layer > 0) {  // Gemma 4 E2B / E4B's and Gemma 3n's per-layer input block
    const auto per_layer = static_cast<uint64_t>(s.n_embd_per_layer);
    matrix(p + "inp_gate.weight", {embd, per_layer});
    matrix(p + "proj.weight", {per_layer, embd});
    vector(p + "post_norm.weight", embd, WeightKind::kNorm);
  }
}

// Gemma 3n's AltUp router and coefficient maps (F32 rows of a few numbers, drawn to their own
// scales: model_generator.h) and its laurel branch, which llama.cpp's quantizer keeps as they are
// (is_quantizable_tensor()), so F32 here.
void PlanBuilder::altup_layer(const std::string& p) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const auto a = static_cast<uint64_t>(kGemma3nAltupStreams);
  const auto rank = static_cast<uint64_t>(s.laurel_rank);
  vectors(p + "altup_correct_coef.weight", {a, a}, WeightKind::kAltupCoef);
  vector(p + "altup_correct_scale.weight", embd, WeightKind::kNorm);
  vectors(p + "altup_predict_coef.weight", {a, a * a}, WeightKind::kAltupCoef);
  vectors(p + "altup_router.weight", {embd, a}, WeightKind::kAltupRouter);
  vector(p + "altup_router_norm.weight", embd, WeightKind::kNorm);
  matrix(p + "laurel_l.weight", {embd, rank});
  matrix(p + "laurel_r.weight", {rank, embd});
  vector(p + "laurel_post_norm.weight", embd, WeightKind::kNorm);
}

void PlanBuilder::dense_ffn(const std::string& p, int l) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const auto ff = static_cast<uint64_t>(s.gemma4 ? gemma4_ffn_width(s, l) : s.n_ff);
  if (s.phi3 || s.glm4) {
    matrix(p + "ffn_up.weight", {embd, 2 * ff});
  } else {
    // Arcee's squared ReLU and Apertus's xIELU have no gate
    if (s.arch != "arcee" && s.arch != "apertus") matrix(p + "ffn_gate.weight", {embd, ff});
    matrix(p + "ffn_up.weight", {embd, ff});
  }
  matrix(p + "ffn_down.weight", {ff, embd});
  if (s.bitnet) vector(p + "ffn_sub_norm.weight", ff, WeightKind::kNorm);  // before ffn_down
}

// The router (F32, random like a matrix so routing is not uniform) with the selection bias of
// sigmoid routing (glm4moe, deepseek2, minimax-m2), the experts as 3-D tensors (expert e's rows follow
// expert e-1's), and the shared expert, whose qwen2moe 1-D gate is a row of weights too (std
// 1/sqrt(n_embd), so its sigmoid does not saturate); glm4moe's, llama4's and deepseek2's have
// no gate.
void PlanBuilder::moe_ffn(const std::string& p, int l) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const auto ff = static_cast<uint64_t>(s.n_ff_exp);
  const auto n_exp = static_cast<uint64_t>(s.n_expert);
  if (s.gemma4) {  // the dense feed-forward beside the experts, gate and up fused, scales
    dense_ffn(p, l);
    vector(p + "post_ffw_norm_1.weight", embd, WeightKind::kNorm);
    vector(p + "pre_ffw_norm_2.weight", embd, WeightKind::kNorm);
    matrix(p + "ffn_gate_inp.weight", {embd, n_exp});
    vector(p + "ffn_gate_inp.scale", embd, WeightKind::kRouterScale);
    matrix(p + "ffn_gate_up_exps.weight", {embd, 2 * ff, n_exp});
    matrix(p + "ffn_down_exps.weight", {ff, embd, n_exp});
    vector(p + "ffn_down_exps.scale", n_exp, WeightKind::kNorm);
    vector(p + "post_ffw_norm_2.weight", embd, WeightKind::kNorm);
    return;
  }
  matrix(p + "ffn_gate_inp.weight", {embd, n_exp});
  if (s.sigmoid_routing || s.ernie_moe) vector(p + "exp_probs_b.bias", n_exp, WeightKind::kSelectionBias);
  if (s.fused_gate_up_exps) {
    matrix(p + "ffn_gate_up_exps.weight", {embd, 2 * ff, n_exp});
  } else {
    matrix(p + "ffn_gate_exps.weight", {embd, ff, n_exp});
    matrix(p + "ffn_up_exps.weight", {embd, ff, n_exp});
  }
  matrix(p + "ffn_down_exps.weight", {ff, embd, n_exp});
  if (s.gpt_oss) {
    vector(p + "ffn_gate_inp.bias", n_exp, WeightKind::kOssBias);
    vectors(p + "ffn_gate_exps.bias", {ff, n_exp}, WeightKind::kOssBias);
    vectors(p + "ffn_up_exps.bias", {ff, n_exp}, WeightKind::kOssBias);
    vectors(p + "ffn_down_exps.bias", {embd, n_exp}, WeightKind::kOssBias);
  }
  if (s.n_ff_shexp == 0) return;
  const auto sh = static_cast<uint64_t>(s.n_ff_shexp);
  if (s.arch == "qwen2moe" || s.arch == "qwen35moe" || s.arch == "qwen3next") {
    vector(p + "ffn_gate_inp_shexp.weight", embd, WeightKind::kMatrix);
  }
  matrix(p + "ffn_gate_shexp.weight", {embd, sh});
  matrix(p + "ffn_up_shexp.weight", {embd, sh});
  matrix(p + "ffn_down_shexp.weight", {sh, embd});
}

// glm4moe's NextN block: the projection of [embedding norm, hidden norm] back to n_embd, and
// its norms. Its embed_tokens and shared_head_head are token_embd and output, not written.
void PlanBuilder::nextn(const std::string& p) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  matrix(p + "nextn.eh_proj.weight", {2 * embd, embd});
  vector(p + "nextn.enorm.weight", embd, WeightKind::kNorm);
  vector(p + "nextn.hnorm.weight", embd, WeightKind::kNorm);
  vector(p + "nextn.shared_head_norm.weight", embd, WeightKind::kNorm);
}

// Nemotron's layer l (model_spec.h): attention of its kind, a feed-forward of its width.
void PlanBuilder::deci_block(const std::string& p, int l) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  if (deci_layer_kv_heads(s, l) > 0) {
    attention(p, l);
  } else if (deci_layer_heads(s, l) > 0) {
    vector(p + "attn_norm.weight", embd, WeightKind::kNorm);
    matrix(p + "attn_output.weight", {embd, embd});
  }
  const auto ff = static_cast<uint64_t>(deci_ffn_width(s, l));
  if (ff == 0) return;
  vector(p + "ffn_norm.weight", embd, WeightKind::kNorm);
  matrix(p + "ffn_gate.weight", {embd, ff});
  matrix(p + "ffn_up.weight", {embd, ff});
  matrix(p + "ffn_down.weight", {ff, embd});
}

// Block l: attention, the feed-forward norm, a dense or MoE feed-forward, and what follows.
void PlanBuilder::block(int l) {
  const std::string p = "blk." + std::to_string(l) + ".";
  const auto embd = static_cast<uint64_t>(s.n_embd);
  if (s.deci) {
    deci_block(p, l);
    return;
  }
  if (s.nemotron_h) {
    nemotron_h_block(p, l);
    return;
  }
  if (s.falcon_h1) {
    falcon_h1_block(p, l);
    return;
  }
  if (layer_attends(s, l)) {
    attention(p, l);
  } else if (s.mamba2) {
    mamba2(p);
  } else if (s.lfm2) {
    short_conv(p);
  } else if (s.kda) {
    kda(p);
  } else {
    delta_net(p);
  }
  const bool post_attention_norm = s.gpt_oss || s.glm4moe || s.full_attn_interval > 0 || s.seed_oss;
  // Cohere's feed-forward reads the attention's norm; OLMo 2's and EXAONE 4.0's norm only after it.
  if (!s.cohere2 && !s.cohere2_moe && !s.olmo2 && !s.exaone4) {
    vector(p + (post_attention_norm ? "post_attention_norm.weight" : "ffn_norm.weight"), embd, WeightKind::kNorm);
  }
  if (s.n_expert > 0 && l >= s.n_dense_lead && (l + 1) % s.moe_layer_step == 0) {
    moe_ffn(p, l);
  } else {
    dense_ffn(p, l);
  }
  if (s.post_norms) vector(p + "post_ffw_norm.weight", embd, WeightKind::kNorm);
  if (s.gemma3n) altup_layer(p);
  if (l >= s.n_layer) nextn(p);
}

bool can_generate_type(DType type) {
  switch (type) {
    case DType::kF32: case DType::kF16: case DType::kBF16: case DType::kQ8_0: case DType::kQ4_0:
    case DType::kQ5_0: case DType::kQ4_K: case DType::kQ5_K: case DType::kQ6_K: case DType::kQ4_1:
    case DType::kQ5_1: case DType::kQ2_K: case DType::kQ3_K: case DType::kIQ4_NL: case DType::kIQ4_XS:
    case DType::kIQ3_S: case DType::kIQ3_XXS: case DType::kIQ2_XXS: case DType::kIQ2_XS: case DType::kIQ2_S:
    case DType::kIQ1_S: case DType::kIQ1_M: case DType::kMXFP4: case DType::kTQ1_0: case DType::kTQ2_0:
      return can_quantize(type);
    default:
      return false;
  }
}

Result<TensorPlan> plan_tensors(const ModelSpec& s, DType type, uint32_t mix) {
  if (!can_generate_type(type)) {
    return Status::Unsupported("mkmodel cannot write type " + std::string(dtype_name(type)));
  }
  if (mix != 0 && mix_base_type(mix) != type) {
    return Status::InvalidArgument("mix " + std::string(file_type_name(mix)) + " is not a mix of " +
                                   std::string(dtype_name(type)));
  }
  STRATA_RETURN_IF_ERROR(check_spec(s));
  TensorPlan plan;
  if (mix == 0) mix = generated_type_mix(type);
  plan.file_type = mix != 0 ? mix : file_type_for(type, false).value_or(0);
  PlanBuilder b{&plan, s, type, mix, mix_model_of(s)};
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const auto vocab = static_cast<uint64_t>(s.n_vocab);
  if (s.rope_freqs || s.gemma4 || s.step35 || s.rope_freqs_factor > 0.0f) {
    const int rotated = s.gemma4 ? s.head_dim_full : s.head_dim;  // Step 3.5's: padded to half a head
    b.vector("rope_freqs.weight", static_cast<uint64_t>(rotated / 2), WeightKind::kRopeFreqs);
  }
  b.matrix("token_embd.weight", {embd, vocab}, WeightKind::kEmbedding);
  if (s.gemma3n) {  // AltUp's streams 1.. from stream 0, and back
    const auto n_proj = static_cast<uint64_t>(kGemma3nAltupStreams - 1);
    b.matrix("altup_proj.weight", {embd, embd, n_proj});
    b.matrix("altup_unembd_proj.weight", {embd, embd, n_proj});
  }
  if (s.n_embd_per_layer > 0) {  // Gemma 4 E2B / E4B's and Gemma 3n's per-layer input tables
    const auto width = static_cast<uint64_t>(s.n_embd_per_layer) * s.n_layer;
    b.matrix("per_layer_token_embd.weight", {width, vocab}, WeightKind::kEmbedding);
    b.matrix("per_layer_model_proj.weight", {embd, width});
    b.vector("per_layer_proj_norm.weight", static_cast<uint64_t>(s.n_embd_per_layer), WeightKind::kNorm);
  }
  for (int l = 0; l < block_count(s); ++l) b.block(l);
  // LFM2's final norm is named as llama.cpp's converter names its embedding_norm.
  b.vector(s.lfm2 ? "token_embd_norm.weight" : "output_norm.weight", embd, WeightKind::kNorm);
  if (!s.tied_embeddings) b.matrix("output.weight", {embd, vocab});
  return plan;
}

}  // namespace strata
