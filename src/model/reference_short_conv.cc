// The float64 reference's LFM2 short-convolution layer (as llama.cpp runs it), one position at a
// time. From the attention-normed input x: B, C, x' = shortconv.in_proj's three n_embd-row parts of
// x; each channel i of B x' through the taps of shortconv.conv over its last l_cache values (oldest
// first, zeros before the first position), no bias, no activation; out = out_proj (C * conv).
// Plain loops in double, written from that math, not from short_conv.cc.
#include "model/reference_forward.h"
#include "model/reference_ops.h"

namespace strata::testing {

using namespace reference_ops;  // NOLINT: the reference's own vocabulary

Status ReferenceForward::decode_short_conv(const GgufFile& gguf, const std::string& p, Layer& l) const {
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "shortconv.in_proj.weight", true, &l.ssm_qkv));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "shortconv.conv.weight", true, &l.ssm_conv));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "shortconv.out_proj.weight", true, &l.ssm_out));
  l.conv_inputs.assign(static_cast<size_t>(hp_.ssm_conv_kernel - 1), Vec(static_cast<size_t>(hp_.n_embd), 0.0));
  return Status::Ok();
}

void ReferenceForward::short_conv(Layer& l, const Vec& x, Vec& out) const {
  const size_t n = static_cast<size_t>(hp_.n_embd);
  const int taps = hp_.ssm_conv_kernel;
  const Vec bcx = matvec(l.ssm_qkv, x);  // B, then C, then x'
  Vec bx(n), y(n);
  for (size_t i = 0; i < n; ++i) bx[i] = bcx[i] * bcx[2 * n + i];
  for (size_t i = 0; i < n; ++i) {
    const double* w = l.ssm_conv.data() + i * taps;
    double sum = w[taps - 1] * bx[i];
    for (int j = 0; j + 1 < taps; ++j) sum += w[j] * l.conv_inputs[static_cast<size_t>(j)][i];
    y[i] = bcx[n + i] * sum;
  }
  l.conv_inputs.erase(l.conv_inputs.begin());
  l.conv_inputs.push_back(bx);
  out = matvec(l.ssm_out, y);
}

}  // namespace strata::testing
