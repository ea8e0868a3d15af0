// Streaming read bandwidth. SSE2 loads (baseline x86-64) into four independent
// accumulators are enough to saturate DRAM; the sum is kept observable so the reads
// cannot be optimised away.
#include "kernels/bandwidth.h"

#include <emmintrin.h>

#include <cstdint>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/clock.h"

namespace strata::kernels {

namespace {

constexpr int kPasses = 3;

// Sum of the buffer's 64-bit words, so the reads stay observable.
int64_t read_range(const std::byte* p, size_t n_bytes) {
  __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
  for (size_t i = 0; i + 64 <= n_bytes; i += 64) {
    a0 = _mm_add_epi64(a0, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i)));
    a1 = _mm_add_epi64(a1, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 16)));
    a2 = _mm_add_epi64(a2, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 32)));
    a3 = _mm_add_epi64(a3, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 48)));
  }
  const __m128i s = _mm_add_epi64(_mm_add_epi64(a0, a1), _mm_add_epi64(a2, a3));
  return _mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s));
}

}  // namespace

double measure_read_bandwidth_gbs(ThreadPool& pool, size_t buffer_bytes) {
  const int n_threads = pool.size();
  const size_t share = buffer_bytes / n_threads / 64 * 64;
  if (share == 0) return 0.0;
  AlignedBuffer buffer;
  buffer.resize(share * n_threads);  // zero-filled, so every page is resident before timing
  if (buffer.data() == nullptr) return 0.0;
  for (size_t i = 0; i < buffer.size(); i += 4096) buffer.data()[i] = std::byte{1};
  std::vector<int64_t> sums(n_threads);
  double best_s = 0.0;
  for (int pass = 0; pass < kPasses; ++pass) {
    const double start_s = monotonic_s();
    pool.parallel_for(n_threads, [&](int task, int) { sums[task] = read_range(buffer.data() + task * share, share); });
    const double elapsed_s = monotonic_s() - start_s;
    if (pass == 0 || elapsed_s < best_s) best_s = elapsed_s;
  }
  int64_t checksum = 0;
  for (int64_t s : sums) checksum += s;
  // Every page holds a 1 in its first byte, so a skipped read would show up here.
  if (checksum < 0) return 0.0;
  return best_s > 0.0 ? static_cast<double>(share * n_threads) / best_s / 1e9 : 0.0;
}

}  // namespace strata::kernels
