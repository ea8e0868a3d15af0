// TensorPlan: the tensors of a generated model (names and shapes as llama.cpp writes them)
// and the type each is stored in. Pure functions over a ModelSpec.
//
// A MoE layer has, instead of ffn_gate/up/down, the router ffn_gate_inp [n_embd, n_expert],
// the experts ffn_{gate,up}_exps [n_embd, n_ff_exp, n_expert] and ffn_down_exps
// [n_ff_exp, n_embd, n_expert], and for qwen2moe the shared expert ffn_*_shexp with its 1-D
// gate ffn_gate_inp_shexp [n_embd]. glm4moe (GLM-4.5, as llama.cpp's converter writes it): its
// first n_dense_lead blocks dense (ffn_gate/up/down), the others MoE with the router's
// selection bias exp_probs_b.bias [n_expert] and a shared expert without a gate; every
// block's feed-forward norm is post_attention_norm; after the n_layer blocks, n_nextn NextN
// blocks (MoE blocks plus nextn.eh_proj [2 n_embd, n_embd] and nextn.{enorm,hnorm,
// shared_head_norm} [n_embd]). deepseek2 (DeepSeek-V2/V3, Kimi K2, as llama.cpp's converter writes
// it; model_spec.h): attention as attn_q [n_embd, n_head * head_dim] or, with q_lora_rank,
// attn_q_a [n_embd, q_lora_rank], attn_q_a_norm [q_lora_rank] and attn_q_b [q_lora_rank,
// n_head * head_dim]; attn_kv_a_mqa [n_embd, kv_lora_rank + rope_dim], attn_kv_a_norm
// [kv_lora_rank]; attn_kv_b [kv_lora_rank, n_head * (qk_nope + v_head_dim)], or with split_kv_b
// attn_k_b [qk_nope, kv_lora_rank, n_head] and attn_v_b [kv_lora_rank, v_head_dim, n_head]
// holding its values (head h of attn_k_b: kv_b's key rows of head h transposed; of attn_v_b:
// its value rows); attn_output [n_head * v_head_dim, n_embd]; then ffn_norm, the first
// n_dense_lead blocks dense, the others MoE with a gateless shared expert and, for sigmoid
// routing, exp_probs_b.bias. qwen35 / qwen35moe (Qwen3.5, model_spec.h): in the attending layers
// attn_q [n_embd, 2 * n_head * head_dim] (each head's q, then its output gate), attn_k, attn_v,
// attn_q_norm / attn_k_norm [head_dim], attn_output; in the delta-net layers attn_qkv [n_embd,
// 2 * k_heads * k_dim + v_heads * v_dim], attn_gate [n_embd, v_heads * v_dim], ssm_conv1d
// [conv_kernel, those qkv channels], ssm_dt.bias and ssm_a [v_heads], ssm_beta and ssm_alpha
// [n_embd, v_heads], ssm_norm [v_dim], ssm_out [v_heads * v_dim, n_embd]; then every layer's
// post_attention_norm and feed-forward (qwen35moe: experts and a shared expert with its 1-D gate).
// granitehybrid (Granite 4.0-H, model_spec.h): in the attending layers attn_q, attn_k, attn_v,
// attn_output; in the Mamba-2 layers (d_inner = heads * head_dim, channels = d_inner + 2 * groups *
// state) ssm_in [n_embd, d_inner + channels + heads], ssm_conv1d [conv_kernel, channels] and its
// bias [channels], ssm_dt.bias [heads], ssm_a and ssm_d [1, heads], ssm_norm [d_inner / groups,
// groups], ssm_out [d_inner, n_embd]; then every layer's ffn_norm and feed-forward (experts beside
// an ungated shared expert, or dense). nemotron_h / nemotron_h_moe (Nemotron-H, model_spec.h): every
// layer attn_norm [n_embd] and nothing else of its own kind's: granitehybrid's Mamba-2 tensors, its
// attention's four matrices, ffn_up [n_embd, n_ff] and ffn_down [n_ff, n_embd] (no ffn_gate), or
// ffn_gate_inp [n_embd, n_expert], exp_probs_b.bias [n_expert], ffn_up_exps and ffn_down_exps, and
// ffn_up_shexp [n_embd, n_ff_shexp] and ffn_down_shexp (no gates); output.weight unless tied. lfm2 /
// lfm2moe (LFM2, model_spec.h): in the attending layers attn_q, attn_k, attn_v, attn_q_norm and
// attn_k_norm [head_dim], attn_output; in the others shortconv.in_proj [n_embd, 3 n_embd],
// shortconv.conv [l_cache, n_embd], shortconv.out_proj [n_embd, n_embd]; then every layer's ffn_norm
// and a dense feed-forward, or lfm2moe's experts after its leading dense layers (a router with its
// selection bias, no shared expert); the final norm token_embd_norm, no output.weight (tied). olmo2 /
// exaone4 (OLMo 2 / OLMo 3, EXAONE 4.0, model_spec.h): llama's attention and feed-forward without
// attn_norm or ffn_norm, with post_attention_norm and post_ffw_norm [n_embd], attn_q_norm and
// attn_k_norm over whole rows (olmo2: [n_head * head_dim], [n_head_kv * head_dim]) or per head
// (exaone4: [head_dim]); EXAONE 4.0 32B's rope_freqs [head_dim / 2]. olmoe (OLMoE): llama's pre-norm
// layers with olmo2's whole-row QK-norm and experts in every layer (a router, no selection bias, no
// shared expert). falcon-h1 (Falcon-H1, model_spec.h): every layer attn_norm [n_embd], granitehybrid's
// Mamba-2 tensors, attn_q, attn_k, attn_v, attn_output, the feed-forward norm "blk.N.ffn_norm" [n_embd]
// (no ".weight": F32, as llama.cpp leaves a name not ending in "weight"), ffn_gate, ffn_up, ffn_down; its
// attn_v and ffn_down numbered by layer (every layer has both, as llama.cpp counts them). arcee (AFM): llama's
// tensors without ffn_gate; exaone (EXAONE 3.5): llama's, with its llama3 rope_freqs [head_dim / 2]. apertus
// (Apertus): llama's tensors with attn_q_norm and attn_k_norm [head_dim], without ffn_gate (its xIELU values
// are metadata); hunyuan-dense (Hunyuan dense): llama's with attn_q_norm and attn_k_norm [head_dim]. bitnet /
// bitnet-b1.58 (BitNet b1.58, model_spec.h): llama's tensors without output.weight (tied), each layer's
// attn_sub_norm [n_head * head_dim] after attn_output and ffn_sub_norm [n_ff] after ffn_down; no per-matrix
// .scale tensors (llama.cpp's optional ones, which the ternary values' own scale makes needless). gemma3n
// (Gemma 3n, model_spec.h): Gemma 3's layers (attn_k / attn_v / attn_k_norm in the shared layers too) with
// Gemma 4 E2B's per-layer input block and tables, and per layer altup_correct_coef [4, 4],
// altup_correct_scale [n_embd], altup_predict_coef [4, 16], altup_router [n_embd, 4], altup_router_norm
// [n_embd], laurel_l [n_embd, laurel_rank], laurel_r [laurel_rank, n_embd], laurel_post_norm [n_embd];
// altup_proj and altup_unembd_proj [n_embd, n_embd, 3]; no output.weight (tied). bailingmoe3 / kimi-linear
// (Ling 3.0, Kimi Linear, model_spec.h): deepseek2's latent attention in the '*' layers (Ling's with
// attn_gate [n_embd, n_head]); in the KDA layers (values = n_head * KDA head) attn_q, attn_k, attn_v [n_embd,
// values], ssm_conv1d_q / _k / _v [conv_kernel, 1, values], ssm_f_a and ssm_g_a [n_embd, values] (Kimi's:
// [n_embd, kda_rank] and ssm_f_b / ssm_g_b [kda_rank, values]), ssm_beta [n_embd, n_head], ssm_a [1, n_head],
// ssm_dt.bias [values], ssm_norm [KDA head], attn_output [values, n_embd]; then ffn_norm and deepseek2's
// feed-forward.
//
// Types: 1-D tensors (norms, biases, rope_freqs, the shared-expert gate, exp_probs_b, ssm_a) and routers
// are F32, and so are ssm_conv1d (KDA's ssm_conv1d_q / _k / _v too) and LFM2's shortconv.conv, which llama.cpp
// never quantizes
// (is_quantizable_tensor()), nor Gemma 3n's altup_* and laurel_* tensors or its and Gemma 4 E2B's
// per_layer_model_proj (llama.cpp keeps all of them as they are), and Mamba-2's ssm_a, ssm_d (no
// ".weight": llama.cpp leaves them) and ssm_norm;
// Mamba-2's ssm_in and ssm_out and LFM2's shortconv.in_proj and out_proj take the mix's base type
// (llama.cpp's quantizer has no rule for them), their attn_v the mix's rule numbered among the
// attending layers (type_mix.h: MixModel::attn_v_layers), and Nemotron-H's
// dense ffn_down its rule numbered among the feed-forward layers (MixModel::ffn_down_layers); the delta-net
// layers' other matrices (attn_qkv, attn_gate, ssm_beta, ssm_alpha, ssm_out) take the mix's types as
// ik_llama.cpp's quantizer gives them: attn_qkv its attn_qkv rule (Q4_K_M: Q5_K), the others the base
// type.
// The mix's layer rules count every block written, NextN ones too (as llama.cpp's quantizer).
// Matrices (a 3-D expert tensor is n_expert * n_out rows of n_in) take the requested type,
// except that K-quant and IQ4 types follow llama.cpp's mix of the same name (type_mix.h:
// Q4_K -> Q4_K_M, Q5_K -> Q5_K_M, Q3_K -> Q3_K_M, Q2_K, Q6_K, IQ4_NL, IQ4_XS: output.weight in
// Q6_K, some attn_v / ffn_down / attn_output in more bits, 8-expert models' attn_k / attn_v in
// Q8_0; the lattice i-quants likewise, IQ2_S as llama.cpp's IQ2_M), and a matrix whose width
// is not whole blocks of its type falls back as llama.cpp's quantizer does (width_fallback:
// Q2_K / Q3_K / IQ4_XS / lattice i-quants -> IQ4_NL, Q4_K -> Q5_0, Q5_K -> Q5_1,
// Q6_K -> Q8_0, else F16); `fallback` says why. MXFP4, which llama.cpp has as a mix only for
// gpt-oss's experts (MXFP4_MOE, plan_tensors' `mix`: every 3-D tensor, so deepseek2's split
// attn_k_b / attn_v_b too), puts every matrix in MXFP4, as the types without a mix of their own
// (Q4_0, Q5_0, ...) do. deepseek2's attention matrices take the base type (llama.cpp's
// quantizer has no rule for them); attn_k_b's rows (qk_nope, 128) fall back from the K-quants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "modelgen/model_spec.h"
#include "tensor/dtype.h"

