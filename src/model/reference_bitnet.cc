// The float64 reference's BitNet parts (ReferenceForward::decode_bitnet, bitnet_ffn): written from
// the model's definition, independently of transformer.cc.
#include <algorithm>
#include <string>
#include <utility>

#include "model/reference_forward.h"
#include "model/reference_ops.h"

namespace strata::testing {

using namespace reference_ops;  // NOLINT: the reference's own vocabulary

Status ReferenceForward::decode_bitnet(const GgufFile& gguf, const std::string& p, Layer& l) const {
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_sub_norm.weight", true, &l.attn_sub_norm));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_sub_norm.weight", true, &l.ffn_sub_norm));
  const std::pair<const char*, double*> scales[] = {{"attn_q", &l.q_scale},       {"attn_k", &l.k_scale},
                                                    {"attn_v", &l.v_scale},       {"attn_output", &l.o_scale},
                                                    {"ffn_gate", &l.gate_scale}, {"ffn_up", &l.up_scale},
                                                    {"ffn_down", &l.down_scale}};
  for (const auto& [name, value] : scales) {
    Vec v;
    STRATA_RETURN_IF_ERROR(decode(gguf, p + name + ".scale", false, &v));
    if (!v.empty()) *value = v[0];
  }
  return Status::Ok();
}

Vec ReferenceForward::bitnet_ffn(const Layer& l, const Vec& x) const {
  Vec gate = matvec(l.w_gate, x), up = matvec(l.w_up, x);
  for (size_t i = 0; i < gate.size(); ++i) {
    const double g = gate[i] * l.gate_scale, u = up[i] * l.up_scale;
    const double relu = std::max(g, 0.0);
    gate[i] = hp_.ffn_relu_sq_gated ? relu * relu * u : gated(Gate::kSilu, g, u);
  }
  Vec y = matvec(l.w_down, rmsnorm(gate.data(), l.ffn_sub_norm, static_cast<int>(gate.size()), hp_.rms_eps));
  for (double& v : y) v *= l.down_scale;
  return y;
}

}  // namespace strata::testing
