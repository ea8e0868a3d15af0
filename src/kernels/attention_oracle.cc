#include "kernels/attention_oracle.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/reference/reference.h"
#include "kernels/softcap.h"

namespace strata::kernels {

namespace {

// _mm256_max_ps / _mm256_min_ps on one lane (the second operand wins ties and NaNs).
float max_lane(float a, float b) { return a > b ? a : b; }
float min_lane(float a, float b) { return a < b ? a : b; }

struct HeadState {
  float max = -INFINITY;
  float sum = 0.0f;
};

// Folds the first n keys of one block into out and st, in the kernels' order.
void fold_block(const AttentionArgs& a, const float* q, const std::byte* kb, const std::byte* vb, int n,
                size_t head_offset, float* out, HeadState* st) {
  const int hd = a.head_dim;
  std::vector<float> k(static_cast<size_t>(hd)), v(static_cast<size_t>(hd)), s(static_cast<size_t>(n));
  float bm = -INFINITY;
  for (int t = 0; t < n; ++t) {
    reference::load_kv(kb + t * a.token_stride_bytes + head_offset, hd, a.kv_type, k.data());
    float acc = 0.0f;
    for (int i = 0; i < hd; ++i) acc = std::fma(q[i], k[static_cast<size_t>(i)], acc);
    s[static_cast<size_t>(t)] = a.softcap > 0.0f ? softcap(acc * a.scale, a.softcap) : acc * a.scale;
    bm = max_lane(bm, s[static_cast<size_t>(t)]);
  }
  const float new_max = max_lane(st->max, bm);
  const float rescale = exp8_lane(st->max - new_max);
  st->max = new_max;
  st->sum = st->sum * rescale;
  for (int i = 0; i < hd; ++i) out[i] = out[i] * rescale;
  for (int t = 0; t < n; ++t) {
    const float p = exp8_lane(s[static_cast<size_t>(t)] - new_max);
    st->sum = st->sum + p;
    reference::load_kv(vb + t * a.token_stride_bytes + head_offset, hd, a.kv_type, v.data());
    for (int i = 0; i < hd; ++i) out[i] = std::fma(p, v[static_cast<size_t>(i)], out[i]);
  }
}

void oracle_head(const AttentionArgs& a, int first_token, int n_tokens, int h, const float* q, float* out) {
  const int group = a.n_head / a.n_head_kv;
  const size_t head_offset = static_cast<size_t>(h / group) * kv_head_bytes(a.kv_type, a.head_dim);
  for (int i = 0; i < a.head_dim; ++i) out[i] = 0.0f;
  HeadState st;
  const int b_first = first_token / a.block_tokens;
  for (int t0 = b_first * a.block_tokens, b = b_first; t0 < n_tokens; t0 += a.block_tokens, ++b) {
    const int n = n_tokens - t0 < a.block_tokens ? n_tokens - t0 : a.block_tokens;
    const int skip = first_token > t0 ? first_token - t0 : 0;
    const size_t skip_bytes = static_cast<size_t>(skip) * a.token_stride_bytes;
    fold_block(a, q, static_cast<const std::byte*>(a.block_k[b]) + skip_bytes,
               static_cast<const std::byte*>(a.block_v[b]) + skip_bytes, n - skip, head_offset, out, &st);
  }
  const float sum = a.sinks != nullptr ? st.sum + exp8_lane(a.sinks[h] - st.max) : st.sum;
  const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
  for (int i = 0; i < a.head_dim; ++i) out[i] = out[i] * inv;
}

}  // namespace

float exp8_lane(float x) {
  x = min_lane(max_lane(x, -87.0f), 88.0f);
  const float n = std::nearbyint(x * 1.44269504088896341f);
  float r = std::fma(-n, 0.693359375f, x);
  r = std::fma(-n, -2.12194440e-4f, r);
  float p = 1.0f / 720.0f;
  p = std::fma(p, r, 1.0f / 120.0f);
  p = std::fma(p, r, 1.0f / 24.0f);
  p = std::fma(p, r, 1.0f / 6.0f);
  p = std::fma(p, r, 0.5f);
  p = std::fma(p, r, 1.0f);
  p = std::fma(p, r, 1.0f);
  uint32_t bits;
  std::memcpy(&bits, &p, sizeof bits);
  bits += static_cast<uint32_t>(static_cast<int32_t>(n)) << 23;
  std::memcpy(&p, &bits, sizeof p);
  return p;
}

void attention_oracle(const AttentionArgs& a, const float* q, float* out) {
  const size_t stride = a.row_stride_floats != 0 ? a.row_stride_floats : static_cast<size_t>(a.n_head) * a.head_dim;
  for (int r = 0; r < a.n_rows; ++r) {
    const int n_tokens = a.row_tokens != nullptr ? a.row_tokens[r] : a.n_tokens;
    for (int h = 0; h < a.n_head; ++h) {
      const size_t at = r * stride + static_cast<size_t>(h) * a.head_dim;
      oracle_head(a, a.first_token, n_tokens, h, q + at, out + at);
    }
  }
}

}  // namespace strata::kernels
