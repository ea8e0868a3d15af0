// ModelSpec: the shape of a transformer to generate (dense llama, qwen2, qwen3, gemma2, gemma3, phi3, glm4,
// smollm3, mistral3 or qwen35, or a mixture-of-experts qwen2moe, qwen3moe, Mixtral, gpt-oss, glm4moe, llama4,
// deepseek2, minimax-m2, ernie4_5-moe or qwen35moe; granitehybrid with or without experts; the Mamba-2
// hybrids nemotron_h and nemotron_h_moe and falcon-h1; the short-convolution hybrids lfm2 and lfm2moe; the
// Kimi Delta Attention hybrids of latent attention bailingmoe3 and kimi-linear; the
// post-norm-only olmo2 and exaone4 and the mixture-of-experts olmoe; llama's layers as exaone and arcee; the
// ternary BitNet b1.58 as bitnet and bitnet-b1.58; Gemma 3n's AltUp layers as gemma3n; llama's layers with
// QK-norm as apertus and hunyuan-dense), and the named presets `strata mkmodel --preset` offers.
// Plain values; pure functions.
//
// Invariant of a preset's spec: n_expert > 0 exactly for the MoE archs; Mixtral is written as
// GGUF arch "llama" with experts (as llama.cpp's converter does), so arch holds "llama" then.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace strata {

// Gemma 3n's AltUp streams (altup.num_inputs) and the layers whose feed-forward gates are sparse (the
// first 10), as in both released models; llama.cpp fixes both.
inline constexpr int kGemma3nAltupStreams = 4;
inline constexpr int kGemma3nSparseLayers = 10;

