// The recurrent layers' tensors of a plan (plan_builder.h): Qwen3.5's gated delta-net, Mamba-2
// (Granite 4.0-H, Nemotron-H, Falcon-H1), LFM2's short convolution and Kimi Delta Attention (Ling
// 3.0, Kimi Linear), and the Falcon-H1 and Nemotron-H blocks built from them.
#include <string>

#include "modelgen/plan_builder.h"

namespace strata {

// Qwen3.5's gated delta-net layer (tensor_plan.h). ssm_conv1d is planned as a matrix of rows
// conv_kernel wide, one per channel, so its taps get a matrix's spread (std 1/sqrt(taps)) and
// mix_type() leaves it F32. qwen3next holds attn_qkv and attn_gate as one ssm_in, ssm_beta and
// ssm_alpha as one ssm_ba (their rows interleaved per key head, which random rows do not show).
void PlanBuilder::delta_net(const std::string& p) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const auto v_heads = static_cast<uint64_t>(s.ssm_n_v_heads);
  const auto value_dim = v_heads * s.ssm_head_v_dim;
  const auto channels = 2 * static_cast<uint64_t>(s.ssm_n_k_heads) * s.ssm_head_k_dim + value_dim;
  vector(p + "attn_norm.weight", embd, WeightKind::kNorm);
  const bool grouped = s.arch == "qwen3next";
  if (grouped) {
    matrix(p + "ssm_in.weight", {embd, channels + value_dim});
  } else {
    matrix(p + "attn_qkv.weight", {embd, channels});
    matrix(p + "attn_gate.weight", {embd, value_dim});
  }
  matrix(p + "ssm_conv1d.weight", {static_cast<uint64_t>(s.ssm_conv_kernel), channels});
  vector(p + "ssm_dt.bias", v_heads, WeightKind::kSsmDtBias);
  vector(p + "ssm_a", v_heads, WeightKind::kSsmA);
  if (grouped) {
    matrix(p + "ssm_ba.weight", {embd, 2 * v_heads});
  } else {
    matrix(p + "ssm_beta.weight", {embd, v_heads});
    matrix(p + "ssm_alpha.weight", {embd, v_heads});
  }
  vector(p + "ssm_norm.weight", static_cast<uint64_t>(s.ssm_head_v_dim), WeightKind::kNorm);
  matrix(p + "ssm_out.weight", {value_dim, embd});
}

// Granite 4.0-H's Mamba-2 layer (model_spec.h): ssm_in's rows are z, then the convolution's
// channels (x, B, C), then dt per head; ssm_conv1d is planned as delta_net()'s is. ssm_a holds
// -exp(A_log) and ssm_d the skip weights, both {1, heads}; ssm_norm one row per group.
// Falcon-H1's layer writes the norm itself (own_norm false), before the mixer and attention both.
void PlanBuilder::mamba2(const std::string& p, bool own_norm) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const auto heads = static_cast<uint64_t>(s.ssm_n_v_heads);
  const auto groups = static_cast<uint64_t>(s.ssm_n_k_heads);
  const auto inner = heads * s.ssm_head_v_dim;
  const auto channels = inner + 2 * groups * s.ssm_head_k_dim;
  if (own_norm) vector(p + "attn_norm.weight", embd, WeightKind::kNorm);
  matrix(p + "ssm_in.weight", {embd, inner + channels + heads});
  matrix(p + "ssm_conv1d.weight", {static_cast<uint64_t>(s.ssm_conv_kernel), channels});
  vector(p + "ssm_conv1d.bias", channels, WeightKind::kBias);
  vector(p + "ssm_dt.bias", heads, WeightKind::kMamba2DtBias);
  vectors(p + "ssm_a", {1, heads}, WeightKind::kMamba2A);
  vectors(p + "ssm_d", {1, heads}, WeightKind::kMamba2D);
  vectors(p + "ssm_norm.weight", {inner / groups, groups}, WeightKind::kNorm);
  matrix(p + "ssm_out.weight", {inner, embd});
}

// LFM2's gated short convolution (model_spec.h): in_proj's rows B, C and x, n_embd each; the taps
// planned as delta_net()'s ssm_conv1d is (rows l_cache wide, one per channel: F32, as llama.cpp
// never quantizes them); out_proj.
void PlanBuilder::short_conv(const std::string& p) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  vector(p + "attn_norm.weight", embd, WeightKind::kNorm);
  matrix(p + "shortconv.in_proj.weight", {embd, 3 * embd});
  matrix(p + "shortconv.conv.weight", {static_cast<uint64_t>(s.ssm_conv_kernel), embd});
  matrix(p + "shortconv.out_proj.weight", {embd, embd});
}

