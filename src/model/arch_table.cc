#include "model/arch_table.h"

namespace strata {
namespace {

// Output weights are never listed: every architecture falls back to the token embedding
// when output.weight is absent (tied embeddings), which is what llama-family files expect.
constexpr ArchTraits kArchs[] = {
    // name       rope_neox qkv_bias qk_norm experts norm_topk embed_scaled post_norms gelu sliding
    {"llama",     false,    false,   false,  false,  true,     false,       false,     false, 0, 0.0f},
    {"qwen2",     true,     true,    false,  false,  false,    false,       false,     false, 0, 0.0f},
    {"qwen3",     true,     false,   true,   false,  false,    false,       false,     false, 0, 0.0f},
    {"qwen2moe",  true,     true,    false,  true,   false,    false,       false,     false, 0, 0.0f},
    {"qwen3moe",  true,     false,   true,   true,   true,     false,       false,     false, 0, 0.0f},
    {"gemma3",    true,     false,   true,   false,  false,    true,        true,      true,  6, 10000.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0, /*wide_attn_scale_layers=*/62},
    // Gemma 2: Gemma 3's parts without QK-norm, every other layer sliding on the global rope,
    // and soft-capped attention scores and logits.
    {"gemma2",    true,     false,   false,  false,  false,    true,        true,      true,  2, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/false, /*softcaps=*/true, /*default_sliding_window=*/4096, /*wide_attn_scale_layers=*/46},
    // Routing weights: a softmax over the k chosen logits, which is the renormalised softmax
    // over all (the best logit is the maximum of both).
    {"gpt-oss",   true,     true,    false,  true,   true,     false,       false,     false, 2, 0.0f,
     /*attn_sinks=*/true, /*swiglu_oai=*/true, /*ffn_norm_name=*/"post_attention_norm"},
    {"phi3",      true,     false,   false,  false,  false,    false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/true,
     /*ffn_up_gate_fused=*/true},
    // GLM-4 (0414: 9B, 32B, Z1): q/k/v biases when the file has them (or one attn_qkv with one
    // attn_qkv.bias), rope on adjacent pairs over rope.dimension_count dims of each head, the
    // attention and feed-forward outputs RMS-normed before their residual adds (Gemma's
    // post-norms), and the gate and up projections in one ffn_up, gate rows first.
    {"glm4",      false,    false,   false,  false,  false,    false,       true,      false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/true},
    // GLM-4.5, 4.5-Air, 4.6: q/k/v biases, QK-norm when the file has it (the 355B), rope over
    // half of each head (rope.dimension_count), dense leading layers, sigmoid routing with a
    // selection bias, and an ungated shared expert; the feed-forward norm is post_attention_norm.
    {"glm4moe",   true,     true,    false,  true,   true,     false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"post_attention_norm",
     /*sliding_every_layer=*/false, /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0,
     /*wide_attn_scale_layers=*/0, /*sigmoid_router=*/true, /*ungated_shared_expert=*/true},
    // Llama 4 (Scout, Maverick), text only: see ArchTraits::llama4.
    {"llama4",    false,    false,   false,  true,   false,    false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0, /*wide_attn_scale_layers=*/0,
     /*sigmoid_router=*/true, /*ungated_shared_expert=*/true, /*llama4=*/true, /*nope_layer_step=*/4},
    // SmolLM3: llama with no rope in every 4th layer.
    {"smollm3",   false,    false,   false,  false,  false,    false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0, /*wide_attn_scale_layers=*/0,
     /*sigmoid_router=*/false, /*ungated_shared_expert=*/false, /*llama4=*/false, /*nope_layer_step=*/4},
    // DeepSeek-V2, V2-Lite, V3, R1, Kimi K2: Multi-head Latent Attention, leading dense layers,
    // experts by softmax (V2) or, as the file says, sigmoid plus a selection bias (V3), and
    // shared experts added without a gate.
    {"deepseek2", false,    false,   false,  true,   false,    false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0, /*wide_attn_scale_layers=*/0,
     /*sigmoid_router=*/false, /*ungated_shared_expert=*/true, /*llama4=*/false, /*nope_layer_step=*/0,
     /*mla=*/true},
    // Mistral Small 4 (mistral4): DeepSeek-V3's layers (latent attention, YaRN), its files in
    // llama.cpp's newer layout (attn_k_b / attn_v_b, experts as one ffn_gate_up_exps) and without
    // a gating key: softmax routing.
    {"mistral4",  false,    false,   false,  true,   false,    false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0, /*wide_attn_scale_layers=*/0,
     /*sigmoid_router=*/false, /*ungated_shared_expert=*/true, /*llama4=*/false, /*nope_layer_step=*/0,
     /*mla=*/true},
    // MiniMax-M2 (M2, M2.1, M2.5): QK-norm over each whole q and k row, rope over part of each
    // head (rope.dimension_count), experts by sigmoid gate values plus a selection bias,
    // renormalised, no shared expert.
    {"minimax-m2", true,    false,   true,   true,   true,     false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0, /*wide_attn_scale_layers=*/0,
     /*sigmoid_router=*/true, /*ungated_shared_expert=*/false, /*llama4=*/false, /*nope_layer_step=*/0,
     /*mla=*/false, /*qk_norm_whole_row=*/true},
    // ERNIE 4.5 (0.3B) and its experts (21B-A3B, 300B-A47B): Llama's layers (q/k/v/output
    // biases used when the file has them); the MoE form's leading dense layers and interleave step
    // are the file's, experts chosen by softmax probability plus a selection bias, renormalised,
    // beside an ungated shared expert.
    {"ernie4_5",  false,    false,   false,  false,  false,    false,       false,     false, 0, 0.0f},
    {"ernie4_5-moe", false, false,   false,  true,   true,     false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0, /*wide_attn_scale_layers=*/0,
     /*sigmoid_router=*/false, /*ungated_shared_expert=*/true},
    // Ministral 3 (3B, 8B, 14B), text only: see ArchTraits::mistral3.
    {"mistral3",  false,    false,   false,  false,  false,    false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"ffn_norm", /*sliding_every_layer=*/false,
     /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0, /*wide_attn_scale_layers=*/0,
     /*sigmoid_router=*/false, /*ungated_shared_expert=*/false, /*llama4=*/false, /*nope_layer_step=*/0,
     /*mla=*/false, /*qk_norm_whole_row=*/false, /*mistral3=*/true},
    // Qwen3.5 / 3.6 (0.8B to 27B) and their experts (35B-A3B, 122B-A10B, 397B-A17B), text only:
    // hybrid layers (see ArchTraits::gated_delta_net), QK-norm in the attention layers, the
    // feed-forward norm stored as post_attention_norm, softmax routing renormalised beside a
    // sigmoid-gated shared expert.
    {"qwen35",    true,     false,   true,   false,  false,    false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"post_attention_norm",
     /*sliding_every_layer=*/false, /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0,
     /*wide_attn_scale_layers=*/0, /*sigmoid_router=*/false, /*ungated_shared_expert=*/false, /*llama4=*/false,
     /*nope_layer_step=*/0, /*mla=*/false, /*qk_norm_whole_row=*/false, /*mistral3=*/false, /*gated_delta_net=*/true,
     /*delta_net_grouped=*/false, /*mrope=*/ArchTraits::MRope::kInterleaved},
    {"qwen35moe", true,     false,   true,   true,   true,     false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"post_attention_norm",
     /*sliding_every_layer=*/false, /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0,
     /*wide_attn_scale_layers=*/0, /*sigmoid_router=*/false, /*ungated_shared_expert=*/false, /*llama4=*/false,
     /*nope_layer_step=*/0, /*mla=*/false, /*qk_norm_whole_row=*/false, /*mistral3=*/false, /*gated_delta_net=*/true,
     /*delta_net_grouped=*/false, /*mrope=*/ArchTraits::MRope::kInterleaved},
    // Qwen3-Next (80B-A3B Instruct and Thinking): Qwen3.5's experts with the delta-net inputs
    // fused per key head (ArchTraits::delta_net_grouped).
    {"qwen3next", true,     false,   true,   true,   true,     false,       false,     false, 0, 0.0f,
     /*attn_sinks=*/false, /*swiglu_oai=*/false, /*ffn_norm_name=*/"post_attention_norm",
     /*sliding_every_layer=*/false, /*ffn_up_gate_fused=*/false, /*softcaps=*/false, /*default_sliding_window=*/0,
     /*wide_attn_scale_layers=*/0, /*sigmoid_router=*/false, /*ungated_shared_expert=*/false, /*llama4=*/false,
     /*nope_layer_step=*/0, /*mla=*/false, /*qk_norm_whole_row=*/false, /*mistral3=*/false, /*gated_delta_net=*/true,
     /*delta_net_grouped=*/true},
    // The language models of Qwen2-VL / Qwen2.5-VL, Qwen3-VL and Qwen3-VL-MoE (the files
    // llama.cpp's converter writes beside an mmproj file), text only: Qwen2's, Qwen3's and
    // Qwen3-MoE's layers with M-RoPE (ArchTraits::mrope).
    {.name = "qwen2vl", .rope_neox = true, .requires_qkv_bias = true, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .mrope = ArchTraits::MRope::kSectioned},
    {.name = "qwen3vl", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .mrope = ArchTraits::MRope::kInterleaved},
    {.name = "qwen3vlmoe", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = true, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .mrope = ArchTraits::MRope::kInterleaved},
    // IBM Granite 3.x and 4.0 (dense: 2B, 8B, Micro) and Granite 3.x MoE (1B-A400M, 3B-A800M):
    // Google Gemma 4: see ArchTraits::gemma4.
    {.name = "gemma4", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = false, .moe_norm_topk = true, .embed_scaled = true, .post_norms = true, .ffn_gelu = true,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .gemma4 = true},
    // Google Gemma 3n: see ArchTraits::gemma3n.
    {.name = "gemma3n", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = false, .moe_norm_topk = true, .embed_scaled = true, .post_norms = true, .ffn_gelu = true,
     .sliding_period = 5, .sliding_rope_base = 10000.0f, .gemma3n = true},
    // see ArchTraits::granite.
    {.name = "granite", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .granite = true},
    {.name = "minicpm", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .minicpm = true},
    {.name = "granitemoe", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = true, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .granite = true},
    // ByteDance Seed-OSS (36B): Llama's layers (q/k/v biases used when the file has them) with NeoX
    // rope and the feed-forward norm stored as post_attention_norm.
    {.name = "seed_oss", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .ffn_norm_name = "post_attention_norm"},
    // inclusionAI Ling 2.0 / Ring 2.0 (bailingmoe2: mini 16B-A1.4B, flash 100B-A6B): one attn_qkv,
    // QK-norm, NeoX rope over part of each head, leading dense layers, then experts routed as the
    // file says (DeepSeek-V3's: sigmoid plus a selection bias, groups, scaled) beside an ungated
    // shared expert; NextN blocks last in the file, unused.
    {.name = "bailingmoe2", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = true, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .ungated_shared_expert = true},
    // rednote dots.llm1 (dots1: 142B-A14B): QK-norm, NeoX rope, leading dense layers, then experts
    // by sigmoid gate values plus a selection bias (unless the file says otherwise), beside an
    // ungated shared expert of expert_shared_count experts' width.
    {.name = "dots1", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = true, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .sigmoid_router = true, .ungated_shared_expert = true},
    // Cohere Command R7B and Command A (cohere2): see ArchTraits::cohere2.
    {.name = "cohere2", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 4, .sliding_rope_base = 0.0f, .nope_layer_step = 4, .cohere2 = true},
    // StepFun Step 3.5 Flash (step35): see ArchTraits::step35.
    {.name = "step35", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = true, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .sigmoid_router = true, .ungated_shared_expert = true,
     .step35 = true},
    // Poolside Laguna XS.2 (laguna): see ArchTraits::laguna.
    {.name = "laguna", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = true, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .sigmoid_router = true, .ungated_shared_expert = true,
     .laguna = true},
    // Tencent Hunyuan-A13B (hunyuan-moe): see ArchTraits::qk_norm_after_rope.
    {.name = "hunyuan-moe", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = true, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .ungated_shared_expert = true, .qk_norm_after_rope = true},
    // Tencent Hunyuan dense (hunyuan-dense: 0.5B to 7B): Hunyuan-A13B's attention (QK-norm after
    // the rotation) over Llama's dense feed-forward.
    {.name = "hunyuan-dense", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .qk_norm_after_rope = true},
    // MiniMax-M3 (minimax-m3): full attention with QK-norm head by head over NeoX rope of part of
    // each head; leading dense layers, then sigmoid routing with a selection bias, renormalised
    // and scaled, beside an ungated shared expert; gpt-oss's clamped SwiGLU in every feed-forward.
    // Its sparse-attention indexer is not in the files llama.cpp-style converters write: every
    // layer attends over all keys, as ik_llama.cpp runs it.
    {.name = "minimax-m3", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = true, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .swiglu_oai = true, .sigmoid_router = true,
     .ungated_shared_expert = true},
    // Cohere's MoE (cohere2_moe): see ArchTraits::cohere2_moe.
    {.name = "cohere2_moe", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = true, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .sigmoid_router = true, .cohere2_moe = true},
    // Cohere Command R, R+ and Aya (command-r): Command R7B's layers without the sliding window,
    // every layer rotating; R+'s q and k layer-normed head by head (Hparams::qk_norm_per_head_gains).
    {.name = "command-r", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .nope_layer_step = 0, .cohere2 = true},
    // Z.ai GLM-5 (glm-dsa): DeepSeek's latent layers, routed by sigmoid gate values plus a selection
    // bias unless the file says otherwise, beside an ungated shared expert; its multi-token-prediction
    // block skipped. Its sparse-attention indexer (indexer.*) is not run: every layer attends over
    // all keys, which is the model's own attention while a row has at most attention.indexer.top_k
    // keys (ik_llama.cpp's default too; the engine logs it when the context is longer).
    {.name = "glm-dsa", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = true, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .sigmoid_router = true, .ungated_shared_expert = true,
     .mla = true},
    // NVIDIA Nemotron (deci): see ArchTraits::deci.
    {.name = "deci", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .deci = true},
    // IBM Granite 4.0-H (granitehybrid): see ArchTraits::mamba2.
    {.name = "granitehybrid", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .ungated_shared_expert = true, .mamba2 = true},
    // NVIDIA Nemotron-H (nemotron_h): see ArchTraits::nemotron_h; the feed-forward layers' norm is
    // their attn_norm.
    {.name = "nemotron_h", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .ffn_norm_name = "attn_norm", .nemotron_h = true},
    // NVIDIA Nemotron 3 Nano (nemotron_h_moe, 30B-A3B): Nemotron-H's layers with experts in place of
    // the feed-forward: sigmoid routing with a selection bias (normalised and scaled as
    // expert_weights_norm / _scale say), squared-ReLU experts and shared expert without gates.
    {.name = "nemotron_h_moe", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = true, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .ffn_norm_name = "attn_norm", .sigmoid_router = true,
     .ungated_shared_expert = true, .nemotron_h = true},
    // Liquid LFM2 (lfm2): see ArchTraits::short_conv.
    {.name = "lfm2", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .short_conv = true},
    // Liquid LFM2-MoE (lfm2moe: LFM2-8B-A1B, LFM2-24B-A2B): LFM2's layers, the feed-forward after
    // leading_dense_block_count dense layers experts by sigmoid gate values plus a selection bias
    // (exp_probs_b), renormalised, no shared expert (as llama.cpp routes them).
    {.name = "lfm2moe", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = true, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .sigmoid_router = true, .short_conv = true},
    // AI2 OLMo 2 / OLMo 3 (olmo2): see ArchTraits::olmo2.
    {.name = "olmo2", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = true, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .qk_norm_whole_row = true, .olmo2 = true},
    // Swiss AI Apertus (apertus): see ArchTraits::apertus.
    {.name = "apertus", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .apertus = true},
    // Arcee AFM (arcee): see ArchTraits::ffn_relu_sq.
    {.name = "arcee", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .ffn_relu_sq = true},
    // LG EXAONE 3.0 / 3.5 (exaone: 2.4B, 7.8B, 32B): Llama's layers with NeoX rope (and Llama 3's
    // rope_freqs when the file has them).
    {.name = "exaone", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f},
    // TII Falcon-H1 (falcon-h1): see ArchTraits::falcon_h1.
    {.name = "falcon-h1", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .falcon_h1 = true},
    // LG EXAONE 4.0 (exaone4): see ArchTraits::exaone4.
    {.name = "exaone4", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = true, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .exaone4 = true},
    // AI2 OLMoE (olmoe: OLMoE-1B-7B): Llama's layers with QK-norm over whole rows and NeoX rope,
    // every feed-forward experts (feed_forward_length wide) by a softmax, the chosen weights as
    // they are.
    {.name = "olmoe", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = true,
     .requires_experts = true, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .qk_norm_whole_row = true},
    // BitNet b1.58 (bitnet, bitnet-b1.58, bitnet-25): see ArchTraits::bitnet.
    {.name = "bitnet", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .bitnet = true},
    {.name = "bitnet-b1.58", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .bitnet = true, .bitnet_relu_sq = true},
    {.name = "bitnet-25", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = false, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .bitnet = true, .bitnet_relu_sq = true},
    // Xiaomi MiMo-V2-Flash (mimo2): see ArchTraits::mimo2.
    {.name = "mimo2", .rope_neox = true, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = true, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .sigmoid_router = true, .mimo2 = true},
    // inclusionAI Ling 3.0 (bailingmoe3): see ArchTraits::kda.
    {.name = "bailingmoe3", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = true, .moe_norm_topk = false, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .ungated_shared_expert = true, .mla = true, .kda = true},
    // Moonshot Kimi Linear (kimi-linear): see ArchTraits::kimi_linear.
    {.name = "kimi-linear", .rope_neox = false, .requires_qkv_bias = false, .requires_qk_norm = false,
     .requires_experts = true, .moe_norm_topk = true, .embed_scaled = false, .post_norms = false, .ffn_gelu = false,
     .sliding_period = 0, .sliding_rope_base = 0.0f, .sigmoid_router = true, .ungated_shared_expert = true, .mla = true,
     .kimi_linear = true},
};

}  // namespace

const ArchTraits* find_arch(std::string_view name) {
  for (const ArchTraits& a : kArchs) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string_view supported_arch_names() {
  return "llama (dense or Mixtral-style experts), qwen2, qwen3, qwen2moe, qwen3moe, gemma2, gemma3, gemma3n, gemma4, gpt-oss, "
         "phi3, glm4, glm4moe, llama4, smollm3, deepseek2, mistral4, minimax-m2, minimax-m3, mistral3, ernie4_5, ernie4_5-moe, "
         "qwen35, qwen35moe, qwen3next, qwen2vl, qwen3vl, qwen3vlmoe, granite, granitemoe, minicpm, seed_oss, bailingmoe2, dots1, "
         "cohere2, cohere2_moe, command-r, step35, laguna, hunyuan-moe, hunyuan-dense, mimo2, glm-dsa, deci, granitehybrid, nemotron_h, "
         "nemotron_h_moe, lfm2, lfm2moe, olmo2, olmoe, exaone, exaone4, falcon-h1, arcee, apertus, "
         "bitnet, bitnet-b1.58, bitnet-25, bailingmoe3, kimi-linear";
}

}  // namespace strata
