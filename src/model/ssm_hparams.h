// The hybrid models' recurrent layers in Hparams: Qwen3.5's gated delta-nets (every
// full_attention_interval-th layer attends), Granite 4.0-H's and Nemotron-H's Mamba-2 mixers (the
// layers whose head_count_kv is 0, and in Nemotron-H feed_forward_length too). Private to src/model; read_hparams calls these after the common keys.
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// Qwen3.5 / Qwen3-Next (ArchTraits::gated_delta_net): the interval of its attention layers and
// the shapes of its delta-net layers.
Status read_delta_net(const GgufFile& gguf, Hparams* hp);

// Granite 4.0-H (ArchTraits::mamba2): the layers' kinds from head_count_kv (0: Mamba-2, else
// attention, every attending layer with the same count), the Mamba-2 shapes (<arch>.ssm.*), rope
// only when rope.scaling.finetuned is true (the 4.0-H files say false: their attention has no
// positions), and Granite's multipliers, each optional (1 when absent) as llama.cpp reads them.
Status read_granite_hybrid(const GgufFile& gguf, Hparams* hp);

// Nemotron-H (ArchTraits::nemotron_h): each layer's kind from head_count_kv and
// feed_forward_length (both 0: Mamba-2; K/V heads: attention, every attending layer with the same
// query and K/V counts; a width: a squared-ReLU feed-forward, never both), the Mamba-2 shapes, no
// rope, and attention.scale when the file has it. With experts (Nemotron 3: nemotron_h_moe) every
// feed-forward layer is a MoE one (Hparams::moe_where_ffn).
Status read_nemotron_h(const GgufFile& gguf, Hparams* hp);

// LFM2 (ArchTraits::short_conv): short-convolution layers where head_count_kv is 0 (every
// attending layer with the same count), over <arch>.shortconv.l_cache taps (2 to
// kMaxSsmConvKernel); the final norm named token_embd_norm; every attending layer slides over
// attention.sliding_window keys when the file gives one. lfm2moe's experts are read_experts'.
Status read_lfm2(const GgufFile& gguf, Hparams* hp);

// Falcon-H1 (ArchTraits::falcon_h1): the Mamba-2 shapes (ssm.*), every layer both recurrent and
// attending (Hparams::ssm_parallel_attention), ffn_norm as the file names it (bare, as llama.cpp's
// converter writes it, or with .weight); feed-forward biases refused by name.
Status read_falcon_h1(const GgufFile& gguf, Hparams* hp);

// Ling 3.0 (ArchTraits::kda): the layers' kinds from head_count_kv (0: Kimi Delta Attention, else
// latent attention with a gate per head), the KDA shapes (kda.head_dim, ssm.conv_kernel,
// kda.gate_lower_bound; kda.safe_gate must be true when present), the SwiGLU limits when the file
// has them (swiglu_clamp_exp, swiglu_clamp_shexp: one number or one per block), and the shared
// expert's width as expert_shared_count experts of expert_shared_feed_forward_length. As
// ik_llama.cpp reads these files, the tensors decide two keys some converters get wrong: a NextN
// count without its block (the block is then a layer) and a missing attention.q_lora_rank (the
// length of attn_q_a_norm).
Status read_bailingmoe3(const GgufFile& gguf, Hparams* hp);

// Kimi Linear (ArchTraits::kimi_linear): the layers' kinds from head_count_kv as Ling 3.0's, the KDA
// shapes (kda.head_dim, ssm.conv_kernel), Kimi's softplus gate, the rank of its low-rank decay input
// (the first KDA layer's ssm_f_a), and no rope in its latent attention.
Status read_kimi_linear(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
