// AVX2 paged attention: the query heads that share one kv head are processed together,
// so each key and value is converted to float once and used by the whole group. Per
// block: all scores (8-lane dot + the fixed tree), the block maximum, one rescale of
// each head's running sum and output, the block's exponentials, then the weighted
// values in position order. Every step's order depends only on head_dim and the block
// boundaries, never on where the blocks live in memory.
#include <cmath>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"
#include "kernels/reference/reference.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

float dot(const float* a, const float* b, int n) {
  __m256 acc = _mm256_setzero_ps();
  for (int i = 0; i < n; i += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc);
  return hsum(acc);
}

// Token t's vector for this kv head as floats: in place for F32, else converted into buf.
const float* token_floats(const AttentionArgs& a, const void* block, int t, size_t head_offset, float* buf) {
  const auto* p = static_cast<const std::byte*>(block) + t * a.token_stride_bytes + head_offset;
  if (a.kv_type == DType::kF32) return reinterpret_cast<const float*>(p);
  load_kv(p, a.head_dim, a.kv_type, buf);
  return buf;
}

struct Group {
  const float* q;   // group * head_dim query values
  float* out;       // group * head_dim outputs (the running weighted sums)
  float* max;       // group running maxima
  float* sum;       // group running softmax denominators
  float* scores;    // group * stride block scores
  int stride;       // block_tokens rounded up to 8
  int size;
};

void attend_block(const AttentionArgs& a, const Group& g, const void* kb, const void* vb, int n,
                  size_t head_offset, float* row) {
  const int hd = a.head_dim;
  for (int t = 0; t < n; ++t) {
    const float* k = token_floats(a, kb, t, head_offset, row);
    for (int h = 0; h < g.size; ++h) g.scores[h * g.stride + t] = dot(g.q + h * hd, k, hd) * a.scale;
  }
  for (int h = 0; h < g.size; ++h) {
    float* s = g.scores + h * g.stride;
    float block_max = -INFINITY;
    for (int t = 0; t < n; ++t) block_max = std::fmax(block_max, s[t]);
    const float new_max = std::fmax(g.max[h], block_max);
    const float rescale = std::exp(g.max[h] - new_max);  // 0 on the first block
    g.max[h] = new_max;
    float* o = g.out + h * hd;
    const __m256 vr = _mm256_set1_ps(rescale);
    for (int i = 0; i < hd; i += 8) _mm256_storeu_ps(o + i, _mm256_mul_ps(_mm256_loadu_ps(o + i), vr));
    const __m256 vmax = _mm256_set1_ps(new_max);
    for (int t = 0; t < n; t += 8) _mm256_storeu_ps(s + t, exp_ps(_mm256_sub_ps(_mm256_loadu_ps(s + t), vmax)));
    float sum = g.sum[h] * rescale;
    for (int t = 0; t < n; ++t) sum += s[t];
    g.sum[h] = sum;
  }
  for (int t = 0; t < n; ++t) {
    const float* v = token_floats(a, vb, t, head_offset, row);
    for (int h = 0; h < g.size; ++h) {
      const __m256 p = _mm256_set1_ps(g.scores[h * g.stride + t]);
      float* o = g.out + h * hd;
      for (int i = 0; i < hd; i += 8) {
        _mm256_storeu_ps(o + i, _mm256_fmadd_ps(p, _mm256_loadu_ps(v + i), _mm256_loadu_ps(o + i)));
      }
    }
  }
}

}  // namespace

void attention(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv_head,
               int n_kv_heads) {
  if (a.head_dim % 8 != 0) {
    reference::attention(a, q, out, scratch, first_kv_head, n_kv_heads);
    return;
  }
  const int group = a.n_head / a.n_head_kv;
  const int stride = (a.block_tokens + 7) / 8 * 8;
  const size_t head_bytes = kv_head_bytes(a.kv_type, a.head_dim);
  float* row = scratch;
  float* scores = row + a.head_dim;
  float* max = scores + static_cast<size_t>(group) * stride;
  float* sum = max + group;
  for (int kv = first_kv_head; kv < first_kv_head + n_kv_heads; ++kv) {
    const Group g{q + static_cast<int64_t>(kv) * group * a.head_dim, out + static_cast<int64_t>(kv) * group * a.head_dim,
                  max, sum, scores, stride, group};
    for (int h = 0; h < group; ++h) {
      g.max[h] = -INFINITY;
      g.sum[h] = 0.0f;
    }
    for (int i = 0; i < group * a.head_dim; ++i) g.out[i] = 0.0f;
    const size_t head_offset = static_cast<size_t>(kv) * head_bytes;
    for (int t0 = 0, b = 0; t0 < a.n_tokens; t0 += a.block_tokens, ++b) {
      const int n = a.n_tokens - t0 < a.block_tokens ? a.n_tokens - t0 : a.block_tokens;
      attend_block(a, g, a.block_k[b], a.block_v[b], n, head_offset, row);
    }
    for (int h = 0; h < group; ++h) {
      const __m256 inv = _mm256_set1_ps(g.sum[h] > 0.0f ? 1.0f / g.sum[h] : 0.0f);
      float* o = g.out + h * a.head_dim;
      for (int i = 0; i < a.head_dim; i += 8) _mm256_storeu_ps(o + i, _mm256_mul_ps(_mm256_loadu_ps(o + i), inv));
    }
  }
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
