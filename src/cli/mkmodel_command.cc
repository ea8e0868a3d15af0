// `strata mkmodel`: writes a GGUF model with deterministic random weights (see
// modelgen/model_generator.h) for tests, benchmarks and demos.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "base/clock.h"
#include "cli/commands.h"
#include "gguf/file_type.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_spec.h"
#include "modelgen/type_mix.h"

namespace strata::cli {

namespace {

constexpr const char* kMkmodelTypes =
    "f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 q2_k q3_k q4_k q5_k q6_k iq4_nl iq4_xs iq3_s iq3_xxs iq2_s iq2_xs iq2_xxs "
    "iq1_m iq1_s mxfp4 tq1_0 tq2_0";

// --arch's help: the names, and what each does to a preset not its own.
constexpr const char* kArchHelp =
    "llama, qwen2, qwen3, gemma2, gemma3, phi3, glm4, smollm3, mistral3, ernie4_5, qwen35, qwen2vl, qwen3vl, "
    "granite, minicpm, cohere2, command-r, seed_oss, gemma4, deci, nemotron_h, lfm2, olmo2, exaone4, exaone, arcee, "
    "falcon-h1, bitnet, bitnet-b1.58, gemma3n, apertus, hunyuan-dense or granitehybrid (dense presets; apertus (Swiss "
    "AI Apertus) is llama's layers with QK-norm per head, NeoX rope and an xIELU feed-forward without a gate (its "
    "xielu.* values one per layer), hunyuan-dense (Tencent Hunyuan 0.5B-7B) llama's with QK-norm after NeoX rope, "
    "both on any dense preset keeping its rope base; gemma3n is Gemma 3n: Gemma 3's "
    "attention (every 5th layer full) inside 4 AltUp streams, a laurel branch, per-layer inputs, the last layers "
    "sharing earlier K/V and sparse gates in the first 10, on a preset not Gemma 3n's per-layer inputs of "
    "n_embd / 8, a laurel rank of n_embd / 32 and a third of the layers sharing K/V; bitnet (llama.cpp's name) "
    "and bitnet-b1.58 "
    "(Microsoft's, BitNet b1.58 2B4T) are llama's layers with NeoX rope, a sub-norm before attn_output and before "
    "ffn_down, tied embeddings and every matrix but token_embd ternary (-s, 0, +s: exact in TQ1_0 / TQ2_0), "
    "bitnet-b1.58's gate relu^2, bitnet's relu^2 on its own preset and SiLU on another; falcon-h1 is TII "
    "Falcon-H1: every layer a Mamba-2 mixer beside "
    "attention under one norm, on a preset not Falcon-H1's Mamba-2 of 2 * n_embd values in heads of 64, one group "
    "of min(128, n_embd / 4) state values; exaone (EXAONE 3.5) is llama's layers with NeoX rope, arcee (AFM) "
    "llama's with a squared-ReLU feed-forward without a gate (a preset's YaRN kept), EXAONE 3.5's rope_freqs only "
    "on its own preset; olmo2 "
    "(OLMo 2 / OLMo 3) and exaone4 (EXAONE 4.0) norm only after attention and feed-forward, "
    "with QK-norm over whole rows (olmo2) or per head (exaone4), on a preset not theirs without a window or rope "
    "scaling; deci gives a dense preset a layer pattern of its own: in every 8 layers the 6th without attention, "
    "the 7th with attn_output alone, the 8th without a feed-forward, the widths cycling n_ff, 3/4, 1/2); qwen3moe, "
    "qwen2moe, mixtral, gpt-oss, glm4moe, llama4, deepseek2, mistral4, minimax-m2, minimax-m3, ernie4_5-moe, "
    "qwen35moe, qwen3next, qwen3vlmoe, granitemoe, step35, laguna, hunyuan-moe, cohere2_moe, mimo2, glm-dsa, "
    "nemotron_h_moe, lfm2moe, olmoe, bailingmoe3, kimi-linear or granitehybrid (MoE presets; bailingmoe3 (inclusionAI "
    "Ling 3.0, as ik_llama.cpp reads it; no preset: no real config at hand) and kimi-linear (Moonshot Kimi Linear, "
    "as llama.cpp's converter writes it) are deepseek2's latent attention (bailingmoe3's with a sigmoid gate per "
    "head, kimi-linear's without gate or rope) in some layers and Kimi Delta Attention in the others, told apart by "
    "a head_count_kv per layer (0: KDA); on a preset not Kimi Linear's mkmodel's own pattern, latent attention in "
    "every 4th layer ((l + 1) % 4 == 0, over at least 4 layers), KDA of n_head heads of 128 over 4 taps (kimi-"
    "linear's decay and gate inputs through rank 128), the preset's latent attention (another preset: "
    "DeepSeek-V3's for bailingmoe3, Kimi Linear's for kimi-linear), sigmoid routing with a selection bias, "
    "renormalised; bailingmoe3 8 expert groups (4 used) where the experts split into 8 groups of 2 or more; "
    "olmoe is OLMoE: QK-norm over whole rows, "
    "experts in every layer by softmax, weights as they are, no shared expert; lfm2 and lfm2moe are Liquid LFM2 "
    "and LFM2-MoE: gated short convolutions ('C') and attention with QK-norm ('*') by a pattern, tied embeddings, "
    "on a preset not LFM2's attention in every third layer (CC*) and 3-tap convolutions, lfm2moe one leading "
    "dense layer, then experts by sigmoid gates with a selection bias, renormalised, no shared expert; nemotron_h "
    "and nemotron_h_moe are NVIDIA Nemotron-H / Nemotron "
    "Nano 2 and Nemotron 3 Nano: Mamba-2, attention (no rope) and squared-ReLU feed-forward (or expert) layers "
    "without gates, by a pattern ('M', '*', '-' / 'E'), on a preset not Nemotron's Nemotron 3 Nano's unit "
    "M-M-M*- (MEMEM*E) over at least 7 layers, Mamba-2 layers of 2 * n_embd values in heads of 64 over 8 groups "
    "(1 where the heads do not split into 8), sigmoid routing normalised times 2.5 and a shared expert twice the "
    "expert width; granitehybrid (dense or MoE presets) is IBM Granite 4.0-H: Mamba-2 layers "
    "with attention where l % 10 == 5 (a cut under 6 layers attends in its last), on a preset not Granite's "
    "Mamba-2 layers of 2 * n_embd values in heads of 64, one group of min(128, n_embd / 4) state values, and "
    "a shared expert twice the expert width; glm-dsa is deepseek2's split form with GLM-5's sparse-attention "
    "indexer and a NextN block (another preset: GLM-5's latent attention without YaRN); mimo2 on a preset not "
    "MiMo-V2's gives value heads 2/3 of a key head, a third of each head rotated and half the K/V heads in "
    "its full layers; the vision-language archs are their language models, Qwen2's, Qwen3's or Qwen3-MoE's "
    "with M-RoPE sections; granite and granitemoe are llama and mixtral with Granite's multipliers; gemma4 "
    "(dense or MoE presets: the experts beside the dense feed-forward) on a preset not Gemma 4's gives its "
    "full layers heads twice as wide and a quarter as many; mixtral is written as llama with experts; glm4moe "
    "adds a leading dense layer, a shared expert and a NextN block; llama4 a shared expert; deepseek2 on a "
    "preset not DeepSeek's takes DeepSeek-V3's latent attention, routing and YaRN with a leading dense layer "
    "and a shared expert; qwen35 and qwen35moe on a preset not Qwen3.5's attend in every 4th of at least 4 "
    "layers, delta-net layers of head_dim / 2 wide heads between, qwen35moe and qwen3next with a gated shared "
    "expert, qwen3next with its delta-net projections fused per key head) (default: the preset's)";

struct MkmodelFlags {
  std::string arch;
  std::string preset = "tiny";
  std::string out_path;
  std::string type = "f32";
  std::string vocab_path;
  uint64_t seed = 0;
  int n_threads = 0;
  int n_layers = 0;
  bool dry_run = false;
  bool rope_freqs = false;
  bool split_kv_b = false;
};

// deepseek2's attention, routing and rope; and a warning where llama.cpp or ik_llama.cpp, which
// decide whether queries have a bottleneck by the layer count (27, and for ik_llama.cpp 26 too,
// meaning none: V2-Lite), would look for tensors the file does not have.
void print_deepseek2(const ModelSpec& s) {
  std::printf("  deepseek2 MLA: ");
  if (s.q_lora_rank > 0) {
    std::printf("queries through rank %d (attn_q_a, attn_q_b)", s.q_lora_rank);
  } else {
    std::printf("queries without a bottleneck (attn_q)");
  }
  std::printf(", keys and values from a %d-wide latent plus a %d-wide rope key (attn_kv_a_mqa), key heads of "
              "%d + %d rope, value heads of %d, expanded by %s\n",
              s.kv_lora_rank, s.rope_dim, s.head_dim - s.rope_dim, s.rope_dim, s.v_head_dim,
              s.split_kv_b ? "attn_k_b and attn_v_b (head_count_kv 1, key/value_length of the latent)" : "attn_kv_b");
  std::printf("  deepseek2 routing: %d leading dense layer(s) of width %d, %s, weights %snormalised, scaled by %g; "
              "YaRN %g (log multiplier %g)\n",
              s.n_dense_lead, s.n_ff, s.sigmoid_routing ? "sigmoid with a selection bias (exp_probs_b)" : "softmax",
              s.expert_weights_norm ? "" : "not ", s.expert_weights_scale, s.rope_yarn_factor, s.rope_yarn_log_mul);
  if (s.kda) return;  // their loaders read the query rank from attention.q_lora_rank, not the layer count
  const bool no_bottleneck = s.q_lora_rank == 0;
  std::string refusing = (s.n_layer == 27) != no_bottleneck ? "llama.cpp" : "";
  if ((s.n_layer == 26 || s.n_layer == 27) != no_bottleneck) {
    refusing += refusing.empty() ? "ik_llama.cpp" : " and ik_llama.cpp";
  }
  if (!refusing.empty()) {
    std::printf("  warning: %s would read %d layers as %s, so would not load this file\n", refusing.c_str(), s.n_layer,
                no_bottleneck ? "a query bottleneck (attn_q_a)" : "no query bottleneck (V2-Lite)");
  }
}

// nemotron_h's layers: their pattern (nemotron_layer_pattern()), how many of each kind, their shapes.
void print_nemotron_h(const ModelSpec& s) {
  const std::string kinds = nemotron_layer_pattern(s);
  auto count = [&kinds](char kind) { return static_cast<int>(std::count(kinds.begin(), kinds.end(), kind)); };
  const bool moe = s.n_expert > 0;
  std::printf("  %s: layers %s: %d Mamba-2 (%d heads of %d, %d group(s) of %d state values, %d-tap convolution), "
              "%d attention (plain q/k/v, no rope), %d %s\n",
              s.arch.c_str(), kinds.c_str(), count('M'), s.ssm_n_v_heads, s.ssm_head_v_dim, s.ssm_n_k_heads,
              s.ssm_head_k_dim, s.ssm_conv_kernel, count('*'), count(moe ? 'E' : '-'),
              moe ? "with squared-ReLU experts and shared expert (no gates), sigmoid routing with a selection bias"
                  : "squared-ReLU feed-forward (no gate)");
}

// lfm2's layers: their pattern (lfm2_layer_pattern()), how many of each kind, lfm2moe's dense lead.
void print_lfm2(const ModelSpec& s) {
  const std::string kinds = lfm2_layer_pattern(s);
  const auto n_conv = static_cast<int>(std::count(kinds.begin(), kinds.end(), 'C'));
  std::printf("  %s: layers %s: %d short convolution (%d taps), %d attention (QK-norm, NeoX rope)", s.arch.c_str(),
              kinds.c_str(), n_conv, s.ssm_conv_kernel, s.n_layer - n_conv);
  if (s.n_expert > 0) {
    std::printf("; %d leading dense layer(s) of width %d, then experts by sigmoid gates with a selection bias "
                "(exp_probs_b), renormalised",
                s.n_dense_lead, s.n_ff);
  }
  std::printf("\n");
}

// bailingmoe3's and kimi-linear's layers: their pattern (kda_layer_pattern()), the KDA shapes, the latent
// layers' gate and rope, the routing's groups.
void print_kda(const ModelSpec& s) {
  const std::string kinds = kda_layer_pattern(s);
  const auto n_kda = static_cast<int>(std::count(kinds.begin(), kinds.end(), 'K'));
  const bool kimi = s.arch == "kimi-linear";
  const std::string inputs = kimi ? "through rank " + std::to_string(s.kda_rank) : "per channel";
  std::printf("  %s: layers %s: %d Kimi Delta Attention (%d heads of %d, %d-tap convolutions, decay and gate inputs "
              "%s), %d latent attention (%s)",
              s.arch.c_str(), kinds.c_str(), n_kda, s.n_head, s.ssm_head_v_dim, s.ssm_conv_kernel, inputs.c_str(),
              s.n_layer - n_kda, kimi ? "no gate, no rope" : "a sigmoid gate per head");
  if (s.n_expert_groups > 0) std::printf("; %d expert groups, %d used", s.n_expert_groups, s.n_expert_groups_used);
  std::printf("\n");
}

// olmo2's, exaone4's and olmoe's layers: where they norm, their QK-norm, OLMo 3's and EXAONE 4.0 32B's
// windows and rope (the window llama.cpp reads for exaone4 only at 64 layers), OLMoE's routing.
void print_post_norm(const ModelSpec& s) {
  if (s.arch == "olmoe") {
    std::printf("  olmoe: pre-norm layers, QK-norm over whole rows, NeoX rope; experts in every layer by softmax, "
                "weights as they are, no shared expert\n");
    return;
  }
  std::printf("  %s: no pre-norms, post_attention_norm and post_ffw_norm, QK-norm %s, NeoX rope", s.arch.c_str(),
              s.olmo2 ? "over whole rows" : "per head");
  if (s.olmo2 && s.sliding_window > 0) {
    std::printf("; three of every four layers slide over %d keys", s.sliding_window);
    if (s.rope_yarn_factor != 1.0f) {
      std::printf(", the others' rope YaRN %g over %d positions", s.rope_yarn_factor,
                  static_cast<int>(static_cast<float>(s.n_ctx) / s.rope_yarn_factor));
    }
  }
  constexpr int kExaoneSlidingLayers = 64, kExaoneDefaultWindow = 4096;  // llama.cpp's rule for the 32B
  if (s.exaone4 && s.n_layer == kExaoneSlidingLayers) {
    std::printf("; three of every four layers slide over %d keys, the fourth without rope",
                s.sliding_window > 0 ? s.sliding_window : kExaoneDefaultWindow);
  } else if (s.exaone4 && s.sliding_window > 0) {
    std::printf("; window %d written, read only at %d layers (these attend over every key)", s.sliding_window,
                kExaoneSlidingLayers);
  }
  if (s.rope_freqs_factor > 0.0f) {
    std::printf("; rope_freqs.weight: llama3 factors (1 to %g, over %d positions)", s.rope_freqs_factor,
                s.rope_freqs_orig_ctx);
  }
  std::printf("\n");
}

// falcon-h1's layers: the Mamba-2 mixer's shapes beside the attention, every layer alike.
void print_falcon_h1(const ModelSpec& s) {
  std::printf("  falcon-h1: every layer a Mamba-2 mixer (%d heads of %d, %d group(s) of %d state values, %d-tap "
              "convolution) beside attention (plain q/k/v, NeoX rope) under one norm, their outputs added, then "
              "ffn_norm (named without .weight) and a SwiGLU feed-forward\n",
              s.ssm_n_v_heads, s.ssm_head_v_dim, s.ssm_n_k_heads, s.ssm_head_k_dim, s.ssm_conv_kernel);
}

// exaone's, arcee's, apertus's and hunyuan-dense's layers (llama's): their rope, QK-norm and feed-forward,
// EXAONE 3.5's rope_freqs, AFM's YaRN.
void print_llama_kin(const ModelSpec& s) {
  const bool arcee = s.arch == "arcee", apertus = s.arch == "apertus";
  const char* qk_norm = apertus                      ? ", QK-norm per head"
                        : s.arch == "hunyuan-dense" ? ", QK-norm per head after rope"
                                                    : "";
  std::printf("  %s: llama's layers, %s rope%s, %s", s.arch.c_str(), arcee ? "adjacent-pair" : "NeoX", qk_norm,
              arcee     ? "a squared-ReLU feed-forward without a gate"
              : apertus ? "an xIELU feed-forward without a gate (xielu.* values per layer)"
                        : "a SwiGLU feed-forward");
  if (s.rope_freqs_factor > 0.0f) {
    std::printf("; rope_freqs.weight: llama3 factors (1 to %g, over %d positions)", s.rope_freqs_factor,
                s.rope_freqs_orig_ctx);
  }
  if (s.rope_yarn_factor != 1.0f) {
    std::printf("; rope YaRN %g over %d positions", s.rope_yarn_factor,
                s.rope_yarn_orig_ctx > 0 ? s.rope_yarn_orig_ctx
                                         : static_cast<int>(static_cast<float>(s.n_ctx) / s.rope_yarn_factor));
  }
  std::printf("\n");
}

// bitnet's and bitnet-b1.58's layers: llama's with the sub-norms, the gate, the ternary matrices.
void print_bitnet(const ModelSpec& s) {
  std::printf("  %s: llama's layers, NeoX rope, attn_sub_norm before attn_output and ffn_sub_norm before ffn_down, "
              "a %s-gated feed-forward, tied embeddings; every matrix but token_embd ternary (-s, 0, +s)\n",
              s.arch.c_str(), s.bitnet_relu2 ? "relu^2" : "SiLU");
}

// gemma3n's layers: which are full (gemma4_layer_slides()), share K/V, have sparse gates; the AltUp,
// laurel and per-layer input widths.
void print_gemma3n(const ModelSpec& s) {
  std::string full;
  for (int l = 0; l < s.n_layer; ++l) {
    if (!gemma4_layer_slides(s, l)) full += (full.empty() ? "" : ", ") + std::to_string(l);
  }
  std::printf("  gemma3n: %d AltUp streams, laurel rank %d, per-layer inputs of %d; layer(s) %s full, the others "
              "over %d keys; the last %d sharing earlier K/V; the first %d with sparse gates\n",
              kGemma3nAltupStreams, s.laurel_rank, s.n_embd_per_layer, full.c_str(), s.sliding_window,
              s.n_shared_kv_layers, s.n_sparse_layers);
}

// granitehybrid's layers: which attend (granite_layer_attends()) and the Mamba-2 layers' shapes.
void print_granite_hybrid(const ModelSpec& s) {
  std::string attending;
  int n_attending = 0;
  for (int l = 0; l < s.n_layer; ++l) {
    if (!granite_layer_attends(s, l)) continue;
    attending += (n_attending++ == 0 ? "" : ", ") + std::to_string(l);
  }
  std::printf("  granitehybrid: %d of %d layers attend (%s: plain q/k/v, no rope), %d Mamba-2 layers (%d heads of %d, "
              "%d group(s) of %d state values, %d-tap convolution)\n",
              n_attending, s.n_layer, attending.c_str(), s.n_layer - n_attending, s.ssm_n_v_heads, s.ssm_head_v_dim,
              s.ssm_n_k_heads, s.ssm_head_k_dim, s.ssm_conv_kernel);
}

void print_report(const GenerateReport& r, const MkmodelFlags& flags, double elapsed_s) {
  const ModelSpec& s = r.spec;
  std::printf("%s %s: %s preset %s, %d layers, %d wide, %d/%d heads of %d, ffn %d, vocab %d\n",
              flags.dry_run ? "would write" : "wrote", flags.out_path.c_str(), s.arch.c_str(), s.preset.c_str(),
              s.n_layer, s.n_embd, s.n_head, s.n_head_kv, s.head_dim, s.n_ff, s.n_vocab);
  if (s.n_expert > 0) {
    std::printf("  experts: %d of width %d, %d used per token", s.n_expert, s.n_ff_exp, s.n_expert_used);
    // glm4moe and deepseek2 count their shared experts (expert_shared_count), of the expert width.
    const int n_shared = s.glm4moe || s.deepseek2 ? s.n_ff_shexp / s.n_ff_exp : 1;
    if (n_shared > 1) {
      std::printf(", %d shared experts of width %d", n_shared, s.n_ff_exp);
    } else if (s.n_ff_shexp > 0) {
      std::printf(", a shared expert of width %d", s.n_ff_shexp);
    }
    std::printf("\n");
  }
  if (s.glm4moe) {
    std::printf("  glm4moe: %d leading dense layer(s) of width %d, sigmoid routing with a selection bias "
                "(exp_probs_b), %d NextN block(s) after the %d layers (written, not run)\n",
                s.n_dense_lead, s.n_ff, s.n_nextn, s.n_layer);
  }
  if (s.deepseek2) print_deepseek2(s);
  if (s.full_attn_interval > 0) {
    const int n_attending = s.n_layer / s.full_attn_interval;
    std::printf("  %s hybrid: %d of %d layers attend (every %dth: gated queries, rope over %d of %d), %d gated "
                "delta-net layers (%d key heads of %d, %d value heads of %d, %d-tap convolution)\n",
                s.arch.c_str(), n_attending, s.n_layer, s.full_attn_interval, s.head_dim / 4, s.head_dim,
                s.n_layer - n_attending, s.ssm_n_k_heads, s.ssm_head_k_dim, s.ssm_n_v_heads, s.ssm_head_v_dim,
                s.ssm_conv_kernel);
  }
  if (s.mamba2) print_granite_hybrid(s);
  if (s.nemotron_h) print_nemotron_h(s);
  if (s.lfm2) print_lfm2(s);
  if (s.kda) print_kda(s);
  if (s.olmo2 || s.exaone4 || s.arch == "olmoe") print_post_norm(s);
  if (s.falcon_h1) print_falcon_h1(s);
  if (s.arch == "exaone" || s.arch == "arcee" || s.arch == "apertus" || s.arch == "hunyuan-dense") print_llama_kin(s);
  if (s.bitnet) print_bitnet(s);
  if (s.gemma3n) print_gemma3n(s);
  if (s.rope_freqs) std::printf("  rope_freqs.weight: Llama 3.1-style frequency factors (1 to 8)\n");
  std::printf("  %llu parameters, %.1f MiB of tensor data, file type %s",
              static_cast<unsigned long long>(r.n_params), static_cast<double>(r.n_bytes) / (1 << 20),
              std::string(file_type_name(r.plan.file_type)).c_str());
  if (!flags.dry_run) {
    std::printf(", %.1f s (%.0f MB/s)", elapsed_s, static_cast<double>(r.n_bytes) / 1e6 / std::max(elapsed_s, 1e-9));
  }
  std::printf("\n");
  for (const auto& t : r.plan.tensors) {
    if (!t.fallback.empty()) {
      std::printf("  fallback: %s stored as %s (%s)\n", t.name.c_str(), std::string(dtype_name(t.type)).c_str(),
                  t.fallback.c_str());
    }
  }
  std::printf("  the weights are random (seed %llu): the model's output is meaningless\n",
              static_cast<unsigned long long>(flags.seed));
}

int run_mkmodel(const MkmodelFlags& flags) {
  // A weight type (with its own mix, if llama.cpp has one), or the name of a mix (q4_k_s,
  // mxfp4_moe, ...: type_mix.h) whose base type is generated.
  auto type = dtype_from_name(flags.type);
  uint32_t mix = 0;
  if (auto ft = mix_file_type(flags.type); !type && ft) {
    type = mix_base_type(*ft);
    mix = *ft;
  }
  if (!type || !can_generate_type(*type)) {
    std::fprintf(stderr, "mkmodel: unsupported --type %s (%s, or a mix: %s)\n", flags.type.c_str(), kMkmodelTypes,
                 mix_names().c_str());
    return 2;
  }
  GenerateOptions o;
  o.arch = flags.arch;
  o.preset = flags.preset;
  o.type = *type;
  o.mix = mix;
  o.vocab_path = flags.vocab_path;
  o.seed = flags.seed;
  o.out_path = flags.out_path;
  o.n_threads = flags.n_threads;
  o.rope_freqs = flags.rope_freqs;
  o.n_layers = flags.n_layers;
  o.split_kv_b = flags.split_kv_b;
  double start_s = monotonic_s();
  auto report = flags.dry_run ? plan_model(o) : generate_model(o);
  if (!report.ok()) {
    std::fprintf(stderr, "mkmodel: %s\n", report.status().ToString().c_str());
    return 1;
  }
  print_report(*report, flags, monotonic_s() - start_s);
  return 0;
}

}  // namespace

void add_mkmodel_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("mkmodel", "Write a GGUF model with deterministic random weights");
  auto flags = std::make_shared<MkmodelFlags>();
  sub->add_option("--arch", flags->arch, kArchHelp)
      ->check(CLI::IsMember(generated_arch_names()));
  sub->add_option("--preset", flags->preset,
                  "dense: tiny, small, 1b, tinyllama, llama3-8b, qwen3-0.6b, gemma3-1b, gemma3-4b, gemma4-e2b, "
                  "gemma4-e4b, gemma4-31b, gemma3n-e2b, gemma3n-e4b, gemma2-2b, phi-4, "
                  "smollm3-3b, ministral-3-8b, qwen3.5-9b, qwen3.5-27b, nemotron-nano-9b-v2, lfm2-1.2b, olmo-2-7b, "
                  "olmo-3-7b, exaone-4.0-1.2b, exaone-4.0-32b, falcon-h1-7b, exaone-3.5-7.8b, afm-4.5b, "
                  "apertus-8b, apertus-70b, bitnet-b1.58-2b-4t; mixture of experts: moe-tiny, qwen3-30b-a3b, "
                  "qwen1.5-moe-a2.7b, mixtral-8x7b, gpt-oss-20b, glm-4.5-air, llama4-scout, deepseek-v2-lite, deepseek-v3 "
                  "(R1's shape too), kimi-k2, minimax-m2, ernie-4.5-21b-a3b, qwen3.5-35b-a3b, qwen3-next-80b-a3b, "
                  "granite-4.0-h-tiny, nemotron-3-nano-30b-a3b, lfm2-8b-a1b, olmoe-1b-7b, "
                  "gemma4-26b-a4b, mistral-small-4, step-3.5-flash, laguna-xs.2, hunyuan-a13b, north-mini-code, "
                  "mimo-v2-flash, glm-5, kimi-linear-48b-a3b")
      ->capture_default_str();
  sub->add_option("--layers", flags->n_layers,
                  "layer count instead of the preset's (same shape, smaller file; glm4moe writes its NextN block after "
                  "them; deepseek2 and lfm2moe keep at least one MoE layer; qwen35 / qwen35moe / qwen3next keep "
                  "attention in every 4th layer and refuse fewer than 4; granitehybrid attends where l % 10 == 5, "
                  "or in the last of fewer "
                  "than 6 layers; nemotron_h / nemotron_h_moe take the preset's pattern from its start, repeating "
                  "it past its end, and where no layer of the cut attends, its last Mamba-2 layer does; lfm2 / "
                  "lfm2moe likewise, where none attends its last layer; bailingmoe3 / kimi-linear likewise (Kimi "
                  "Linear's layer list, or KKK* repeated), where none attends its last layer; gemma4's E2B / E4B and "
                  "gemma3n keep the "
                  "preset's share of shared K/V layers, leaving the first full layer its own, and gemma3n its first 10 "
                  "layers' sparse gates)")
      ->check(CLI::PositiveNumber);
  sub->add_option("-o,--output", flags->out_path, "GGUF file to write")->required();
  sub->add_option("--type", flags->type, std::string("matrix type: ") + kMkmodelTypes +
                  "; K-quants and i-quants take llama.cpp's mix of the name (q4_k: Q4_K_M, q3_k: Q3_K_M; "
                  "iq2_s: IQ2_M, whose matrices are IQ2_S; the lattice i-quants round to nearest, as "
                  "llama.cpp mixes them with an importance matrix); or a mix of strata quantize by name "
                  "(q4_k_s, q3_k_l, mxfp4_moe: the experts MXFP4, every other matrix Q8_0)")
      ->capture_default_str();
  sub->add_option("--vocab-from", flags->vocab_path, "copy tokenizer.* metadata from this GGUF (default: byte vocab)");
  sub->add_option("--seed", flags->seed, "random seed")->capture_default_str();
  sub->add_option("--threads", flags->n_threads, "threads (default: all cores)");
  sub->add_flag("--dry-run", flags->dry_run, "print the plan without writing");
  sub->add_flag("--rope-freqs", flags->rope_freqs,
                "llama: add a Llama 3.1-style rope_freqs.weight (per-pair rope frequency factors)");
  sub->add_flag("--split-kv-b", flags->split_kv_b,
                "deepseek2: write attn_kv_b split per head into attn_k_b and attn_v_b, as newer llama.cpp converters "
                "do (head_count_kv 1, key/value_length of the latent, the head widths as key/value_length_mla); "
                "the values are those attn_kv_b would hold");
  sub->callback([flags, exit_code] { *exit_code = run_mkmodel(*flags); });
}

}  // namespace strata::cli