// Kimi Delta Attention (model_spec.h: ModelSpec::kda), as ik_llama.cpp reads Ling 3.0's layers and
// llama.cpp's converter writes Kimi Linear's: q, k and v, each with its own convolution of taps per
// channel ([taps, 1, channels], planned as delta_net()'s ssm_conv1d is: F32, as llama.cpp never
// quantizes it); the decay and output-gate inputs, one matrix each (Ling's ssm_f_a, ssm_g_a) or through
// kda_rank (Kimi's ssm_f_a then ssm_f_b, ssm_g_a then ssm_g_b); beta per head; the rates ssm_a {1,
// heads}, Ling's positive (it takes sigmoid(a (f + bias))), Kimi's -exp(A_log); a bias per channel, the
// norm of a head, the output.
void PlanBuilder::kda(const std::string& p) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const auto heads = static_cast<uint64_t>(s.n_head);
  const auto head = static_cast<uint64_t>(s.ssm_head_v_dim);
  const auto values = heads * head;
  vector(p + "attn_norm.weight", embd, WeightKind::kNorm);
  for (const char* part : {"q", "k", "v"}) matrix(p + "attn_" + part + ".weight", {embd, values});
  for (const char* part : {"q", "k", "v"}) {
    matrix(p + "ssm_conv1d_" + part + ".weight", {static_cast<uint64_t>(s.ssm_conv_kernel), 1, values});
  }
  for (const char* input : {"ssm_f", "ssm_g"}) {
    if (s.kda_rank == 0) {
      matrix(p + input + "_a.weight", {embd, values});
      continue;
    }
    const auto rank = static_cast<uint64_t>(s.kda_rank);
    matrix(p + input + "_a.weight", {embd, rank});
    matrix(p + input + "_b.weight", {rank, values});
  }
  matrix(p + "ssm_beta.weight", {embd, heads});
  vectors(p + "ssm_a", {1, heads}, s.arch == "kimi-linear" ? WeightKind::kSsmA : WeightKind::kKdaRate);
  vector(p + "ssm_dt.bias", values, WeightKind::kSsmDtBias);
  vector(p + "ssm_norm.weight", head, WeightKind::kNorm);
  matrix(p + "attn_output.weight", {values, embd});
}

// Falcon-H1's layer (model_spec.h): one norm before the Mamba-2 mixer and attention beside it, then the
// feed-forward norm without ".weight", as llama.cpp's loader names it, and the feed-forward.
void PlanBuilder::falcon_h1_block(const std::string& p, int l) {
  vector(p + "attn_norm.weight", static_cast<uint64_t>(s.n_embd), WeightKind::kNorm);
  mamba2(p, /*own_norm=*/false);
  attention(p, l);
  vector(p + "ffn_norm", static_cast<uint64_t>(s.n_embd), WeightKind::kNorm);
  dense_ffn(p, l);
}

// Nemotron-H's layer l (model_spec.h), of its kind under its one norm: a Mamba-2 mixer, attention,
// a feed-forward without a gate, or experts and a shared expert without gates, whose router has
// sigmoid routing's selection bias.
void PlanBuilder::nemotron_h_block(const std::string& p, int l) {
  const auto embd = static_cast<uint64_t>(s.n_embd);
  const char kind = nemotron_layer_kind(s, l);
  if (kind == 'M') {  // mamba2() and attention() write the attn_norm
    mamba2(p);
    return;
  }
  if (kind == '*') {
    attention(p, l);
    return;
  }
  vector(p + "attn_norm.weight", embd, WeightKind::kNorm);
  if (kind == '-') {
    const auto ff = static_cast<uint64_t>(s.n_ff);
    matrix(p + "ffn_up.weight", {embd, ff});
    matrix(p + "ffn_down.weight", {ff, embd});
    return;
  }
  const auto ff = static_cast<uint64_t>(s.n_ff_exp);
  const auto n_exp = static_cast<uint64_t>(s.n_expert);
  const auto sh = static_cast<uint64_t>(s.n_ff_shexp);
  matrix(p + "ffn_gate_inp.weight", {embd, n_exp});
  vector(p + "exp_probs_b.bias", n_exp, WeightKind::kSelectionBias);
  matrix(p + "ffn_up_exps.weight", {embd, ff, n_exp});
  matrix(p + "ffn_down_exps.weight", {ff, embd, n_exp});
  matrix(p + "ffn_up_shexp.weight", {embd, sh});
  matrix(p + "ffn_down_shexp.weight", {sh, embd});
}

}  // namespace strata
