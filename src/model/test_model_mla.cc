// DeepSeek-V2/V3's latent attention in a test model (deepseek2, mistral4, glm-dsa): the keys and
// tensors llama.cpp's converter writes, in its older form (full heads' key_length / value_length,
// attn_kv_b) or its newer one (mla_split: attn_k_b / attn_v_b).
#include <string>

#include "model/test_model_builder.h"

namespace strata::testing {

// DeepSeek-V2/V3's keys (llama.cpp's converter): the older form's key_length / value_length are a
// full head's; the newer (mla_split) one says one K/V head of the latent row and gives the full
// head's sizes as key_length_mla / value_length_mla.
void set_deepseek2_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = s.arch;
  const int rot = s.n_rot != 0 ? s.n_rot : 32;
  const auto u32 = [](int x) { return GgufValue::U32(static_cast<uint32_t>(x)); };
  w.set(a + ".rope.dimension_count", u32(rot));
  w.set(a + ".attention.kv_lora_rank", u32(s.mla_kv_rank));
  if (s.mla_q_rank > 0) w.set(a + ".attention.q_lora_rank", u32(s.mla_q_rank));
  if (s.mla_split) {
    w.set(a + ".attention.head_count_kv", u32(1));
    w.set(a + ".attention.key_length", u32(s.mla_kv_rank + rot));
    w.set(a + ".attention.value_length", u32(s.mla_kv_rank));
    w.set(a + ".attention.key_length_mla", u32(s.mla_nope + rot));
    w.set(a + ".attention.value_length_mla", u32(s.mla_v));
  } else {
    w.set(a + ".attention.head_count_kv", u32(s.n_head));
    w.set(a + ".attention.key_length", u32(s.mla_nope + rot));
    w.set(a + ".attention.value_length", u32(s.mla_v));
  }
  w.set(a + ".expert_shared_count", u32(1));
  w.set(a + ".leading_dense_block_count", u32(s.n_dense_lead));
  w.set(a + ".expert_weights_scale", GgufValue::F32(s.expert_weights_scale));
  if (a == "mistral4") {  // Mistral Small 4's files: no gating key (softmax), weights renormalised
    w.set(a + ".expert_weights_norm", GgufValue::Bool(true));
  } else {
    w.set(a + ".expert_weights_norm", GgufValue::Bool(s.expert_gating_func == 2));
    w.set(a + ".expert_gating_func", u32(s.expert_gating_func));
  }
  if (s.rope_yarn_log_mul != 0.0f) w.set(a + ".rope.scaling.yarn_log_multiplier", GgufValue::F32(s.rope_yarn_log_mul));
}

TestModelSpec latent_converter_form(TestModelSpec s) {
  if (s.arch == "mistral4") s.fused_gate_up_exps = true;
  if (s.arch == "mistral4" || s.arch == "glm-dsa" || s.arch == "kimi-linear") s.mla_split = true;
  if (s.arch == "kimi-linear") s.mla_q_rank = 0;
  return s;
}

// The attention tensors of one deepseek2 layer.
void add_mla_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& p) {
  const int rot = s.n_rot != 0 ? s.n_rot : 32;
  const int q_width = s.n_head * (s.mla_nope + rot);
  if (s.mla_q_rank > 0) {
    b.matrix(p + "attn_q_a.weight", s.n_embd, s.mla_q_rank);
    b.vector(p + "attn_q_a_norm.weight", s.mla_q_rank, 1.0f, 0.2f);
    b.matrix(p + "attn_q_b.weight", s.mla_q_rank, q_width);
  } else {
    b.matrix(p + "attn_q.weight", s.n_embd, q_width);
  }
  b.matrix(p + "attn_kv_a_mqa.weight", s.n_embd, s.mla_kv_rank + rot);
  b.vector(p + "attn_kv_a_norm.weight", s.mla_kv_rank, 1.0f, 0.2f);
  if (s.mla_split) {
    b.matrix(p + "attn_k_b.weight", s.mla_nope, s.mla_kv_rank, s.n_head);
    b.matrix(p + "attn_v_b.weight", s.mla_kv_rank, s.mla_v, s.n_head);
  } else {
    b.matrix(p + "attn_kv_b.weight", s.mla_kv_rank, s.n_head * (s.mla_nope + s.mla_v));
  }
  b.matrix(p + "attn_output.weight", s.n_head * s.mla_v, s.n_embd);
}

}  // namespace strata::testing
