// The named shapes `strata mkmodel --preset` writes, and the parts model_spec.cc gives another
// preset's shape for an --arch (Step 3.5's heads and routing, DeepSeek's latent attention and
// routing, Qwen3.5's delta-net layers, Granite 4.0-H's and Nemotron-H's Mamba-2 layers, Kimi Delta
// Attention). Private to
// src/modelgen; stateless, thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "modelgen/model_spec.h"

namespace strata {

struct Preset {
  std::string_view name;
  std::string_view default_arch;  // an --arch name
  ModelSpec shape;
};

// Every preset, the dense ones and the MoE ones, in the order --help lists them.
std::vector<Preset> model_presets();

namespace preset_parts {

// Step 3.5's sliding layers' heads and window, its dense lead and routing (model_spec.h).
ModelSpec step35(ModelSpec s, int n_head_swa, int sliding_window, int n_dense_lead, float scale);
// MiMo-V2's attention and routing on s (model_spec.h): the full layers' K/V heads, the value head
// width, the rotated dims, the window; one leading dense layer, sigmoid routing normalised.
ModelSpec mimo2(ModelSpec s, int n_head_kv_full, int v_head_dim, int rope_dim, int sliding_window);
// DeepSeek's Multi-head Latent Attention on s: key heads of s.head_dim (its last rope_dim rotated),
// value heads of v_head_dim, one per query head, from a kv_lora_rank latent; queries through a
// q_lora_rank bottleneck (0: none).
ModelSpec mla(ModelSpec s, int q_lora_rank, int kv_lora_rank, int rope_dim, int v_head_dim);
// GLM-5's sparse-attention indexer on a DeepSeek shape: its heads and the keys it keeps.
ModelSpec dsa_indexer(ModelSpec s, int n_head, int head_dim, int top_k);
// DeepSeek's routing, its leading dense blocks and its YaRN (factor over n_ctx / factor, and
// rope.scaling.yarn_log_multiplier: 0.1 mscale_all_dim).
ModelSpec deepseek_moe(ModelSpec s, int n_dense_lead, bool sigmoid, bool norm, float scale, float yarn_factor,
                       float yarn_log_mul);
// Qwen3.5's hybrid layers on s: attention in every 4th layer, the others gated delta-net layers
// of n_k_heads key heads of head_k_dim and n_v_heads value heads of head_v_dim, convolving over 4
// taps (another --arch drops them).
ModelSpec delta_net(ModelSpec s, int n_k_heads, int head_k_dim, int n_v_heads, int head_v_dim);
// Granite 4.0-H's and Nemotron-H's Mamba-2 layers on s: n_heads heads of head_dim values over n_groups
// groups of state_size state values, convolving over 4 taps (which layers they are is the arch's:
// granite_layer_attends(), nemotron_layer_pattern()).
ModelSpec mamba2(ModelSpec s, int n_heads, int head_dim, int n_groups, int state_size);
// Kimi Delta Attention on s (ModelSpec::kda): heads of head_dim keys and values (n_head of them, the
// arch's) convolving over conv_kernel taps, in the 'K' layers of pattern ('*': latent attention).
ModelSpec kda(ModelSpec s, int head_dim, int conv_kernel, const char* pattern);

}  // namespace preset_parts

}  // namespace strata