struct ModelSpec {
  // The GGUF architecture: "llama", "qwen2", "qwen3", "gemma3", "qwen2moe", "qwen3moe", "gpt-oss", "glm4moe",
  // "deepseek2", ... (Mixtral: "llama" with n_expert > 0). Decides biases, QK-norm, rope layout and the
  // expert keys written.
  std::string arch = "llama";
  std::string preset;
  int n_vocab = 0;   // from the vocabulary when one is given
  int n_ctx = 0;
  int n_embd = 0;
  int n_layer = 0;   // transformer layers run (glm4moe writes n_nextn more blocks after them)
  int n_head = 0;
  int n_head_kv = 0;
  int head_dim = 0;  // of a query / key head (deepseek2: qk_nope + rope_dim, its values v_head_dim)
  int n_ff = 0;      // <arch>.feed_forward_length (Mixtral: the expert width, = n_ff_exp)
  // Mixture of experts (0 for dense): each layer's feed-forward is n_expert experts of width
  // n_ff_exp chosen n_expert_used at a time by a router, plus a shared expert of width
  // n_ff_shexp when that is > 0 (qwen2moe; llama4, one expert's width; glm4moe and deepseek2, whose
  // width is n_expert_shared = n_ff_shexp / n_ff_exp experts').
  int n_expert = 0;
  int n_expert_used = 0;
  int n_ff_exp = 0;
  int n_ff_shexp = 0;
  float rms_eps = 1e-5f;
  float rope_freq_base = 10000.0f;
  bool tied_embeddings = false;  // no output.weight
  bool qk_norm = false;          // qwen3: blk.N.attn_q_norm / attn_k_norm
  bool qkv_bias = false;         // qwen2: blk.N.attn_{q,k,v}.bias
  // gemma3: blk.N.post_attention_norm / post_ffw_norm, and <arch>.attention.sliding_window
  // (the arch also sets qk_norm and tied_embeddings).
  bool post_norms = false;
  int sliding_window = 0;
  float rope_linear_factor = 1.0f;  // != 1: <arch>.rope.scaling.type linear with this factor
  // gpt-oss: attention sinks, biases on the attention output, the router and the experts,
  // the feed-forward norm written as post_attention_norm, and (with qkv_bias, sliding_window)
  // q/k/v biases and a window in every other layer.
  bool gpt_oss = false;
  // != 1: <arch>.rope.scaling.type yarn with this factor, the original context n_ctx / factor, or
  // rope_yarn_orig_ctx where a config gives its own (arcee only: AFM-4.5B's 4096 of 65536 at factor 20).
  float rope_yarn_factor = 1.0f;
  int rope_yarn_orig_ctx = 0;
  // llama only: a Llama 3.1-style rope_freqs.weight (rope_factors.h), with the preset's
  // n_ctx standing for the original training context.
  bool rope_freqs = false;
  // exaone4, exaone and arcee, > 0: the rope_freqs.weight llama.cpp's converter bakes from a llama3
  // rope_scaling (EXAONE 4.0 32B's: factor 16 over 8192 original positions, EXAONE 3.5's 8 over 8192;
  // low / high frequency factors 1 and 4).
  float rope_freqs_factor = 0.0f;
  int rope_freqs_orig_ctx = 0;
  // phi3: q/k/v as one blk.N.attn_qkv, gate and up as one blk.N.ffn_up (gate rows first), and
  // <arch>.attention.sliding_window written even when 0 (none), as Phi-4's files have it.
  bool phi3 = false;
  // gemma2: Gemma 3's post-norms and tied embeddings without QK-norm, a window in every other
  // layer, and <arch>.attn_logit_softcapping / final_logit_softcapping (Gemma 2's 50 and 30).
  bool gemma2 = false;
  // glm4 (GLM-4-0414): q/k/v biases, post-norms (untied output), gate and up as one
  // blk.N.ffn_up (gate rows first), and rope over half of each head (on adjacent pairs).
  bool glm4 = false;
  // cohere2 (Command R7B, Command A): tied embeddings, no ffn_norm (attention and feed-forward
  // read one norm), layer norms' eps as attention.layer_norm_epsilon, a window in three of every
  // four layers, and logit_scale 0.25; command-r (Command R 35B, Aya) the same without the window
  // (R+'s per-head q/k norms are not written: llama.cpp reads them only at 64 layers). seed_oss (Seed-OSS): q/k/v biases and the feed-forward
  // norm written as post_attention_norm.
  bool cohere2 = false;
  // cohere2_moe (Cohere's North): RMS norms, no ffn_norm (attention and feed-forward read one
  // norm), an output matrix, a window in the layers l % 4 != 0 written as a flag per layer, rope
  // there and in the n_dense_lead dense layers (written as leading_dense_block_count), then experts
  // by sigmoid gate values used as they are (expert_gating_func 2, expert_weights_norm false, no
  // selection bias, no shared expert), and logit_scale 1 as North's converter writes it.
  bool cohere2_moe = false;
  bool seed_oss = false;
  // gemma4 (Gemma 4): Gemma 3's tensors (QK-norm, post-norms, tied embeddings) with a window of
  // sliding_window keys in 5 of every 6 layers (the last always full: gemma4_layer_slides) whose
  // heads are n_head_kv of head_dim, the full layers' n_head_kv_full of head_dim_full without
  // attn_v (v from k), a quarter of their pairs rotated (rope_freqs: 1, then 1e30), a
  // layer_output_scale per layer, and the keys llama.cpp's converter writes (model_generator.cc).
  bool gemma4 = false;
  int head_dim_full = 0;
  // gemma3n (Gemma 3n E2B / E4B, text only): Gemma 3's attention (QK-norm, the q norm unscaled as
  // Gemma 4's, post-norms, tied embeddings; every layer n_head_kv heads of head_dim with attn_k and
  // attn_v, the shared layers' too, as the converter writes them) sliding as Gemma 4's layers do
  // (gemma4_period 5: l % 5 == 4 full, and the last), inside kGemma3nAltupStreams AltUp streams
  // (altup_proj / altup_unembd_proj, each layer's altup_* router and coefficient maps), a laurel
  // branch of laurel_rank (laurel_l, laurel_r, laurel_post_norm), Gemma 4 E2B's per-layer inputs
  // and shared K/V (n_embd_per_layer, n_shared_kv_layers), sparse feed-forward gates in the first
  // n_sparse_layers layers (activation_sparsity_scale), and the final soft cap of 30.
  bool gemma3n = false;
  int laurel_rank = 0;
  int n_sparse_layers = 0;
  // step35 (Step 3.5 Flash): every 4th layer (l % 4 == 0) attends over all keys with n_head heads,
  // rotating half of each head with Llama 3-style rope_freqs (factor 2 over min(131072, n_ctx / 2)
  // positions, padded with 1s to half a head, as llama.cpp's newer converter writes them); the
  // others slide over sliding_window keys with n_head_swa heads, all of each head rotated on base
  // 10000. Every layer has QK-norm and attn_gate (a gate per head); n_dense_lead dense layers, then
  // experts by sigmoid gates with a selection bias, normalised and scaled, beside a shared expert;
  // the last layer's SwiGLUs clamped (routed experts 7, shared expert 16).
  bool step35 = false;
  // laguna (Poolside Laguna XS.2): step35's layer kinds and heads (written as a per-layer
  // attention.head_count, no pattern: llama.cpp tells the kinds apart by it), a softplus gate per
  // head (the arch's), the full layers rotating half of each head with the preset's YaRN, the
  // sliding ones all of it on base 10000 (rope.freq_base_swa); n_dense_lead dense layers, then
  // sigmoid routing with a selection bias, normalised and scaled, beside a shared expert; no
  // SwiGLU limits, no rope_freqs, no NextN block.
  bool laguna = false;
  // mimo2 (MiMo-V2-Flash): key heads of head_dim, value heads of v_head_dim (written as
  // attention.value_length), rope_dim of each head rotated (NeoX); the full layers (layer 0 and
  // every l with (l + 1) % 6 == 0: mimo2_layer_slides) have n_head_kv_full K/V heads on
  // rope_freq_base, the sliding ones n_head_kv over sliding_window keys on base 10000, with
  // attn_sinks; v times 0.707 (attention.value_scale); n_dense_lead dense layers (no router, no
  // leading_dense_block_count key: llama.cpp tells them by that), then experts by sigmoid gates with
  // a selection bias, normalised, unscaled, no shared expert.
  bool mimo2 = false;
  // deci (Nemotron's DeciLM layers, on any dense preset): llama's tensors with a layer pattern of
  // mkmodel's own (not a real model's): in every 8 layers, the 6th without attention (no
  // attn_norm), the 7th with attn_output alone ("linear attention"), the 8th without a
  // feed-forward; the feed-forward widths cycle through n_ff, 3/4 and 1/2 of it (whole blocks of
  // 256); written as per-layer attention.head_count, head_count_kv and feed_forward_length.
  bool deci = false;
  int n_head_swa = 0;
  int n_head_kv_full = 0;
  // gemma4 and gemma3n: every gemma4_period-th layer is full (Gemma 4: 6 in the 31B and 26B-A4B, 5 in
  // the E2B, 7 in the E4B; Gemma 3n: 5; the last always is). The E2B / E4B's parts (Gemma 3n's too,
  // whose shared layers are as wide as the others): per-layer inputs of n_embd_per_layer
  // (per_layer_token_embd, per_layer_model_proj, per_layer_proj_norm; each layer's inp_gate, proj
  // and post_norm), the last n_shared_kv_layers layers reading an earlier layer's K/V (Gemma 4's
  // without attn_k, attn_v, attn_k_norm), with double_wide_shared twice as wide (feed_forward_length
  // an array).
  int gemma4_period = 6;
  int n_embd_per_layer = 0;
  int n_shared_kv_layers = 0;
  // The preset's layer count, for a --layers cut's share of shared layers; 0 for another preset as
  // gemma3n, whose every cut shares a third of its layers (the E2B's 10 of 30).
  int n_layer_preset = 0;
  bool double_wide_shared = false;
  // glm4moe (GLM-4.5): q/k/v biases, the feed-forward norm written as post_attention_norm, the
  // first n_dense_lead blocks a dense feed-forward of width n_ff, the others experts with a
  // router selection bias (blk.N.exp_probs_b.bias, sigmoid gating) and a shared expert without
  // a gate; partial rotary (rope.dimension_count head_dim / 2, NeoX); and n_nextn NextN
  // (multi-token prediction) blocks after the n_layer, MoE blocks with nextn.* tensors of their
  // own, which the forward pass does not run. block_count = n_layer + n_nextn.
  bool glm4moe = false;
  // llama4 (Llama 4): experts in every moe_layer_step-th layer (dense layers of width n_ff
  // between), a shared expert of the expert width without a gate, and the keys of its attention
  // (<arch>.attention.chunk_size 8192, use_qk_norm; no rope in every 4th layer is the arch's).
  bool llama4 = false;
  int moe_layer_step = 1;
  int n_dense_lead = 0;
  int n_nextn = 0;
  float expert_weights_scale = 1.0f;
  // Routing of glm4moe and deepseek2 (<arch>.expert_gating_func 2 or 1, expert_weights_norm):
  // sigmoid gates with the router's selection bias blk.N.exp_probs_b.bias, or softmax without
  // it; the chosen weights normalised to sum 1 or not, then scaled by expert_weights_scale.
  bool sigmoid_routing = false;
  bool expert_weights_norm = false;
  // deepseek2 (DeepSeek-V2, V2-Lite, V3, R1; Kimi K2): Multi-head Latent Attention, as llama.cpp's
  // converter writes it. Queries through a rank-q_lora_rank bottleneck (attn_q_a, attn_q_a_norm,
  // attn_q_b; 0: one attn_q, as V2-Lite); keys and values from a kv_lora_rank-wide latent plus
  // one rope key of rope_dim shared by the heads (attn_kv_a_mqa, attn_kv_a_norm), expanded per
  // head by attn_kv_b, or with split_kv_b by attn_k_b and attn_v_b (newer llama.cpp's form).
  // A key head is head_dim = qk_nope + rope_dim wide (its first head_dim - rope_dim unrotated),
  // a value head v_head_dim; n_head_kv = n_head. Its MoE blocks follow n_dense_lead dense ones
  // and have n_ff_shexp / n_ff_exp shared experts without a gate. YaRN always: rope_yarn_factor
  // over n_ctx / factor and rope.scaling.yarn_log_multiplier rope_yarn_log_mul.
  bool deepseek2 = false;
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int rope_dim = 0;
  int v_head_dim = 0;
  bool split_kv_b = false;
  float rope_yarn_log_mul = 0.0f;
  // glm-dsa (GLM-5): deepseek2's layout in the split_kv_b form with one NextN block after the layers
  // and, in every block, a sparse-attention indexer of indexer_n_head heads of indexer_head_dim
  // (indexer.attn_q_b from the query latent, indexer.attn_k, indexer.k_norm with its bias,
  // indexer.proj), keeping indexer_top_k keys (attention.indexer.*); sigmoid routing with a
  // selection bias, normalised, scaled; no YaRN.
  bool glm_dsa = false;
  int indexer_n_head = 0;
  int indexer_head_dim = 0;
  int indexer_top_k = 0;
  // bailingmoe3 (inclusionAI Ling 3.0, as ik_llama.cpp reads it) and kimi-linear (Moonshot Kimi Linear, as
  // llama.cpp's converter writes it): deepseek2's latent attention (deepseek2 set) in the '*' layers of
  // kda_layer_pattern() and Kimi Delta Attention in the 'K' ones, told apart by a head_count_kv per layer
  // (0: KDA). A KDA layer has n_head heads of ssm_head_v_dim keys and values (kda.head_dim; the arch ties
  // its heads to head_count), q, k and v each through a causal convolution of ssm_conv_kernel taps, beta per
  // head, decay and output-gate inputs per channel (bailingmoe3: one [n_embd, values] matrix each;
  // kimi-linear: through kda_rank, Kimi's KDA head width), a rate per head (bailingmoe3: positive, its decay
  // exp(-5 sigmoid(a (f + bias))) with kda.gate_lower_bound -5; kimi-linear: -exp(A_log)), a bias per
  // channel and a norm. bailingmoe3's latent layers gate each head (attn_gate [n_embd, n_head]) and rotate
  // as deepseek2's; kimi-linear's have neither gate nor rope (its files still say rope.dimension_count).
  // Both route by sigmoid gates with a selection bias, renormalised and scaled; bailingmoe3 writes
  // n_expert_groups groups of which n_expert_groups_used are used (0: none written).
  bool kda = false;
  int kda_rank = 0;
  int n_expert_groups = 0;
  int n_expert_groups_used = 0;
  // mistral4 (Mistral Small 4): deepseek2's layout as llama.cpp's newer converter writes it
  // (split_kv_b, fused_gate_up_exps) and without expert_gating_func (softmax routing).
  bool mistral4 = false;
  // The experts' gate and up projections as one blk.N.ffn_gate_up_exps (each expert's gate rows,
  // then its up rows) instead of ffn_gate_exps and ffn_up_exps.
  bool fused_gate_up_exps = false;
  // minimax-m2 (MiniMax-M2, M2.1, M2.5): QK-norm over each whole q and k row (attn_q_norm of
  // n_head * head_dim weights, attn_k_norm of n_head_kv * head_dim), rope over half of each head
  // (NeoX), and experts by sigmoid gates with a selection bias, normalised (expert_gating_func 2
  // written; the normalisation is the arch's), no shared expert.
  bool minimax_m2 = false;
  // minimax-m3 (MiniMax-M3): QK-norm head by head, rope over half of each head (NeoX), n_dense_lead
  // dense layers, then experts by sigmoid gates with a selection bias, normalised and scaled by
  // expert_weights_scale (2, its routed_scaling_factor), beside an ungated shared expert of the
  // expert width (expert_shared_count 1), as the llama.cpp-style converter writes them; the
  // clamped SwiGLU is the arch's.
  bool minimax_m3 = false;
  // mistral3 (Ministral 3): llama's tensors with YaRN (rope_yarn_factor over n_ctx
  // / factor, rope.scaling.yarn_log_multiplier rope_yarn_log_mul, yarn_beta_fast 32 and
  // yarn_beta_slow 1 written) and attention.temperature_scale attn_temp_scale, as llama.cpp's
  // converter writes them.
  bool mistral3 = false;
  float attn_temp_scale = 0.0f;
  // ernie4_5-moe (ERNIE 4.5 21B-A3B, 300B-A47B): n_dense_lead dense blocks of width n_ff, then
  // experts (in every moe_layer_step-th block) chosen by softmax probability plus a selection
  // bias (blk.N.exp_probs_b.bias), beside an ungated shared expert of width n_ff_shexp.
  bool ernie_moe = false;
  // qwen35 / qwen35moe (Qwen3.5): hybrid layers, as llama.cpp's converter writes them. Layer l
  // attends when (l + 1) % full_attn_interval == 0 (layer_attends()): gated attention, attn_q
  // giving each head's q then its output gate (2 * n_head * head_dim rows), QK-norm per head,
  // rope (NeoX) over a quarter of each head. The others are gated delta-net layers
  // (model/delta_net.h): ssm_n_k_heads key heads of ssm_head_k_dim, ssm_n_v_heads value heads of
  // ssm_head_v_dim, a causal convolution of ssm_conv_kernel taps. Every layer's feed-forward norm
  // is post_attention_norm; qwen35moe's shared expert is gated (ffn_gate_inp_shexp) and as wide as
  // an expert. qwen3next (Qwen3-Next) is qwen35moe with each delta-net layer's attn_qkv and
  // attn_gate rows in one ssm_in and its ssm_beta and ssm_alpha rows in one ssm_ba, interleaved per
  // key head (ArchTraits::delta_net_grouped). 0 (no interval): every layer attends, no ssm_* tensors.
  int full_attn_interval = 0;
  // The recurrent layers' shapes, of qwen35's delta-net layers and granitehybrid's Mamba-2 layers
  // (LFM2's short convolutions: ssm_conv_kernel alone, their taps).
  int ssm_conv_kernel = 0;
  int ssm_n_k_heads = 0;   // <arch>.ssm.group_count (Mamba-2: groups of B and C)
  int ssm_head_k_dim = 0;  // <arch>.ssm.state_size
  int ssm_n_v_heads = 0;   // <arch>.ssm.time_step_rank (Mamba-2: heads)
  int ssm_head_v_dim = 0;  // <arch>.ssm.inner_size / time_step_rank (KDA: kda.head_dim)
  // granitehybrid (IBM Granite 4.0-H), as llama.cpp's converter writes it: Mamba-2 layers
  // (model/mamba2.h) of ssm_n_v_heads heads of ssm_head_v_dim values over ssm_n_k_heads groups of
  // ssm_head_k_dim state values, a ssm_conv_kernel-tap convolution with a bias, and attention in the
  // layers granite_layer_attends() names (plain q/k/v, no rope: rope.scaling.finetuned false), told
  // apart by a head_count_kv per layer (0: Mamba-2). Every layer's feed-forward norm is ffn_norm;
  // then experts by softmax, renormalised (the arch's), beside an ungated shared expert of
  // n_ff_shexp, feed_forward_length being the expert width; or a dense feed-forward (Granite
  // 4.0-H Micro's form). Granite's multipliers with Granite 4.0-H's logit_scale 6. ssm_a and ssm_d
  // are written as {1, heads}, ssm_norm as {d_inner / groups, groups}.
  bool mamba2 = false;
  // nemotron_h (NVIDIA Nemotron-H, Nemotron Nano 2) and nemotron_h_moe (Nemotron 3 Nano), as
  // llama.cpp's converter writes them: layers of the kinds layer_pattern names, one character each
  // as HF's hybrid_override_pattern has them (nemotron_layer_pattern()): 'M' a Mamba-2 layer of
  // granitehybrid's tensors and shapes (ssm_*), '*' attention (plain q/k/v and output, no biases, no
  // norms, no rope), '-' (nemotron_h) a squared-ReLU feed-forward of n_ff without a gate (ffn_up,
  // ffn_down), 'E' (nemotron_h_moe) experts of n_ff_exp without gates, routed by sigmoid gates with a
  // selection bias, normalised and scaled by expert_weights_scale, beside an ungated shared expert of
  // n_ff_shexp. Each layer has one norm, attn_norm, and no ffn_norm. Told apart as llama.cpp tells
  // them: a head_count_kv and a feed_forward_length per layer (n_head_kv at '*'; n_ff, or n_ff_exp,
  // at '-' / 'E'; 0 elsewhere), with head_count once; key/value_length always; no Granite multipliers.
  bool nemotron_h = false;
  // lfm2 (Liquid LFM2) and lfm2moe (LFM2-MoE), as llama.cpp's converter writes them: layers of the
  // kinds layer_pattern names (lfm2_layer_pattern()): 'C' a gated short convolution over
  // ssm_conv_kernel taps (shortconv.l_cache: the current position and the ones before it; in_proj
  // [n_embd, 3 n_embd] giving B, C and x, conv [l_cache, n_embd], out_proj [n_embd, n_embd]), '*'
  // attention with per-head QK-norm and NeoX rope; told apart by a head_count_kv per layer (0: short
  // convolution). Every layer's attn_norm and ffn_norm, a SwiGLU feed-forward of n_ff, or in lfm2moe
  // after n_dense_lead dense layers experts by sigmoid gates with a selection bias, renormalised, no
  // shared expert. Tied embeddings; the final norm is token_embd_norm.
  bool lfm2 = false;
  // olmo2 (AI2 OLMo 2, OLMo 3) and exaone4 (LG EXAONE 4.0), as llama.cpp's converter writes them: no
  // pre-norms (no attn_norm, no ffn_norm), post_attention_norm and post_ffw_norm (post_norms), and QK-norm
  // before NeoX rope, olmo2's over each whole q and k row (attn_q_norm of n_head * head_dim weights,
  // attn_k_norm of n_head_kv * head_dim), exaone4's per head. OLMo 3's attention.sliding_window and its
  // full layers' YaRN; EXAONE 4.0's window, read only at 64 layers (the 32B's), whose rope_freqs_factor
  // rotates. Neither writes sliding_window_pattern: without it every 4th layer is full, as in both models,
  // and Strata reads the key only as a period, not as the per-layer flags llama.cpp's newer converter
  // writes. olmoe (OLMoE) has no
  // flag of its own: llama's pre-norm layers with olmo2's whole-row QK-norm and NeoX rope, experts of
  // n_ff_exp in every layer (feed_forward_length their width) by a softmax, the chosen weights as they are.
  bool olmo2 = false;
  bool exaone4 = false;
  // falcon-h1 (TII Falcon-H1), as llama.cpp's converter writes it: every layer a Mamba-2 mixer of the ssm_*
  // shapes (granitehybrid's tensors) and attention (plain q/k/v and output, no q/k norms, NeoX rope) side by
  // side under one attn_norm, their outputs added, then the feed-forward norm named blk.N.ffn_norm without
  // ".weight" (as llama.cpp's loader asks for it) and a SwiGLU feed-forward. head_count_kv once,
  // key/value_length always, the Mamba-2 shapes as ssm.*, no rope.dimension_count (the converter writes
  // none); the model's muP multipliers are in its weights, so no multiplier key. exaone (EXAONE 3.0 / 3.5)
  // and arcee (Arcee AFM) have no flag: llama's tensors (NeoX rope is exaone's arch's), arcee's feed-forward
  // ffn_up and ffn_down only (a squared ReLU, no gate), key/value_length always (its config has head_dim).
  // apertus (Swiss AI Apertus) and hunyuan-dense (Tencent Hunyuan 0.5B-7B) have no flag either: llama's
  // tensors with QK-norm per head (qk_norm) and NeoX rope (the archs'); apertus's feed-forward ffn_up and
  // ffn_down only (xIELU, no gate) with its xielu.* values per layer (layer_keys.h), hunyuan-dense's a SwiGLU
  // and its QK-norm applied after rope (the arch's).
  bool falcon_h1 = false;
  // bitnet (llama.cpp's name) and bitnet-b1.58 (Microsoft's converter's, BitNet b1.58 2B4T): llama's tensors
  // with NeoX rope (the arch's), tied embeddings (llama.cpp's bitnet reads token_embd as the output), and
  // per layer attn_sub_norm [n_head * head_dim] before attn_output and ffn_sub_norm [n_ff] before ffn_down;
  // every matrix but token_embd ternary (WeightKind::kTernary), so that a TQ1_0 / TQ2_0 file holds it
  // exactly. The gate is relu(.)^2 where bitnet_relu2 (2B4T's hidden_act relu2; bitnet-b1.58's always, its
  // arch saying so; bitnet writes bitnet.hidden_activation "relu2"), SiLU otherwise (1bitLLM's bitnet).
  bool bitnet = false;
  bool bitnet_relu2 = false;
  // The pattern the layer kinds repeat: a preset's whole hybrid_override_pattern (Nemotron-H), layer_types
  // (LFM2) or full_attn_layers (Kimi Linear: '*' where it attends, 'K' elsewhere), or the unit
  // model_preset() gives another preset. Empty for every other arch.
  std::string layer_pattern;
};

