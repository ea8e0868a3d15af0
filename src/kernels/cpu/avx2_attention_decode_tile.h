// Internals of decode-row attention shared by its two files: avx2_attention_decode.cc (the
// query heads of a kv head across the lanes, padded to 8) and avx2_attention_decode_keys.cc
// (keys across the lanes, for a kv head with one query head). The
// tile's constants, its view of the scratch, and the walks over a kv head's K/V rows.
// Included only by those files; see avx2_attention_decode.h for the contract.
#pragma once

#include <cstddef>

#include "kernels/cpu/avx2_attention_decode.h"
#include "kernels/cpu/avx2_common.h"
#include "kernels/quant_blocks.h"
#include "tensor/block_layouts.h"

namespace strata::kernels::cpu::STRATA_SIMD::decode {

constexpr int kHeads = 8;  // query heads per tile after padding: one 8-float row of p per key
// Score lanes: head l / 2, key l % 2 (AVX-512: one 16-float vector; AVX2: two 8-float vectors).
constexpr int kKeysPerVec = 2;
#if defined(STRATA_KERNELS_AVX512)
constexpr int kDimStep = 16;  // head_dim must be a multiple of one 16-float vector
constexpr int kWindowKeys = 64;
#else
constexpr int kDimStep = 8;
constexpr int kWindowKeys = 48;
#endif
static_assert(kWindowKeys <= kAttentionDecodeWindowKeys, "attention_scratch_floats() sizes the window");
constexpr int kLanes = kHeads * kKeysPerVec;
static_assert(kLanes + kHeads <= 24, "attention_scratch_floats() sizes 24 * head_dim per padded head");

// One kv head's decode tile and its scratch (a walk over several heads points it at each in
// turn; qrep and ob are then the first of per-head arrays, see make_decode).
struct Decode {
  const AttentionArgs* a;
  int hd;
  int group;
  size_t head_offset;  // bytes from a token's K (or V) row to this kv head's
  int kv;              // the kv head head_offset points at (a span's first)
  int span_heads;      // kv heads from head_offset whose part of each K/V row the prefetcher pulls in
  float* qrep;         // [hd][kLanes]: lane l holds q[head l / kKeysPerVec][i], 0 past the group
  float* kf;           // the window's K as floats (layout: convert_k)
  float* p;            // [window keys][kHeads]: scores, then exponentials
  float* ob;           // [kHeads][hd]: running outputs
  const float* q;      // [group][hd]: this kv head's queries
  int window;          // keys kf and p have room for (a multiple of 8)
  int first_key;       // keys of the walk's first block before the row's first (its window's start)
};

// Internal linkage for the helpers below: each including file (two, built once per ISA) gets
// its own copy, never a symbol the linker may merge across files (isa_isolation_test.cc;
// clang keeps some of them out of line even at -O1).
namespace {

inline const std::byte* row_at(const void* block, const Decode& D, int t) {
  return static_cast<const std::byte*>(block) + D.head_offset + t * D.a->token_stride_bytes;
}

// This kv head's rows of consecutive keys, block by block, without a division per key (one
// per key cost about as much as converting the row).
class RowWalk {
 public:
  RowWalk(const Decode& D, const void* const* blocks, int first_key)
      : D_(D), blocks_(blocks), b_(first_key / D.a->block_tokens), t_(first_key % D.a->block_tokens) {}
  const std::byte* next() {
    const std::byte* row = row_at(blocks_[b_], D_, t_);
    if (++t_ == D_.a->block_tokens) t_ = 0, ++b_;
    return row;
  }

 private:
  const Decode& D_;
  const void* const* blocks_;
  int b_;
  int t_;
};

// The next window's K and V rows, one head's part of a row (kv_head_bytes) per call of key(),
// pulled into the cache while this window's K rows convert: spread over the loop, the misses
// overlap the conversion instead of a burst of prefetches stalling on full miss buffers (and
// V comes from DRAM at long context: the weights streamed since the last layer evicted it).
// A key's D.span_heads parts (one head, or the several heads a walk converts one after another)
// are asked for in address order, so the window's rows arrive as contiguous spans.
// The lines go to L2, not L1: the next window's K and V rows of a span (48 keys x 2-4 heads of
// 64 dims, AVX2: 24-49 KB; more for wider heads) are as big as a 32 KB L1 and, asked into it,
// evicted the window's own converted keys, scores and queries. On the 2-core Zen 4 (attention
// bench, K/V from DRAM, heads_per_call 2 or 4, least CPU time of 3 alternating runs) into L2
// took 0.58-0.67x the time of f16 walks on the AVX2 table and 0.49-0.67x on AVX-512 (q8_0
// 0.87-0.92x), with K/V in the cache level.
class NextWindow {
 public:
  NextWindow(const Decode& D, int first_key, int n)
      : k_(D, D.a->block_k, first_key), v_(D, D.a->block_v, first_key), n_(n),
        head_bytes_(kv_head_bytes(D.a->kv_type, D.hd)), span_heads_(D.span_heads) {}
  void key() {
    if (n_ == 0) return;
    if (part_ == 0) k_row_ = k_.next(), v_row_ = v_.next();
    lines(k_row_ + part_ * head_bytes_);
    lines(v_row_ + part_ * head_bytes_);
    if (++part_ == span_heads_) part_ = 0, --n_;
  }

