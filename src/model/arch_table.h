// ArchTraits: what distinguishes the supported architectures from each other. The forward
// pass is one piece of code; an architecture is only this row of data plus the
// hyper-parameters and tensors its GGUF file carries (a mixture-of-experts layer is the same
// block with a routed feed-forward variant, chosen by <arch>.expert_count). Pure data; no state.
#pragma once

#include <string_view>

namespace strata {

struct ArchTraits {
  std::string_view name;   // general.architecture
  bool rope_neox;          // rotate (x[i], x[i + d/2]) instead of adjacent pairs
  bool requires_qkv_bias;  // attn_{q,k,v}.bias must exist (they are used whenever present)
  bool requires_qk_norm;   // attn_{q,k}_norm must exist (per-head RMS-norm of q and k)
  bool requires_experts;   // <arch>.expert_count must be > 0 (qwen2moe, qwen3moe); llama may have experts (Mixtral)
  // Routing: softmax over all experts, top-k; when set, the k weights are renormalised to sum
  // to 1 (Mixtral, qwen3moe), else used as they are (qwen2moe). <arch>.expert_weights_norm
  // overrides it when the file carries that key.
  bool moe_norm_topk;
  // Gemma 3: the token embeddings are scaled by sqrt(n_embd); the attention and feed-forward
  // outputs are RMS-normed (post_attention_norm, post_ffw_norm) before their residual adds;
  // the feed-forward gate is GELU (tanh form) instead of SiLU.
  bool embed_scaled;
  bool post_norms;
  bool ffn_gelu;
  // > 0: layers attend over a sliding window of <arch>.attention.sliding_window keys, except
  // every sliding_period-th layer (l + 1 a multiple of it), which attends over all keys; the
  // sliding layers rotate with base sliding_rope_base and no scaling (Gemma 3: 6, 10000), or,
  // with 0, as the other layers do (gpt-oss: every other layer slides).
  int sliding_period;
  float sliding_rope_base;
  // gpt-oss: attention sinks (blk.N.attn_sinks.weight, a logit per query head that joins its
  // softmax as a key of value zero), the clamped SwiGLU (kernels::swiglu_oai), and the
  // feed-forward norm stored as blk.N.post_attention_norm. Its biases (attention output,
  // router, experts) are used whenever a file has them, as the q/k/v biases are.
  bool attn_sinks = false;
  bool swiglu_oai = false;
  std::string_view ffn_norm_name = "ffn_norm";
  // Phi-3 (Phi-3, 3.5, 4): every layer slides over <arch>.attention.sliding_window keys (0, as
  // Phi-4's files say, for none), and blk.N.ffn_up holds the gate's rows, then the up
  // projection's. Its attention may come as one blk.N.attn_qkv tensor (q rows, k rows, v rows),
  // which any architecture's file may use in place of attn_q/attn_k/attn_v.
  bool sliding_every_layer = false;
  bool ffn_up_gate_fused = false;
  // Gemma 2: attention scores and output logits soft-capped, cap * tanh(x / cap), with the caps
  // <arch>.attn_logit_softcapping (default 50) and <arch>.final_logit_softcapping (default 30).
  bool softcaps = false;
  // The window of files that lack <arch>.attention.sliding_window (Gemma 2's 4096, as llama.cpp
  // reads them); 0: the key is required.
  int default_sliding_window = 0;
  // The layer count of the model whose attention scale is 1 / sqrt(n_embd / n_head) instead of
  // 1 / sqrt(head_dim) (query_pre_attn_scalar, which GGUF files do not carry: Gemma 3 27B's 62
  // layers, Gemma 2 27B's 46); 0: none.
  int wide_attn_scale_layers = 0;
  // GLM-4.5 (glm4moe): the router's gate values are sigmoids (when the file lacks
  // <arch>.expert_gating_func), and the shared expert is added without a gate of its own.
  bool sigmoid_router = false;
  bool ungated_shared_expert = false;
  // Llama 4: in its layers without rope (nope_layer_step), an attention temperature (0.1 over 8192
  // positions unless <arch>.attention.temperature_scale / _length say otherwise), chunks of
  // <arch>.attention.chunk_size (8192) keys in the others, a route's weight (the sigmoid of its
  // router logit) multiplying the expert's input, a shared expert of the expert width, experts in
  // every <arch>.interleave_moe_layer_step-th layer, and q/k L2-normed after rope unless
  // <arch>.use_qk_norm is false (or, without that key, the model has 128 experts: Maverick).
  bool llama4 = false;
  // No rope in every nope_layer_step-th layer (l + 1 a multiple of it): Llama 4's and SmolLM3's
  // 4; 0: every layer rotates.
  int nope_layer_step = 0;
  // DeepSeek-V2/V3 (deepseek2): Multi-head Latent Attention (Hparams::mla_kv_rank), read from
  // <arch>.attention.kv_lora_rank, q_lora_rank, key_length(_mla), value_length(_mla) and
  // rope.scaling.yarn_log_multiplier.
  bool mla = false;
  // MiniMax-M2: q and k are RMS-normed each as one row (attn_q_norm of n_head * head_dim weights,
  // attn_k_norm of n_head_kv * head_dim) instead of head by head.
  bool qk_norm_whole_row = false;
  // Ministral 3 (mistral3): Llama's layers with, in every layer, q scaled after rope by
  // 1 + <arch>.attention.temperature_scale * ln(floor((pos + 1) / original context) + 1) when the
  // file has that key, YaRN's ramp over rope.scaling.yarn_beta_fast / _slow turns, and its
  // magnitude times mscale(factor, 1) / mscale(factor, rope.scaling.yarn_log_multiplier), as
  // llama.cpp reads these files (mscale(s, m) = 1 + 0.1 m ln s).
  bool mistral3 = false;
  // Qwen3.5 (qwen35, qwen35moe): hybrid layers (Hparams::full_attn_interval). The attention
  // layers gate their output (Hparams::attn_output_gate) and rotate NeoX-style over
  // rope.dimension_count dims (the text positions of its interleaved M-RoPE); the others are
  // gated delta-net layers read from <arch>.ssm.* and <arch>.full_attention_interval (4 when absent).
  bool gated_delta_net = false;
  // Qwen3-Next (qwen3next): Qwen3.5's hybrid layers with the delta-net projections fused per key
  // head (Hparams::ssm_grouped): ssm_in holds each key head's q, k, v and z rows in turn, ssm_ba
  // its b and a rows, and value head h reads key head h / (n_v_heads / n_k_heads).
  bool delta_net_grouped = false;
  // Multimodal rope (M-RoPE): each rotated pair reads one of a token's position components, by
  // its sector of <arch>.rope.dimension_sections (Hparams::rope_pos0_pairs). kSectioned: the
  // sectors are consecutive runs (Qwen2-VL, Qwen2.5-VL); kInterleaved: interleaved (Qwen3-VL,
  // Qwen3.5). Text is p in every component the model defines, so only a consecutive layout's
  // fourth section (none in the real files) differs from plain rope.
  enum class MRope : unsigned char { kNone, kSectioned, kInterleaved };
  MRope mrope = MRope::kNone;
  // IBM Granite (granite, granitemoe): Llama's layers (Mixtral-style experts in granitemoe) with
  // the multipliers <arch>.embedding_scale, .attention.scale, .residual_scale and .logit_scale
  // (Hparams::embd_scale, attn_scale, residual_scale, logit_scale).
  bool granite = false;
  // OpenBMB MiniCPM (minicpm, MiniCPM 1/2/4): Llama's layers with Granite's kind of multipliers,
  // each optional with MiniCPM's own when absent (embeddings times 12, each block's output times
  // 1.4 / sqrt(n_layer), logits times 256 / n_embd), as llama.cpp runs the older files that carry
  // none.
  bool minicpm = false;
  // Cohere Command R7B / Command A (cohere2): layer norms (mean taken out, no bias; eps from
  // <arch>.attention.layer_norm_epsilon) instead of RMS norms, attention and feed-forward in
  // parallel on one norm of the layer's input (no ffn_norm), a sliding window of
  // <arch>.attention.sliding_window keys in three of every four layers, the fourth without rope,
  // and the logits times <arch>.logit_scale. Command R (command-r) has these parts without the
  // window (sliding_period and nope_layer_step 0 in its row).
  bool cohere2 = false;
  // Google Gemma 4 (31B; the 26B-A4B with its experts beside the dense feed-forward), text only:
  // Gemma 3's parts with the sliding layers named per layer (attention.sliding_window_pattern),
  // their heads narrower and more numerous than the full layers' (Hparams::attn_shape), the full
  // layers rotating a quarter of their pairs (the file's rope_freqs) and taking v from k when they
  // have no attn_v, v RMS-normed, unscaled scores, each layer's output times its
  // layer_output_scale, and the logits soft-capped (model/gemma4_hparams.h).
  bool gemma4 = false;
  // Google Gemma 3n (E2B, E4B), text only: Gemma 3's attention (QK-norm, v RMS-normed, unscaled
  // scores, every 5th layer full unless attention.sliding_window_pattern says otherwise) inside
  // AltUp's streams, with a laurel branch, sparse feed-forward gates, Gemma 4 E2B's per-layer inputs
  // and shared K/V, and soft-capped logits (model/gemma3n_hparams.h, model/altup.cc).
  bool gemma3n = false;
  // StepFun Step 3.5 (step35): per-layer sliding windows whose layers have more query heads and
  // rotate all of each head on a base of their own, full layers rotating half of each head with the
  // file's rope_freqs, a sigmoid gate per head on the attention output (attn_gate), QK-norm,
  // leading dense layers, then experts by sigmoid gate values plus a selection bias beside an
  // ungated shared expert, and per-layer SwiGLU limits (model/step35_hparams.h).
  bool step35 = false;
  // Poolside Laguna XS.2 (laguna): Step 3.5's layers of two kinds (more query heads where they
  // slide, told apart by those counts when the file has no pattern), a softplus gate per head,
  // the full layers rotating part of each head with YaRN, the sliding ones all of it unscaled on a
  // base of their own, no SwiGLU limits (model/step35_hparams.h).
  bool laguna = false;
  // Tencent Hunyuan-A13B (hunyuan-moe): Qwen3-MoE's layers with the QK-norm after the rotation
  // (Hparams::qk_norm_after_rope), weights renormalised, beside an ungated shared expert; Hunyuan's
  // dense models (hunyuan-dense) the same attention over a dense feed-forward.
  bool qk_norm_after_rope = false;
  // Cohere's MoE (cohere2_moe, North): RMS norms, attention and feed-forward in parallel on one norm,
  // a sliding window in the layers attention.sliding_window_pattern flags, rope only there and in
  // the leading dense layers, experts by sigmoid gate values (model/cohere_hparams.h).
  bool cohere2_moe = false;
  // Xiaomi MiMo-V2-Flash (mimo2): key heads wider than value heads, more K/V heads in the
  // sliding layers (a pattern per layer) than in the full ones, attention sinks where the file has
  // them (the sliding layers), v scaled before the cache, NeoX rope over part of each head on a
  // base per kind, and sigmoid routing with a selection bias, renormalised, no shared expert, in
  // every layer with a router (model/step35_hparams.h).
  bool mimo2 = false;
  // NVIDIA Nemotron 51B / Super 49B / Ultra 253B (deci, DeciLM's layers): Llama's layers of which
  // some have no attention, or only attn_output over the normed input, some no feed-forward, and
  // the feed-forward widths vary (model/deci_hparams.h).
  bool deci = false;
  // IBM Granite 4.0-H (granitehybrid: Micro, Tiny, Small): Mamba-2 layers wherever
  // attention.head_count_kv is 0, attention layers (no rope unless rope.scaling.finetuned) in the
  // others, every layer with a feed-forward: dense, or Granite's softmax-routed experts beside an
  // ungated shared expert; Granite's multipliers when the file has them (model/ssm_hparams.h).
  bool mamba2 = false;
  // NVIDIA Nemotron-H (nemotron_h: Nemotron-H 8B / 47B / 56B, Nemotron Nano 2 9B / 12B): layers of
  // three kinds, one norm (attn_norm) and a residual each: Mamba-2 where head_count_kv and
  // feed_forward_length are both 0, attention without rope where head_count_kv is not, and a
  // feed-forward of squared ReLU without a gate (ffn_up, ffn_down) where feed_forward_length is not
  // (model/ssm_hparams.h). Nemotron 3 (nemotron_h_moe) has experts in those layers instead.
  bool nemotron_h = false;
  // Liquid LFM2 (lfm2: 350M to 2.6B): short-convolution layers where attention.head_count_kv is 0
  // (in_proj to B, C and x; C * conv(B * x) over shortconv.l_cache taps; out_proj), attention with
  // QK-norm and NeoX rope elsewhere, every layer a SwiGLU feed-forward (LFM2-MoE, lfm2moe: experts
  // after the leading dense layers), every attending layer windowed when the file gives
  // attention.sliding_window; the final norm is named token_embd_norm (model/ssm_hparams.h).
  bool short_conv = false;
  // AI2 OLMo 2 and OLMo 3 (olmo2): no norms before the blocks (no attn_norm or ffn_norm: each block
  // reads the layer's input as it is), RMS norms after them (post_attention_norm, post_ffw_norm),
  // QK-norm over each whole q and k row before NeoX rope. OLMo 3's files give
  // attention.sliding_window: then every layer but each 4th (or attention.sliding_window_pattern-th)
  // slides, rotating with rope.freq_base_swa (else the global base) and no scaling (model/hparams.cc).
  bool olmo2 = false;
  // LG EXAONE 4.0 (exaone4: 1.2B, 32B): OLMo 2's post-norm-only layers with QK-norm per head; the
  // 32B's sliding layers (three of every four) rotate, its full layers have no rope
  // (model/post_norm_hparams.h).
  bool exaone4 = false;
  // TII Falcon-H1 (falcon-h1: 0.5B to 34B): every layer a Mamba-2 mixer (ssm_norm optional) and
  // attention (NeoX rope) side by side over one attn_norm, their outputs added, then a SwiGLU
  // feed-forward under ffn_norm (named without .weight in llama.cpp's files); the model's
  // multipliers are in its weights, as llama.cpp's converter writes them (model/ssm_hparams.h).
  bool falcon_h1 = false;
  // Arcee AFM (arcee: AFM-4.5B): Llama's layers with a squared-ReLU feed-forward without a gate
  // (ffn_up, ffn_down; Hparams::ffn_relu_sq), as llama.cpp runs it.
  bool ffn_relu_sq = false;
  // Swiss AI Apertus (apertus: 8B, 70B): Llama's layers with QK-norm per head and NeoX rope, the
  // feed-forward down(xIELU(up x)) without a gate, xIELU's four values per layer from the file's
  // xielu.* keys (Hparams::ffn_xielu).
  bool apertus = false;
  // BitNet b1.58 (bitnet: llama.cpp's name, 1bitLLM's 0.7B / 3B; bitnet-b1.58 and bitnet-25:
  // Microsoft's converter's, BitNet b1.58 2B4T): Llama's layers with NeoX rope, the attention's
  // output RMS-normed (attn_sub_norm) before attn_output, the gated feed-forward's product
  // (ffn_sub_norm) before ffn_down; the gate SiLU, or relu(.)^2 where bitnet_relu_sq says or
  // <arch>.hidden_activation names it (model/bitnet_hparams.h); a matrix's optional one-number
  // <name>.scale multiplies its output, as llama.cpp reads these files. The weights are ternary
  // (TQ1_0, TQ2_0, or Microsoft's I2_S).
  bool bitnet = false;
  bool bitnet_relu_sq = false;
  // inclusionAI Ling 3.0 (bailingmoe3): DeepSeek-V3's latent attention with a sigmoid gate per head
  // (attn_gate) in the layers whose head_count_kv is not 0, Kimi Delta Attention in the others
  // (gated delta-net layers whose decay is per key channel: Hparams::ssm_kda), leading dense layers,
  // then experts routed as the file says beside an ungated shared expert, optional SwiGLU limits
  // (model/ssm_hparams.h: read_bailingmoe3).
  bool kda = false;
  // Moonshot Kimi Linear (kimi-linear: 48B-A3B): the same hybrid layers with Kimi's own KDA gate
  // (Hparams::kda_softplus_gate), low-rank decay and output-gate inputs (ssm_f_a / ssm_f_b, ssm_g_a /
  // ssm_g_b, or a full attn_gate), latent attention without rope or head gate, sigmoid routing with
  // a selection bias (sigmoid when the file names no gating function), renormalised and scaled
  // (model/ssm_hparams.h: read_kimi_linear).
  bool kimi_linear = false;
};

// nullptr for an architecture this build does not run.
const ArchTraits* find_arch(std::string_view name);
// "llama, qwen2, qwen3, ...", for error messages.
std::string_view supported_arch_names();

}  // namespace strata
