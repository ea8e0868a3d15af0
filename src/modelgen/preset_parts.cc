// The parts model_spec.cc gives another preset's shape for an --arch (model_presets.h's
// preset_parts), beside the presets that use them (model_presets.cc).
#include "modelgen/model_presets.h"

namespace strata {

namespace preset_parts {

ModelSpec step35(ModelSpec s, int n_head_swa, int sliding_window, int n_dense_lead, float scale) {
  s.n_head_swa = n_head_swa;
  s.sliding_window = sliding_window;
  s.n_dense_lead = n_dense_lead;
  s.sigmoid_routing = true;
  s.expert_weights_norm = true;
  s.expert_weights_scale = scale;
  return s;
}

ModelSpec mimo2(ModelSpec s, int n_head_kv_full, int v_head_dim, int rope_dim, int sliding_window) {
  s.n_head_kv_full = n_head_kv_full;
  s.v_head_dim = v_head_dim;
  s.rope_dim = rope_dim;
  s.sliding_window = sliding_window;
  s.n_dense_lead = 1;
  s.sigmoid_routing = true;
  s.expert_weights_norm = true;
  s.expert_weights_scale = 1.0f;
  return s;
}

ModelSpec mla(ModelSpec s, int q_lora_rank, int kv_lora_rank, int rope_dim, int v_head_dim) {
  s.q_lora_rank = q_lora_rank;
  s.kv_lora_rank = kv_lora_rank;
  s.rope_dim = rope_dim;
  s.v_head_dim = v_head_dim;
  return s;
}

ModelSpec dsa_indexer(ModelSpec s, int n_head, int head_dim, int top_k) {
  s.indexer_n_head = n_head;
  s.indexer_head_dim = head_dim;
  s.indexer_top_k = top_k;
  return s;
}

ModelSpec deepseek_moe(ModelSpec s, int n_dense_lead, bool sigmoid, bool norm, float scale, float yarn_factor,
                       float yarn_log_mul) {
  s.n_dense_lead = n_dense_lead;
  s.sigmoid_routing = sigmoid;
  s.expert_weights_norm = norm;
  s.expert_weights_scale = scale;
  s.rope_yarn_factor = yarn_factor;
  s.rope_yarn_log_mul = yarn_log_mul;
  return s;
}

ModelSpec delta_net(ModelSpec s, int n_k_heads, int head_k_dim, int n_v_heads, int head_v_dim) {
  s.full_attn_interval = 4;
  s.ssm_conv_kernel = 4;
  s.ssm_n_k_heads = n_k_heads;
  s.ssm_head_k_dim = head_k_dim;
  s.ssm_n_v_heads = n_v_heads;
  s.ssm_head_v_dim = head_v_dim;
  return s;
}

ModelSpec mamba2(ModelSpec s, int n_heads, int head_dim, int n_groups, int state_size) {
  s.ssm_conv_kernel = 4;
  s.ssm_n_k_heads = n_groups;
  s.ssm_head_k_dim = state_size;
  s.ssm_n_v_heads = n_heads;
  s.ssm_head_v_dim = head_dim;
  return s;
}

ModelSpec kda(ModelSpec s, int head_dim, int conv_kernel, const char* pattern) {
  s.ssm_conv_kernel = conv_kernel;
  s.ssm_n_k_heads = s.ssm_head_k_dim = s.ssm_n_v_heads = 0;
  s.ssm_head_v_dim = head_dim;
  s.layer_pattern = pattern;
  return s;
}

}  // namespace preset_parts

}  // namespace strata