 private:
  // Every cache line of one head's part (the last byte's line too when it is not aligned).
  void lines(const std::byte* part) const {
    for (size_t o = 0; o < head_bytes_; o += 64) _mm_prefetch(reinterpret_cast<const char*>(part + o), _MM_HINT_T1);
    _mm_prefetch(reinterpret_cast<const char*>(part + head_bytes_ - 1), _MM_HINT_T1);
  }

  RowWalk k_, v_;
  int n_;
  size_t head_bytes_;
  int span_heads_;
  int part_ = 0;  // parts of the current key's span already asked for
  const std::byte* k_row_ = nullptr;
  const std::byte* v_row_ = nullptr;
};

// Dims [i, i + 8) of a K/V row as floats, as load_kv converts them.
template <DType T>
inline __m256 load8(const std::byte* row, int i) {
  if constexpr (T == DType::kF16) {
    return _mm256_cvtph_ps(load_128(row + 2 * i));
  } else if constexpr (T == DType::kQ8_0) {
    const auto* b = reinterpret_cast<const BlockQ8_0*>(row) + i / kQK;
    const __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b->qs + i % kQK)));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(q), _mm256_set1_ps(load_fp16(&b->d)));
  } else {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + i);
  }
}

// A walk over rows loading dims d + i points at byte dim_offset_bytes(d) of each row and loads
// dims dim_offset_rest(d) + i from there: constant offsets for f16 and f32 (the whole of d in
// the pointer), whole q8_0 blocks in the pointer and the rest of d in the index for q8_0.
template <DType T>
constexpr size_t dim_offset_bytes(int d) {
  if constexpr (T == DType::kF16) return 2 * static_cast<size_t>(d);
  else if constexpr (T == DType::kQ8_0) return static_cast<size_t>(d / kQK) * sizeof(BlockQ8_0);
  else return 4 * static_cast<size_t>(d);
}
template <DType T>
constexpr int dim_offset_rest(int d) {
  return T == DType::kQ8_0 ? d % kQK : 0;
}

// Walks keys [0, n_tokens) a window of whole blocks (up to kWindowKeys keys) at a time, calling
// window(b0, n_window, next): first block b0, its n_window keys, and the prefetcher of the
// window after it (D's span), which the window's K conversions drive. The first window has
// nothing to overlap its misses with, so all its lines are asked for at once.
template <class Window>
[[gnu::always_inline]] inline void for_each_window(const Decode& D, int n_tokens, Window window) {
  const int bt = D.a->block_tokens;
  const int window_keys = (bt < kWindowKeys ? kWindowKeys / bt : 1) * bt;
  {
    const int n_first = n_tokens < window_keys ? n_tokens : window_keys;
    NextWindow first(D, 0, n_first);
    for (int c = 0; c < n_first * D.span_heads; ++c) first.key();
  }
  for (int w0 = 0; w0 < n_tokens; w0 += window_keys) {
    const int n_window = n_tokens - w0 < window_keys ? n_tokens - w0 : window_keys;
    const int n_after = n_tokens - w0 - n_window;
    NextWindow next(D, w0 + n_window, n_after < window_keys ? n_after : window_keys);
    window(w0 / bt, n_window, next);
  }
}

// Divides output rows [0, n_heads) of D.ob, query heads first_head..., by their softmax sums
// (with the heads' sinks, AttentionArgs::sinks; a zero sum leaves zeros).
inline void divide_by_sums(const Decode& D, const float* sums, const float* maxes, int first_head, int n_heads) {
  for (int j = 0; j < n_heads; ++j) {
    const float sum = sum_with_sink(D.a->sinks, first_head + j, maxes[j], sums[j]);
    const __m256 inv = _mm256_set1_ps(sum > 0.0f ? 1.0f / sum : 0.0f);
    float* o = D.ob + j * D.hd;
    for (int i = 0; i < D.hd; i += 8) _mm256_storeu_ps(o + i, _mm256_mul_ps(_mm256_loadu_ps(o + i), inv));
  }
}

}  // namespace

// Key lanes (avx2_attention_decode_keys.cc) serve kv heads of at most this many query heads,
// on the AVX-512 table too (8 lanes there as well): with the heads of a call walked together,
// a 16 x 128 layer takes 336-387 us in the attention bench against 591-647 on 8 heads x 2 keys.
// Two query heads take the 4-head layout instead, half its lanes padding: its 8 x 4 x 256
// (Gemma 3 4B) walks took 0.63-0.85x the time of key lanes (attention bench, one run each,
// avx2 and avx512 tables, in cache and from DRAM at depth 4096), its 32 x 16 x 128 (27B)
// 0.79-0.98x; the transposes cost key lanes more than the padding costs the 4-head layout.
constexpr int kKeyLanesMaxGroup = 1;

// Kv heads one key-lanes walk takes together (their state: a max and a sum per query head).
constexpr int kKeyLanesMaxHeads = 16;

// For the D.span_heads <= kKeyLanesMaxHeads kv heads from first_kv, each of D.group <=
// kKeyLanesMaxGroup query heads: writes out's rows of those heads (q's and out's layout, as
// attend() computes them) over the first n_tokens keys. The keys are walked once for all the heads, window by
// window, each head converting, scoring and folding its part of the window in turn, so a
// K/V row is read as one span of those heads (a thread's part of the row) instead of one
// strided pass over the cache per head; every head sees the operations of a walk of its own.
// D: head_offset is first_kv's; out's rows of the heads serve as their running outputs.
void attend_by_key(const Decode& D, const float* q, float* out, int first_kv, int n_tokens);

}  // namespace strata::kernels::cpu::STRATA_SIMD::decode