std::vector<std::string> model_preset_names();
// The preset's shape for arch; an empty arch takes the preset's own (qwen3 for qwen3-0.6b, qwen3moe
// for moe-tiny and qwen3-30b-a3b, mixtral for mixtral-8x7b, gemma3 for gemma3-1b and gemma3-4b,
// gemma2 for gemma2-2b, phi3 for phi-4, glm4moe for glm-4.5-air, deepseek2 for deepseek-v2-lite,
// deepseek-v3 and kimi-k2, minimax-m2 for minimax-m2, qwen35 for qwen3.5-9b and qwen3.5-27b,
// qwen35moe for qwen3.5-35b-a3b, qwen3next for qwen3-next-80b-a3b, granitehybrid for
// granite-4.0-h-tiny, nemotron_h for nemotron-nano-9b-v2, nemotron_h_moe for
// nemotron-3-nano-30b-a3b, lfm2 for lfm2-1.2b, lfm2moe for lfm2-8b-a1b, olmo2 for olmo-2-7b and
// olmo-3-7b, olmoe for olmoe-1b-7b, exaone4 for exaone-4.0-1.2b and exaone-4.0-32b, falcon-h1 for
// falcon-h1-7b, exaone for exaone-3.5-7.8b, arcee for afm-4.5b, apertus for apertus-8b and apertus-70b,
// bitnet-b1.58 for bitnet-b1.58-2b-4t, gemma3n for gemma3n-e2b and gemma3n-e4b, kimi-linear for
// kimi-linear-48b-a3b, llama otherwise).
// arch is an --arch name: llama, qwen2, qwen3, gemma2, gemma3, phi3, glm4, smollm3, mistral3, ernie4_5, bitnet,
// bitnet-b1.58, qwen35, nemotron_h, lfm2, olmo2, exaone4, exaone, arcee, falcon-h1, gemma3n, apertus,
// hunyuan-dense for the dense presets; qwen2moe, qwen3moe, mixtral, gpt-oss, glm4moe, llama4, deepseek2, minimax-m2, ernie4_5-moe, qwen35moe,
// qwen3next, nemotron_h_moe, lfm2moe, olmoe, bailingmoe3 or kimi-linear for the MoE ones (a mismatch is an
// error naming the presets that fit);
// granitehybrid for either. The arch sets qk_norm / qkv_bias, and for MoE archs which expert widths exist;
// another MoE preset as glm4moe gets a shared expert of its expert width, one leading dense block
// of its n_ff (its dense width) and one NextN block; as deepseek2, DeepSeek-V3's attention
// (q_lora_rank min(1536, 4 n_embd), kv_lora_rank 512, key heads of 128 + 64 rope, value heads of
// 128, one per query head), routing (sigmoid with a selection bias, normalised, scaled 2.5) and
// YaRN (40, log multiplier 0.1), with one shared expert of its expert width and one leading dense
// block of its n_ff. A preset not hybrid as qwen35 / qwen35moe / qwen3next gets Qwen3.5's
// proportions: attention every 4th layer (and at least 4 layers, so that one attends), n_head key
// heads and 2 * n_head value heads of head_dim / 2 in the delta-net layers (Qwen3.5-9B's and
// 35B-A3B's ratio to their attention heads), a 4-tap convolution; qwen35moe and qwen3next a shared
// expert of its expert width. A preset not Granite's as granitehybrid gets Granite 4.0-H Tiny's
// proportions: Mamba-2 layers of 2 * n_embd values (rounded down to whole heads, at least one) in
// heads of 64, one group of min(128, n_embd / 4) state values, a 4-tap convolution; a MoE preset a
// shared expert twice its expert width (Tiny's 1024 beside experts of 512); Tiny's multipliers. A
// preset not Nemotron's as nemotron_h / nemotron_h_moe gets Nemotron 3 Nano's repeating unit of 7
// layers, "M-M-M*-" ("MEMEM*E" with experts: its first 35 layers are five of them), over at least one
// unit (tiny's and moe-tiny's 2 layers become 7), and Mamba-2 layers of 2 * n_embd values (rounded down
// to whole heads, at least one) in heads of 64 over 8 groups (1 where the heads do not split into 8)
// of min(128, n_embd / 4) state values, a 4-tap convolution; as nemotron_h_moe Nano's routing
// (sigmoid with a selection bias, normalised, times 2.5) and a shared expert twice its expert width
// (Nano's 3712 beside experts of 1856), feed_forward_length being the expert width. A preset not
// LFM2's as lfm2 / lfm2moe attends in every third layer ("CC*" repeated), its short convolutions
// over 3 taps; as lfm2moe one leading dense layer of its n_ff, then its experts without a shared
// expert. The LFM2 archs give any preset QK-norm and tied embeddings. olmo2, exaone4 and olmoe give any
// preset QK-norm and keep its tying; olmo2 and exaone4 take away its pre-norms for post-norms. A preset
// not OLMo's as olmo2 is OLMo 2's kind (no window, rope unscaled), one not EXAONE's as exaone4 has no
// window key or rope_freqs (a 64-layer cut slides over llama.cpp's default 4096 keys); olmoe gives a
// MoE preset softmax routing, weights unnormalised, no shared expert, feed_forward_length its expert width.
// A preset not Falcon-H1's as falcon-h1 gets Granite 4.0-H Tiny's Mamba-2 proportions (2 * n_embd values in
// heads of 64, one group of min(128, n_embd / 4) state values, 4 taps) in every layer beside its attention.
// The llama3 rope_freqs of EXAONE's presets stay with their own arch (exaone4, exaone); arcee keeps a
// preset's YaRN (AFM-4.5B's over its own original context), as mistral3 does. bitnet and bitnet-b1.58 tie any
// preset's embeddings; bitnet gates by relu^2 on a BitNet preset (2B4T's), by SiLU on another. gemma3n gives
// any preset Gemma 3's QK-norm, post-norms and tied embeddings, a 512-key window (a quarter of a small context),
// sparse gates in the first 10 layers (llama.cpp's fixed count); a preset not Gemma 3n's gets the E2B's
// proportions: per-layer inputs of n_embd / 8, a laurel rank of n_embd / 32 (at least 1 each), a third of
// its layers sharing K/V (at most all but gemma4_period: the first full layer keeps its own).
// Per-layer inputs and shared K/V (Gemma 4 E2B's, Gemma 3n's) stay with gemma4 and gemma3n. apertus and
// hunyuan-dense give any dense preset QK-norm per head and keep its tying and rope base, its rope unscaled.
// bailingmoe3 and kimi-linear (MoE presets) take deepseek2's latent attention (a preset without one:
// DeepSeek-V3's for bailingmoe3, Kimi Linear's for kimi-linear: no query bottleneck, keys of 128 + 64,
// values of 128, one dense layer, routing times 2.446) and, on a preset not Kimi Linear's, mkmodel's own
// pattern: latent attention in every 4th layer (KKK*, over at least 4 layers), the others KDA of n_head
// heads of 128 over 4 taps (kimi-linear's inputs through rank 128); sigmoid routing with a selection bias,
// normalised, the preset's scale; bailingmoe3 keeps a preset's YaRN and groups its experts as Ling 2.0 does
// (8 groups, 4 used) where they split into 8 groups of 2 or more; kimi-linear drops YaRN (no rope) and
// writes the split attn_k_b / attn_v_b, as llama.cpp's converter does.
Result<ModelSpec> model_preset(std::string_view arch, std::string_view preset);
// Whether an --arch name is one of the mixture-of-experts ones (qwen3moe, ..., cohere2_moe).
bool is_moe_arch_name(std::string_view arch);
// Every --arch name mkmodel writes, the dense ones first.
std::vector<std::string> generated_arch_names();
// Blocks written: n_layer plus glm4moe's NextN blocks (<arch>.block_count).
int block_count(const ModelSpec& spec);
// <arch>.attention.head_count_kv as written: n_head_kv, or 1 for deepseek2's split_kv_b form
// (which llama.cpp reads as one K/V head of the latent, kv_lora_rank + rope_dim wide).
int head_count_kv(const ModelSpec& spec);
// Gemma 4 and Gemma 3n: whether layer l slides (all but every gemma4_period-th and the last),
// whether it reads an earlier layer's K/V, and its feed-forward width.
bool gemma4_layer_slides(const ModelSpec& spec, int layer);
bool step35_layer_slides(int layer);
bool mimo2_layer_slides(int layer);
// The K/V heads of layer l: n_head_kv, or Gemma 4's and MiMo-V2's full layers' n_head_kv_full.
int layer_kv_heads(const ModelSpec& spec, int layer);
int step35_layer_heads(const ModelSpec& spec, int layer);
bool gemma4_layer_shares_kv(const ModelSpec& spec, int layer);
int gemma4_ffn_width(const ModelSpec& spec, int layer);
// deci: a layer's query heads (0: no attention), K/V heads (0 with query heads: attn_output alone)
// and feed-forward width (0: none).
int deci_layer_heads(const ModelSpec& spec, int layer);
int deci_layer_kv_heads(const ModelSpec& spec, int layer);
int deci_ffn_width(const ModelSpec& spec, int layer);
// granitehybrid: whether layer l attends. Granite 4.0-H Tiny's, Small's and Micro's 40 layers attend
// where l % 10 == 5 (5, 15, 25, 35); a cut to fewer than 6 layers attends in its last one, so that
// every cut keeps an attending layer (llama.cpp and Strata refuse a file without one).
bool granite_layer_attends(const ModelSpec& spec, int layer);
// nemotron_h / nemotron_h_moe: the kinds of the n_layer layers, one character each (ModelSpec::
// nemotron_h): layer l takes layer_pattern[l % its size], so that a --layers cut keeps a preset's first
// layers and a longer model repeats its pattern; where none of them would attend, the last Mamba-2
// layer ('M') attends instead ('*'), so that every cut keeps an attending layer (llama.cpp and Strata
// refuse a file without one). Empty for other archs. nemotron_layer_kind(): layer l's character.
std::string nemotron_layer_pattern(const ModelSpec& spec);
char nemotron_layer_kind(const ModelSpec& spec, int layer);
// lfm2 / lfm2moe: the kinds of the n_layer layers, 'C' short convolution or '*' attention
// (ModelSpec::lfm2), layer l taking layer_pattern[l % its size] as nemotron_layer_pattern()'s do;
// where none of them would attend, the last layer does, so that every cut keeps an attending layer.
// Empty for other archs.
std::string lfm2_layer_pattern(const ModelSpec& spec);
// bailingmoe3 / kimi-linear: the kinds of the n_layer layers, 'K' Kimi Delta Attention or '*' latent
// attention (ModelSpec::kda), layer l taking layer_pattern[l % its size] as nemotron_layer_pattern()'s do;
// where none of them would attend, the last layer does. Empty for other archs.
std::string kda_layer_pattern(const ModelSpec& spec);
// Whether layer l attends (every layer unless the spec is hybrid; ModelSpec::full_attn_interval,
// granite_layer_attends(), nemotron_layer_pattern(), lfm2_layer_pattern(), kda_layer_pattern()).
bool layer_attends(const ModelSpec& spec, int layer);
// A --layers cut: n_layer layers of the same shape. deepseek2 and lfm2moe keep at least one MoE
// layer (their leading dense blocks cut to n_layer - 1 when they would fill the cut). A hybrid spec keeps its
// interval: the layers attending are still those with (l + 1) % interval == 0 (plan_tensors()
// refuses a cut below the interval, which would leave none); granitehybrid keeps
// granite_layer_attends()'s rule, nemotron_h / nemotron_h_moe nemotron_layer_pattern()'s, lfm2 /
// lfm2moe lfm2_layer_pattern()'s and bailingmoe3 / kimi-linear kda_layer_pattern()'s, which leave one in
// every cut. Gemma 4 E2B / E4B and Gemma 3n keep
// the preset's share of shared K/V layers, at most all but the first gemma4_period (so that the first
// full layer and the sliding ones before it keep their own K/V, and every shared layer has one of its
// kind to read); Gemma 3n's first kGemma3nSparseLayers layers of any cut have sparse gates.
void set_layer_count(ModelSpec* spec, int n_layer);

}  // namespace strata
