// Scalar paged attention: for each query head, an online softmax over the key blocks in
// position order. Per block: all scores, the block maximum, one rescale of the running
// sum and output, then the block's weighted values in position order.
#include <cmath>

#include "kernels/reference/reference.h"
#include "kernels/softcap.h"

namespace strata::kernels::reference {

namespace {

struct HeadState {
  float max = -INFINITY;
  float sum = 0.0f;
};

// Folds the first n keys of one block (tokens at kb / vb) into out and st.
void attend_block(const AttentionArgs& a, const float* q, const std::byte* kb, const std::byte* vb,
                  int n, size_t head_offset, float* out, HeadState* st, float* scores, float* row) {
  const int hd = a.head_dim;
  float block_max = -INFINITY;
  for (int t = 0; t < n; ++t) {
    load_kv(kb + t * a.token_stride_bytes + head_offset, hd, a.kv_type, row);
    float dot = 0.0f;
    for (int i = 0; i < hd; ++i) dot += q[i] * row[i];
    scores[t] = a.softcap > 0.0f ? softcap(dot * a.scale, a.softcap) : dot * a.scale;
    block_max = std::fmax(block_max, scores[t]);
  }
  const float new_max = std::fmax(st->max, block_max);
  const float rescale = std::exp(st->max - new_max);  // exp(-inf) = 0 on the first block
  st->sum *= rescale;
  for (int i = 0; i < hd; ++i) out[i] *= rescale;
  st->max = new_max;
  for (int t = 0; t < n; ++t) {
    const float p = std::exp(scores[t] - new_max);
    st->sum += p;
    load_kv(vb + t * a.token_stride_bytes + head_offset, hd, a.kv_type, row);
    for (int i = 0; i < hd; ++i) out[i] += p * row[i];
  }
}

// One query row over its keys [a.first_token, a.n_tokens).
void attention_row(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv_head,
                   int n_kv_heads) {
  const int group = a.n_head / a.n_head_kv;
  const size_t head_bytes = kv_head_bytes(a.kv_type, a.head_dim);
  float* scores = scratch;
  float* row = scratch + a.block_tokens;
  for (int h = first_kv_head * group; h < (first_kv_head + n_kv_heads) * group; ++h) {
    const float* qh = q + static_cast<int64_t>(h) * a.head_dim;
    float* oh = out + static_cast<int64_t>(h) * a.head_dim;
    for (int i = 0; i < a.head_dim; ++i) oh[i] = 0.0f;
    HeadState st;
    const size_t head_offset = static_cast<size_t>(h / group) * head_bytes;
    const int b_first = a.first_token / a.block_tokens;
    for (int t0 = b_first * a.block_tokens, b = b_first; t0 < a.n_tokens; t0 += a.block_tokens, ++b) {
      const int n = a.n_tokens - t0 < a.block_tokens ? a.n_tokens - t0 : a.block_tokens;
      const int skip = a.first_token > t0 ? a.first_token - t0 : 0;  // keys of the block before the row's first
      const size_t skip_bytes = static_cast<size_t>(skip) * a.token_stride_bytes;
      attend_block(a, qh, static_cast<const std::byte*>(a.block_k[b]) + skip_bytes,
                   static_cast<const std::byte*>(a.block_v[b]) + skip_bytes, n - skip, head_offset, oh, &st, scores,
                   row);
    }
    // A sink is a key of value zero: it only adds to the sum.
    const float sum = a.sinks != nullptr ? st.sum + std::exp(a.sinks[h] - st.max) : st.sum;
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    for (int i = 0; i < a.head_dim; ++i) oh[i] *= inv;
  }
}

}  // namespace

// A tile is its rows one after the other: the scalar reference gains nothing from sharing.
void attention(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv_head,
               int n_kv_heads) {
  const size_t stride = a.row_stride_floats != 0 ? a.row_stride_floats : static_cast<size_t>(a.n_head) * a.head_dim;
  AttentionArgs row = a;
  row.n_rows = 1;
  row.row_tokens = nullptr;
  for (int r = 0; r < a.n_rows; ++r) {
    row.n_tokens = a.row_tokens != nullptr ? a.row_tokens[r] : a.n_tokens;
    attention_row(row, q + r * stride, out + r * stride, scratch, first_kv_head, n_kv_heads);
  }
}

}  // namespace strata::kernels::reference
