#include "modelgen/model_presets.h"

namespace strata {

namespace {

ModelSpec shape(int n_vocab, int n_ctx, int n_embd, int n_layer, int n_head, int n_head_kv, int head_dim, int n_ff,
                float rms_eps, float rope_base, bool tied) {
  ModelSpec s;
  s.n_vocab = n_vocab;
  s.n_ctx = n_ctx;
  s.n_embd = n_embd;
  s.n_layer = n_layer;
  s.n_head = n_head;
  s.n_head_kv = n_head_kv;
  s.head_dim = head_dim;
  s.n_ff = n_ff;
  s.rms_eps = rms_eps;
  s.rope_freq_base = rope_base;
  s.tied_embeddings = tied;
  return s;
}

// A Gemma 4 shape's full layers' heads (its window is the arch's).
ModelSpec gemma4(ModelSpec s, int head_dim_full, int n_head_kv_full) {
  s.head_dim_full = head_dim_full;
  s.n_head_kv_full = n_head_kv_full;
  return s;
}

// Gemma 4 E2B / E4B's parts (Gemma 3n's too) on its shape: its full-layer period, per-layer inputs of
// 256, the last `shared` layers reading earlier K/V (twice as wide when double_wide), a 512-key window.
ModelSpec gemma4_small(ModelSpec s, int period, int shared, bool double_wide) {
  s.gemma4_period = period;
  s.n_embd_per_layer = 256;
  s.n_shared_kv_layers = shared;
  s.n_layer_preset = s.n_layer;
  s.double_wide_shared = double_wide;
  s.sliding_window = 512;
  return s;
}

// A Gemma 3 shape's sliding window and its global layers' linear rope scaling (--arch gemma3
// on other presets gets apply_arch's window, unscaled; another --arch drops both).
ModelSpec gemma(ModelSpec s, int sliding_window, float rope_linear_factor) {
  s.sliding_window = sliding_window;
  s.rope_linear_factor = rope_linear_factor;
  return s;
}

// gpt-oss's window and YaRN factor (another --arch drops both).
ModelSpec gpt_oss(ModelSpec s, int sliding_window, float rope_yarn_factor) {
  s.sliding_window = sliding_window;
  s.rope_yarn_factor = rope_yarn_factor;
  return s;
}

// n_ff_shexp is written only by --arch qwen2moe; glm4moe sets its own, the others drop it.
ModelSpec experts(ModelSpec s, int n_expert, int n_expert_used, int n_ff_exp, int n_ff_shexp) {
  s.n_expert = n_expert;
  s.n_expert_used = n_expert_used;
  s.n_ff_exp = n_ff_exp;
  s.n_ff_shexp = n_ff_shexp;
  return s;
}

// Ministral 3's YaRN and attention temperature (another --arch drops them; mistral3 on a preset
// not Ministral's keeps the preset's rope unscaled and no temperature).
ModelSpec ministral(ModelSpec s, float yarn_factor, float yarn_log_mul, float temp_scale) {
  s.rope_yarn_factor = yarn_factor;
  s.rope_yarn_log_mul = yarn_log_mul;
  s.attn_temp_scale = temp_scale;
  return s;
}

// Laguna XS.2's sliding heads and window, its dense layer, its routing (Step 3.5's, scaled 2.5) and
// its full layers' YaRN.
ModelSpec laguna(ModelSpec s, int n_head_swa, int sliding_window, float yarn_factor) {
  s = preset_parts::step35(s, n_head_swa, sliding_window, 1, 2.5f);
  s.rope_yarn_factor = yarn_factor;
  return s;
}

// A Nemotron-H shape's layer kinds: its hybrid_override_pattern (ModelSpec::layer_pattern; another
// --arch drops it).
ModelSpec nemotron(ModelSpec s, const char* pattern) {
  s.layer_pattern = pattern;
  return s;
}

// An LFM2 shape's layer kinds (its layer_types: 'C' conv, '*' full_attention), its convolution's taps
// (conv_L_cache) and its leading dense layers (num_dense_layers); another --arch drops them.
ModelSpec lfm2_layers(ModelSpec s, const char* layer_types, int l_cache, int n_dense_lead) {
  s.layer_pattern = layer_types;
  s.ssm_conv_kernel = l_cache;
  s.n_dense_lead = n_dense_lead;
  return s;
}

// OLMo 3's sliding window (three of every four layers) and its full layers' YaRN factor (over
// n_ctx / factor original positions); another --arch drops both.
ModelSpec olmo3(ModelSpec s, int sliding_window, float yarn_factor) {
  s.sliding_window = sliding_window;
  s.rope_yarn_factor = yarn_factor;
  return s;
}

// EXAONE 4.0 32B's sliding window and its llama3 rope_scaling (factor over orig_ctx positions), which
// llama.cpp's converter bakes into rope_freqs.weight; another --arch drops both.
ModelSpec exaone4_32b(ModelSpec s, int sliding_window, float factor, int orig_ctx) {
  s.sliding_window = sliding_window;
  s.rope_freqs_factor = factor;
  s.rope_freqs_orig_ctx = orig_ctx;
  return s;
}

// A llama3 rope_scaling (factor over orig_ctx positions), which llama.cpp's converter bakes into
// rope_freqs.weight for EXAONE 3.5; another --arch drops it.
ModelSpec llama3_rope_freqs(ModelSpec s, float factor, int orig_ctx) {
  s.rope_freqs_factor = factor;
  s.rope_freqs_orig_ctx = orig_ctx;
  return s;
}

// A YaRN rope_scaling over a config's own original context (AFM-4.5B's); another --arch drops it.
ModelSpec yarn_over(ModelSpec s, float factor, int orig_ctx) {
  s.rope_yarn_factor = factor;
  s.rope_yarn_orig_ctx = orig_ctx;
  return s;
}

}  // namespace

using namespace preset_parts;

// n_vocab here is used only when no vocabulary file is given (the built-in byte vocab is
// padded up to it).
std::vector<Preset> model_presets() {
  return {
      {"tiny", "llama", shape(259, 512, 64, 2, 4, 2, 16, 128, 1e-5f, 10000.0f, false)},
      {"small", "llama", shape(259, 1024, 256, 4, 8, 4, 32, 768, 1e-5f, 10000.0f, false)},
      // TinyLlama-1.1B.
      {"1b", "llama", shape(32000, 2048, 2048, 22, 32, 4, 64, 5632, 1e-5f, 10000.0f, false)},
      {"tinyllama", "llama", shape(32000, 2048, 2048, 22, 32, 4, 64, 5632, 1e-5f, 10000.0f, false)},
      // Llama-3-8B, the shape most local users run: 4096 wide, 32 query heads over 8 K/V heads
      // of 128, a 128256-token vocabulary, 8192 positions (with --rope-freqs, the rope frequency
      // factors of Llama 3.1-8B, whose original context 8192 is).
      {"llama3-8b", "llama", shape(128256, 8192, 4096, 32, 32, 8, 128, 14336, 1e-5f, 500000.0f, false)},
      // Qwen3-0.6B: head_dim 128 although 1024 / 16 = 64.
      {"qwen3-0.6b", "qwen3", shape(151936, 40960, 1024, 28, 16, 8, 128, 3072, 1e-6f, 1000000.0f, true)},
      // The shape of ../shared/models/moe/tiny-*.gguf (2 layers, 8 experts of 256, shared 192).
      {"moe-tiny", "qwen3moe", experts(shape(259, 2048, 128, 2, 4, 2, 32, 256, 1e-6f, 10000.0f, false), 8, 2, 256, 192)},
      // Qwen3-30B-A3B: q_dim 4096 != n_embd 2048; feed_forward_length 6144 is its dense width.
      // The shared width (qwen2moe only) is 4 experts' worth, Qwen1.5-MoE-A2.7B's ratio.
      {"qwen3-30b-a3b", "qwen3moe",
       experts(shape(151936, 40960, 2048, 48, 32, 4, 128, 6144, 1e-6f, 1000000.0f, false), 128, 8, 768, 3072)},
      // Qwen1.5-MoE-A2.7B (qwen2moe): 60 experts of 1408, 4 used, a shared expert of 5632;
      // head_dim = n_embd / n_head, the only shape llama.cpp's qwen2moe reads.
      {"qwen1.5-moe-a2.7b", "qwen2moe",
       experts(shape(151936, 8192, 2048, 24, 16, 16, 128, 5632, 1e-6f, 1000000.0f, false), 60, 4, 1408, 5632)},
      // Gemma 3 1B: 4 query heads of 256 over one K/V head, a 262144-token vocabulary, tied
      // embeddings, a sliding window of 512 keys in 5 of every 6 layers.
      // Gemma 4 31B (its text part): 32 query heads; in 5 of every 6 layers 16 K/V heads of 256
      // over a 1024-key window, in the others 4 K/V heads of 512 (v from k) over every key.
      {"gemma4-31b", "gemma4", gemma4(shape(262144, 262144, 5376, 60, 32, 16, 256, 21504, 1e-6f, 1000000.0f, true), 512, 4)},
      // Gemma 4 E2B and E4B (their text parts): 8 query heads; 1 or 2 K/V heads of 256 over a 512-key
      // window, in every 5th (7th) layer and the last of 512; per-layer inputs of 256; the last
      // 20 of 35 (18 of 42) layers reading earlier K/V, the E2B's twice as wide.
      {"gemma4-e2b", "gemma4",
       gemma4_small(gemma4(shape(262144, 131072, 1536, 35, 8, 1, 256, 6144, 1e-6f, 1000000.0f, true), 512, 1), 5, 20,
                    true)},
      {"gemma4-e4b", "gemma4",
       gemma4_small(gemma4(shape(262144, 131072, 2560, 42, 8, 2, 256, 10240, 1e-6f, 1000000.0f, true), 512, 2), 7, 18,
                    false)},
      // Gemma 3n E2B and E4B (their text parts): 8 query heads over 2 K/V heads of 256, every 5th layer full, the
      // rest over 512 keys; per-layer inputs of 256; the last 10 of 30 (15 of 35) layers reading earlier K/V.
      {"gemma3n-e2b", "gemma3n",
       gemma4_small(shape(262144, 32768, 2048, 30, 8, 2, 256, 8192, 1e-6f, 1000000.0f, true), 5, 10, false)},
      {"gemma3n-e4b", "gemma3n",
       gemma4_small(shape(262144, 32768, 2048, 35, 8, 2, 256, 16384, 1e-6f, 1000000.0f, true), 5, 15, false)},
      {"gemma3-1b", "gemma3", gemma(shape(262144, 32768, 1152, 26, 4, 1, 256, 6912, 1e-6f, 1000000.0f, true), 512, 1.0f)},
      // Gemma 3 4B (its text part): 8 query heads of 256 over 4 K/V heads, a 1024-key window, and
      // linear rope scaling 8 in its global layers.
      {"gemma3-4b", "gemma3",
       gemma(shape(262144, 131072, 2560, 34, 8, 4, 256, 10240, 1e-6f, 1000000.0f, true), 1024, 8.0f)},
      // gpt-oss-20b: 32 experts of 2880, 4 used; 64 query heads of 64 over 8 K/V heads; a
      // 128-key window in every other layer; YaRN 32 over an original context of 4096.
      {"gpt-oss-20b", "gpt-oss",
       gpt_oss(experts(shape(201088, 131072, 2880, 24, 64, 8, 64, 2880, 1e-5f, 150000.0f, false), 32, 4, 2880, 0), 128,
               32.0f)},
      // Gemma 2 2B: 8 query heads of 256 over 4 K/V heads, a 256000-token vocabulary, tied
      // embeddings, a 4096-key window in every other layer.
      {"gemma2-2b", "gemma2", gemma(shape(256000, 8192, 2304, 26, 8, 4, 256, 9216, 1e-6f, 10000.0f, true), 4096, 1.0f)},
      // Phi-4 (14B): 40 query heads of 128 over 10 K/V heads, a 100352-token vocabulary, no
      // window (its files say 0).
      {"phi-4", "phi3", shape(100352, 16384, 5120, 40, 40, 10, 128, 17920, 1e-5f, 250000.0f, false)},
      // SmolLM3-3B: 16 query heads of 128 over 4 K/V heads, Llama 3's vocabulary, tied
      // embeddings, no rope in every 4th layer (the arch's).
      {"smollm3-3b", "smollm3", shape(128256, 65536, 2048, 36, 16, 4, 128, 11008, 1e-6f, 5000000.0f, true)},
      // Ministral 3 8B (its text part): 32 query heads of 128 over 8 K/V heads, a 131072-token
      // vocabulary, YaRN 16 over 16384 positions (mscale_all_dim 1) and an attention temperature of 0.1.
      {"ministral-3-8b", "mistral3",
       ministral(shape(131072, 262144, 4096, 34, 32, 8, 128, 14336, 1e-5f, 1000000.0f, false), 16.0f, 1.0f, 0.1f)},
      // Mixtral-8x7B.
      {"mixtral-8x7b", "mixtral",
       experts(shape(32000, 32768, 4096, 32, 32, 8, 128, 14336, 1e-5f, 1000000.0f, false), 8, 2, 14336, 14336)},
      // GLM-4.5-Air: 96 query heads of 128 over 8 K/V heads (q_dim 12288, three times n_embd),
      // 128 experts of 1408 with 8 used and one shared; its first layer dense (10944 wide), and
      // a NextN block after the 46 layers (apply_arch).
      {"glm-4.5-air", "glm4moe",
       experts(shape(151552, 131072, 4096, 46, 96, 8, 128, 10944, 1e-5f, 1000000.0f, false), 128, 8, 1408, 1408)},
      // Llama 4 Scout (17B active, 16 experts): 40 query heads of 128 over 8 K/V heads, 16
      // experts of 8192 with 1 used and a shared one in every layer, a 202048-token vocabulary;
      // its dense width (16384, Maverick's dense layers') unused (apply_arch).
      {"llama4-scout", "llama4",
       experts(shape(202048, 262144, 5120, 48, 40, 8, 128, 16384, 1e-5f, 500000.0f, false), 16, 1, 8192, 8192)},
      // DeepSeek-V2-Lite (16B): 16 heads with keys of 128 + 64 rope and values of 128 from a
      // 512-wide latent, queries without a bottleneck; its first layer dense (10944 wide), then 64
      // experts of 1408 with 6 used and 2 shared, softmax routing unnormalised; YaRN 40 over 4096
      // positions (mscale_all_dim 0.707).
      {"deepseek-v2-lite", "deepseek2",
       deepseek_moe(mla(experts(shape(102400, 163840, 2048, 27, 16, 16, 192, 10944, 1e-6f, 10000.0f, false), 64, 6,
                                1408, 2816),
                        0, 512, 64, 128),
                    1, false, false, 1.0f, 40.0f, 0.0707f)},
      // DeepSeek-V3 (671B; R1 has its shape): 128 heads as V2-Lite's, queries through a rank-1536
      // bottleneck; 3 dense layers (18432 wide), then 256 experts of 2048 with 8 used and one
      // shared, sigmoid routing with a selection bias, normalised and scaled by 2.5 (its 8 expert
      // groups of which 4 are used are not written, as llama.cpp's converter of Feb 2025 does not).
      {"deepseek-v3", "deepseek2",
       deepseek_moe(mla(experts(shape(129280, 163840, 7168, 61, 128, 128, 192, 18432, 1e-6f, 10000.0f, false), 256,
                                8, 2048, 2048),
                        1536, 512, 64, 128),
                    3, true, true, 2.5f, 40.0f, 0.1f)},
      // Kimi K2 (1T): DeepSeek-V3's layout with 64 heads, 384 experts, one dense layer, a
      // 163840-token vocabulary, scale 2.827, rope base 50000 and YaRN 32 over 4096 positions.
      {"kimi-k2", "deepseek2",
       deepseek_moe(mla(experts(shape(163840, 131072, 7168, 61, 64, 64, 192, 18432, 1e-6f, 50000.0f, false), 384, 8,
                                2048, 2048),
                        1536, 512, 64, 128),
                    1, true, true, 2.827f, 32.0f, 0.1f)},
      // Mistral Small 4 (119B-A6B): 32 heads with keys of 64 + 64 rope and values of 128 from a
      // 256-wide latent, queries through a rank-1024 bottleneck; no dense layer, 128 experts of 2048
      // with 4 used and one shared, softmax routing normalised, unscaled; YaRN 128 over 8192
      // positions (mscale_all_dim 1); a 131072-token vocabulary (tekken).
      {"mistral-small-4", "mistral4",
       deepseek_moe(mla(experts(shape(131072, 1048576, 4096, 36, 32, 32, 128, 12288, 1e-6f, 10000.0f, false), 128,
                                4, 2048, 2048),
                        1024, 256, 64, 128),
                    0, false, true, 1.0f, 128.0f, 0.1f)},
      // ERNIE 4.5 21B-A3B: 20 query heads of 128 over 4 K/V heads, a 103424-token vocabulary, tied
      // embeddings; its first layer dense (12288 wide), then 64 experts of 1536 with 6 used and two
      // shared (3072).
      {"ernie-4.5-21b-a3b", "ernie4_5-moe",
       experts(shape(103424, 131072, 2560, 28, 20, 4, 128, 12288, 1e-5f, 500000.0f, true), 64, 6, 1536, 3072)},
      // MiniMax-M2 (230B, 10B active): 48 query heads of 128 over 8 K/V heads (q_dim 6144, twice
      // n_embd), rope over 64 of each head's 128, 256 experts of 1536 with 8 used, no shared
      // expert, a 200064-token vocabulary.
      {"minimax-m2", "minimax-m2",
       experts(shape(200064, 196608, 3072, 62, 48, 8, 128, 1536, 1e-6f, 5000000.0f, false), 256, 8, 1536, 0)},
      // Qwen3.5-35B-A3B (its text part): 40 layers, every 4th attending with 16 gated query heads of
      // 256 over 2 K/V heads, the others delta-net layers of 16 key heads and 32 value heads of
      // 128; 256 experts of 512 with 8 used beside a gated shared expert of 512, a 248320-token
      // vocabulary, 262144 positions. Every layer has experts, so feed_forward_length (written as
      // the expert width) is read by nothing.
      {"qwen3.5-35b-a3b", "qwen35moe",
       delta_net(experts(shape(248320, 262144, 2048, 40, 16, 2, 256, 512, 1e-6f, 10000000.0f, false), 256, 8, 512,
                         512),
                 16, 128, 32, 128)},
      // Qwen3.5-9B: 32 layers, 16 gated query heads of 256 over 4 K/V heads every 4th, delta-net
      // layers of 16 key heads and 32 value heads of 128 between, a dense feed-forward of 12288.
      {"qwen3.5-9b", "qwen35",
       delta_net(shape(248320, 262144, 4096, 32, 16, 4, 256, 12288, 1e-6f, 10000000.0f, false), 16, 128, 32, 128)},
      // Qwen3.5-27B: 64 layers, 24 gated query heads of 256 over 4 K/V heads every 4th, delta-net
      // layers of 16 key heads and 48 value heads of 128 between, a dense feed-forward of 17408.
      {"qwen3.5-27b", "qwen35",
       delta_net(shape(248320, 262144, 5120, 64, 24, 4, 256, 17408, 1e-6f, 10000000.0f, false), 16, 128, 48, 128)},
      // Qwen3-Next-80B-A3B (Instruct and Thinking): 48 layers, every 4th attending with 16 gated
      // query heads of 256 over 2 K/V heads, the others delta-net layers of 16 key heads and 32
      // value heads of 128 (their projections fused per key head); 512 experts of 512 with 10
      // used beside a gated shared expert of 512, Qwen2's 151936-token vocabulary.
      {"qwen3-next-80b-a3b", "qwen3next",
       delta_net(experts(shape(151936, 262144, 2048, 48, 16, 2, 256, 512, 1e-6f, 10000000.0f, false), 512, 10, 512,
                         512),
                 16, 128, 32, 128)},
      // IBM Granite 4.0-H Tiny (about 6.9B parameters, 1.5B active), as its GGUF files' metadata
      // has it: 40 layers, attending where l % 10 == 5 with 12 query heads of 128 over 4 K/V heads
      // (no rope), the others Mamba-2 layers of 48 heads of 64 values (inner size 3072) over one
      // group of 128 state values with a 4-tap convolution; every layer 64 experts of 512 with 6
      // used beside a shared expert of 1024; a 100352-token vocabulary, tied embeddings. Its context
      // is its config's max_position_embeddings, 131072 (llama.cpp's converter writes 2^20 for a
      // model without rope; Strata reads either).
      {"granite-4.0-h-tiny", "granitehybrid",
       mamba2(experts(shape(100352, 131072, 1536, 40, 12, 4, 128, 512, 1e-5f, 10000.0f, true), 64, 6, 512, 1024), 48,
              64, 1, 128)},
      // NVIDIA Nemotron Nano 9B v2 (NVIDIA-Nemotron-Nano-9B-v2, about 8.9B parameters), as its config
      // has it: 56 layers of its hybrid_override_pattern, 27 Mamba-2 layers of 128 heads of 80 values
      // (inner size 10240) over 8 groups of 128 state values with a 4-tap convolution, 4 attention
      // layers of 40 query heads of 128 over 8 K/V heads (no rope; 40 x 128 = 5120 > 4480 wide), 25
      // squared-ReLU feed-forward layers of 15680; a 131072-token vocabulary, untied embeddings. Its
      // context is its max_position_embeddings, 131072 (llama.cpp's converter writes 2^20 for a model
      // without rope; Strata reads either).
      {"nemotron-nano-9b-v2", "nemotron_h",
       nemotron(mamba2(shape(131072, 131072, 4480, 56, 40, 8, 128, 15680, 1e-5f, 10000.0f, false), 128, 80, 8, 128),
                "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-")},
      // Liquid LFM2-1.2B (1,170,340,608 parameters), as its config has it: 16 layers, attending at 2, 5,
      // 8, 10, 12 and 14 (32 query heads of 64 over 8 K/V heads, QK-norm), the others short
      // convolutions over 3 taps; every layer a SwiGLU feed-forward of 8192 (block_ff_dim 12288 as its
      // block_auto_adjust_ff_dim gives it: 2/3 of it, to a multiple of 256, as llama.cpp's converter
      // writes it); a 65536-token vocabulary, tied embeddings, 128000 positions, rope base 1000000.
      {"lfm2-1.2b", "lfm2",
       lfm2_layers(shape(65536, 128000, 2048, 16, 32, 8, 64, 8192, 1e-5f, 1000000.0f, true), "CC*CC*CC*C*C*C*C", 3, 0)},
      // AI2 OLMo 2 1124 7B (7,298,617,344 parameters), as its config has it: 32 layers of 32 query heads
      // over 32 K/V heads of 128, a feed-forward of 11008, 100352 tokens, 4096 positions, rope base
      // 500000, eps 1e-6, an output matrix. OLMo 3 7B: the same layers with a 4096-key window in three of
      // every four, the fourth's rope YaRN 8 over 8192 of its 65536 positions, 100278 tokens.
      {"olmo-2-7b", "olmo2", shape(100352, 4096, 4096, 32, 32, 32, 128, 11008, 1e-6f, 500000.0f, false)},
      {"olmo-3-7b", "olmo2",
       olmo3(shape(100278, 65536, 4096, 32, 32, 32, 128, 11008, 1e-6f, 500000.0f, false), 4096, 8.0f)},
      // LG EXAONE 4.0 1.2B (1,279,391,488 parameters): 30 layers of 32 query heads over 8 K/V heads of
      // 64, a feed-forward of 4096, 102400 tokens, tied embeddings, 65536 positions, rope base 1000000.
      // EXAONE 4.0 32B (32,003,216,448): 64 layers of 40 query heads over 8 K/V heads of 128, a
      // feed-forward of 27392, an output matrix, 131072 positions; three of every four layers slide over
      // 4096 keys, the others have no rope; its llama3 rope scaling (16 over 8192) as rope_freqs.
      {"exaone-4.0-1.2b", "exaone4", shape(102400, 65536, 2048, 30, 32, 8, 64, 4096, 1e-5f, 1000000.0f, true)},
      {"exaone-4.0-32b", "exaone4",
       exaone4_32b(shape(102400, 131072, 5120, 64, 40, 8, 128, 27392, 1e-5f, 1000000.0f, false), 4096, 16.0f, 8192)},
      // TII Falcon-H1-7B (7,585,654,880 parameters; 7.59B on its model page), as its config has it: 44
      // layers, each Mamba-2 of 24 heads of 128 values (mamba_d_ssm 3072) over one group of 256 state values
      // with a 4-tap convolution beside attention of 12 query heads over 2 K/V heads of 128, then a SwiGLU
      // feed-forward of 12288; 130049 tokens, 262144 positions, rope base 1e11, an output matrix.
      {"falcon-h1-7b", "falcon-h1",
       mamba2(shape(130049, 262144, 3072, 44, 12, 2, 128, 12288, 1e-5f, 1e11f, false), 24, 128, 1, 256)},
      // LG EXAONE 3.5 7.8B (7,818,448,960 parameters; 6.98B without embeddings, as its card says): 32 layers
      // of 32 query heads over 8 K/V heads of 128, a feed-forward of 14336, 102400 tokens, 32768 positions,
      // rope base 1000000 with llama3 scaling 8 over 8192 (rope_freqs), an output matrix.
      {"exaone-3.5-7.8b", "exaone",
       llama3_rope_freqs(shape(102400, 32768, 4096, 32, 32, 8, 128, 14336, 1e-5f, 1000000.0f, false), 8.0f, 8192)},
      // Arcee AFM-4.5B (4,619,189,760 parameters; 4.6B on its model page): 36 layers of 20 query heads over
      // 4 K/V heads of 128, a squared-ReLU feed-forward of 18432 without a gate, 128005 tokens, 65536
      // positions, rope base 10000 with YaRN 20 over 4096, an output matrix.
      {"afm-4.5b", "arcee",
       yarn_over(shape(128005, 65536, 2560, 36, 20, 4, 128, 18432, 1e-5f, 10000.0f, false), 20.0f, 4096)},
      // Swiss AI Apertus 8B (8,053,338,112 parameters here; its card's 8,053,338,176 adds the 64 xIELU
      // alpha_p / alpha_n scalars, metadata in GGUF) and 70B (70,599,864,320): 32 layers of 32 query heads
      // (80 of 64) over 8 K/V heads of 128 with QK-norm per head, an xIELU feed-forward of 21504 (43008)
      // without a gate, 131072 tokens, 65536 positions, rope base 12000000 (NeoX: the arch's), an output
      // matrix; each layer's xielu.* values are the generator's (layer_keys.h).
      {"apertus-8b", "apertus", shape(131072, 65536, 4096, 32, 32, 8, 128, 21504, 1e-5f, 12000000.0f, false)},
      {"apertus-70b", "apertus", shape(131072, 65536, 8192, 80, 64, 8, 128, 43008, 1e-5f, 12000000.0f, false)},
      // Microsoft BitNet b1.58 2B4T (2,412,820,480 parameters: 2,084,485,120 besides the 328,335,360 of its
      // embedding table, its card's 2B): 30 layers of 20 query heads over 5 K/V heads of 128 with their
      // sub-norms, a relu^2-gated feed-forward of 6912 (the arch's), Llama 3's 128256 tokens, 4096 positions,
      // rope base 500000, tied embeddings.
      {"bitnet-b1.58-2b-4t", "bitnet-b1.58", shape(128256, 4096, 2560, 30, 20, 5, 128, 6912, 1e-5f, 500000.0f, true)},
      // NVIDIA Nemotron 3 Nano 30B-A3B (about 31.6B parameters, 3.6B active), as its config has it: 52
      // layers of its hybrid_override_pattern, 23 Mamba-2 layers of 64 heads of 64 values (inner size
      // 4096) over 8 groups of 128 state values, 6 attention layers of 32 query heads of 128 over 2 K/V
      // heads (no rope), 23 layers of 128 squared-ReLU experts of 1856 with 6 used (sigmoid routing,
      // normalised, times 2.5: the arch's) beside a shared expert of 3712; a 131072-token vocabulary,
      // untied embeddings, 262144 positions.
      {"nemotron-3-nano-30b-a3b", "nemotron_h_moe",
       nemotron(mamba2(experts(shape(131072, 262144, 2688, 52, 32, 2, 128, 1856, 1e-5f, 10000.0f, false), 128, 6, 1856,
                               3712),
                       64, 64, 8, 128),
                "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME")},
      // Liquid LFM2-8B-A1B (8,339,930,560 parameters, 1,557,740,992 read per token), as its config has
      // it: 24 layers, attending at 2, 6, 10, 14, 18 and 21 (32 query heads of 64 over 8 K/V heads,
      // QK-norm), the others short convolutions over 3 taps; 2 leading dense layers of 7168, then 32
      // experts of 1792 with 4 used (sigmoid gates with a selection bias, renormalised: the arch's), no
      // shared expert; a 65536-token vocabulary, tied embeddings, 128000 positions, rope base 1000000.
      {"lfm2-8b-a1b", "lfm2moe",
       lfm2_layers(experts(shape(65536, 128000, 2048, 24, 32, 8, 64, 7168, 1e-5f, 1000000.0f, true), 32, 4, 1792, 0),
                  "CC*CCC*CCC*CCC*CCC*CC*CC", 3, 2)},
      // AI2 OLMoE-1B-7B-0924 (6,919,161,856 parameters, 1,282,017,280 read per token): 16 layers of 16
      // query heads over 16 K/V heads of 128 with QK-norm over whole rows, 64 experts of 1024 in every
      // layer with 8 used (softmax, weights as they are: the arch's), no shared expert; 50304 tokens,
      // 4096 positions, rope base 10000, eps 1e-5, an output matrix.
      {"olmoe-1b-7b", "olmoe",
       experts(shape(50304, 4096, 2048, 16, 16, 16, 128, 1024, 1e-5f, 10000.0f, false), 64, 8, 1024, 0)},
      // Gemma 4 26B-A4B (its text part): 16 query heads; 8 K/V heads of 256 over a 1024-key window in 5
      // of every 6 layers, 2 of 512 in the others; every layer's dense feed-forward of 2112 beside
      // 128 experts of 704, 8 used.
      {"gemma4-26b-a4b", "gemma4",
       gemma4(experts(shape(262144, 262144, 2816, 30, 16, 8, 256, 2112, 1e-6f, 1000000.0f, true), 128, 8, 704, 0), 512,
              2)},
      // Hunyuan-A13B (80B): 32 query heads of 128 over 8 K/V heads, QK-norm, every layer 64 experts of
      // 3072 with 8 used beside an ungated shared expert of 3072; rope base 10000 * 1000^(128/126)
      // (its NTK alpha of 1000, as llama.cpp's converter bakes it in); tied embeddings.
      {"hunyuan-a13b", "hunyuan-moe",
       experts(shape(128167, 262144, 4096, 32, 32, 8, 128, 3072, 1e-5f, 11158839.925f, true), 64, 8, 3072, 3072)},
      // Cohere's North-Mini-Code-1.0 (31B): 32 query heads of 128 over 4 K/V heads, a 4096-key window
      // in the layers l % 4 != 0; one dense layer of 3072, then 128 experts of 768 with 8 used
      // (sigmoid gates as they are); rope base 50000, an output matrix.
      {"north-mini-code", "cohere2_moe",
       experts(shape(262144, 500000, 2048, 49, 32, 4, 128, 3072, 1e-6f, 50000.0f, false), 128, 8, 768, 0)},
      // Poolside Laguna XS.2 (33B-A3B): 48 query heads of 128 in the full layers (every 4th), 64 in the
      // sliding ones (a 512-key window), 8 K/V heads; one dense layer of 8192, then 256 experts of
      // 512 with 8 used beside a shared expert of 512, sigmoid routing normalised, times 2.5; the
      // full layers' rope on base 500000 with YaRN 32 over 8192 positions (config values as
      // published for XS.2; not checked against a file here).
      {"laguna-xs.2", "laguna",
       laguna(experts(shape(100352, 262144, 2048, 40, 48, 8, 128, 8192, 1e-6f, 500000.0f, false), 256, 8, 512, 512),
              64, 512, 32.0f)},
      // Step 3.5 Flash (196B-A11B): 64 query heads of 128 in the full layers, 96 in the sliding
      // ones (a 512-key window), 8 K/V heads; 3 dense layers (11264 wide), then 288 experts of 1280
      // with 8 used beside a shared expert of 1280, routed by sigmoid gates, normalised, times 3.
      // MiMo-V2-Flash (310B-A15B): 64 query heads; key heads of 192 (64 rotated), value heads of 128;
      // in the full layers (0, 5, 11, ..., 47) 4 K/V heads on rope base 5000000, in the others 8
      // over a 128-key window on base 10000 with sinks; one dense layer of 16384, then 256 experts
      // of 2048 with 8 used, sigmoid routing normalised, no shared expert (config values as
      // published; not checked against a file here).
      {"mimo-v2-flash", "mimo2",
       mimo2(experts(shape(152576, 262144, 4096, 48, 64, 8, 192, 16384, 1e-5f, 5000000.0f, false), 256, 8, 2048, 0), 4,
             128, 64, 128)},
      {"step-3.5-flash", "step35",
       step35(experts(shape(128896, 262144, 4096, 45, 64, 8, 128, 11264, 1e-5f, 5000000.0f, false), 288, 8, 1280,
                      1280),
              96, 512, 3, 3.0f)},
      // GLM-5 (744B-A40B): DeepSeek-V3's layout with 64 heads of 192 + 64 rope, value heads of 256, a
      // rank-2048 query bottleneck; 3 dense layers (12288 wide), then 256 experts of 2048 with 8 used
      // and one shared, sigmoid routing normalised and scaled by 2.5, rope base 1000000 without YaRN;
      // a sparse-attention indexer of 32 heads of 128 keeping 2048 keys; one NextN block (config
      // values as published; not checked against a file here).
      {"glm-5", "glm-dsa",
       dsa_indexer(deepseek_moe(mla(experts(shape(154880, 202752, 6144, 78, 64, 64, 256, 12288, 1e-5f, 1000000.0f,
                                                  false),
                                            256, 8, 2048, 2048),
                                    2048, 512, 64, 256),
                                3, true, true, 2.5f, 1.0f, 0.0f),
                   32, 128, 2048)},
      // Moonshot Kimi-Linear-48B-A3B-Instruct, as its config.json has it: 27 layers 2304 wide; latent
      // attention without rope in layers 4, 8, ..., 24 and 27 (1-indexed, its full_attn_layers), 32 heads
      // with keys of 128 + 64 and values of 128 from a 512-wide latent, no query bottleneck; Kimi Delta
      // Attention in the other 20, 32 heads of 128 over 4-tap convolutions, its decay and gate inputs
      // through rank 128 (the KDA head: f_a_proj / g_a_proj); its first layer dense (9216 wide), then 256
      // experts of 1024 with 8 used beside one shared, sigmoid routing with a selection bias, renormalised,
      // times 2.446; 163840 tokens, eps 1e-5, rope base 10000 (unused), an output matrix. Read from two
      // third-party copies of the config that agree (not moonshotai's own page): its context here is
      // model_max_length 1048576 (no max_position_embeddings seen), and the parameter count (about 49.1B
      // with embeddings) is not checked against a published total (its card says 48B).
      {"kimi-linear-48b-a3b", "kimi-linear",
       kda(deepseek_moe(mla(experts(shape(163840, 1048576, 2304, 27, 32, 32, 192, 9216, 1e-5f, 10000.0f, false), 256,
                                    8, 1024, 1024),
                            0, 512, 64, 128),
                        1, true, true, 2.446f, 1.0f, 0.0f),
           128, 4, "KKK*KKK*KKK*KKK*KKK*KKK*KK*")},
  };
}

}  // namespace strata