namespace strata {

// kOssBias and kSink: gpt-oss's biases and attention sinks, wider than kBias so that a
// test model's output depends on them; kSelectionBias: glm4moe's and deepseek2's router bias
// (exp_probs_b), added to the sigmoid router outputs to choose experts (model_generator.h);
// kKvBKeys / kKvBValues: deepseek2's attn_k_b / attn_v_b, whose elements are those of the
// attn_kv_b they were split from (PlannedTensor::source); kSsmA / kSsmDtBias: a delta-net layer's
// ssm_a (negative: each value head's state decays) and ssm_dt.bias (model_generator.h);
// kLayerScale: Gemma 4's layer_output_scale, one number in [0.3, 0.9]; kUnscaledQNorm: Gemma 4's and 3n's
// attn_q_norm, (1 +- 0.1) / sqrt(head), so its unscaled scores are spread as 1 / sqrt(head) spreads
// the others'; kRouterScale: Gemma 4's ffn_gate_inp.scale, (1 +- 0.1) * sqrt(n_embd), so the
// router, which divides by sqrt(n_embd), reads unit-sized inputs. kMamba2A / kMamba2DtBias /
// kMamba2D: a Mamba-2 layer's ssm_a, ssm_dt.bias and ssm_d (model_generator.h). kKdaRate: Ling 3.0's KDA
// rates ssm_a, positive (Kimi Linear's are kSsmA's: -exp(A_log)). kTernary: a BitNet
// matrix, each element -s, 0 or +s for one scale s per tensor (model_generator.h). kAltupCoef /
// kAltupRouter: Gemma 3n's AltUp coefficient maps and router (model_generator.h).
enum class WeightKind {
  kMatrix, kEmbedding, kNorm, kBias, kRopeFreqs, kOssBias, kSink, kSelectionBias, kKvBKeys, kKvBValues, kSsmA,
  kSsmDtBias, kLayerScale, kUnscaledQNorm, kRouterScale, kMamba2A, kMamba2DtBias, kMamba2D, kTernary, kAltupCoef,
  kAltupRouter, kKdaRate
};

struct PlannedTensor {
  std::string name;
  std::vector<uint64_t> dims;  // dims[0] = n_in, the contiguous width; then n_out [, n_expert or n_head]
  WeightKind kind = WeightKind::kMatrix;
  DType type = DType::kF32;
  std::string fallback;  // empty unless the type was changed because the width does not fit
  // kKvBKeys / kKvBValues: the attn_kv_b whose values they hold (as the same seed would write it),
  // and its rows per head (qk_nope key rows, then v_head_dim value rows).
  std::string source;
  uint64_t source_head_rows = 0;
};

struct TensorPlan {
  std::vector<PlannedTensor> tensors;
  uint32_t file_type = 0;  // general.file_type
};

// Types --type accepts: f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 q2_k q3_k q4_k q5_k q6_k iq4_nl
// iq4_xs mxfp4 and the lattice i-quants (those with an encoder).
bool can_generate_type(DType type);
// `mix`, when not 0, is a llama.cpp file type (type_mix.h: Q4_K_S, MXFP4_MOE, ...) whose mix
// the matrices follow instead of type's own; type must be its base type (mix_base_type()).
Result<TensorPlan> plan_tensors(const ModelSpec& spec, DType type, uint32_t mix = 0);

}  // namespace strata
