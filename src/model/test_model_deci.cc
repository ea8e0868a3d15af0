// Nemotron's parts in a test model (deci), with the keys and tensor names llama.cpp's converter
// writes for DeciLM's layers: every fourth layer from the first attends with q/k/v (n_head query
// and n_head_kv K/V heads); the second of each four has attn_output alone over its norm ("linear
// attention"), the third no attention (and no attn_norm); the feed-forward widths run n_ff, 3/4,
// 1/2 of it, and none in the fourth layer of each four (which attends).
#include <string>
#include <vector>

#include "model/test_model_builder.h"

namespace strata::testing {
namespace {

int deci_heads(const TestModelSpec& s, int layer) { return layer % 4 == 2 ? 0 : s.n_head; }
int deci_kv_heads(const TestModelSpec& s, int layer) { return layer % 4 == 0 || layer % 4 == 3 ? s.n_head_kv : 0; }
int deci_ffn_width(const TestModelSpec& s, int layer) {
  const int quarter = layer % 4;
  return quarter == 3 ? 0 : s.n_ff * (4 - quarter) / 4;
}

}  // namespace

void set_deci_metadata(const TestModelSpec& s, GgufWriter& w) {
  std::vector<int32_t> heads, kv_heads, widths;
  for (int l = 0; l < layer_count(s); ++l) {
    heads.push_back(deci_heads(s, l));
    kv_heads.push_back(deci_kv_heads(s, l));
    widths.push_back(deci_ffn_width(s, l));
  }
  w.set("deci.attention.head_count", GgufValue::I32Array(heads));
  w.set("deci.attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set("deci.feed_forward_length", GgufValue::I32Array(widths));
}

void add_deci_layer(ModelBuilder& b, const TestModelSpec& s, const std::string& p, int layer) {
  const int hd = head_dim(s);
  if (deci_heads(s, layer) > 0) b.vector(p + "attn_norm.weight", s.n_embd, 1.0f, 0.2f);
  if (deci_kv_heads(s, layer) > 0) {
    b.matrix(p + "attn_q.weight", s.n_embd, s.n_head * hd);
    b.matrix(p + "attn_k.weight", s.n_embd, s.n_head_kv * hd);
    b.matrix(p + "attn_v.weight", s.n_embd, s.n_head_kv * hd);
    b.matrix(p + "attn_output.weight", s.n_head * hd, s.n_embd);
  } else if (deci_heads(s, layer) > 0) {
    b.matrix(p + "attn_output.weight", s.n_embd, s.n_embd);
  }
  const int n_ff = deci_ffn_width(s, layer);
  if (n_ff == 0) return;
  b.vector(p + "ffn_norm.weight", s.n_embd, 1.0f, 0.2f);
  b.matrix(p + "ffn_gate.weight", s.n_embd, n_ff);
  b.matrix(p + "ffn_up.weight", s.n_embd, n_ff);
  b.matrix(p + "ffn_down.weight", n_ff, s.n_embd);
}

}  // namespace strata::testing
