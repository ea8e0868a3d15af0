// ExpertLoadWindow: how many rows each (layer, expert) of a mixture-of-experts model was
// routed over the last kSpan_s seconds, for the Monitor's heatmap and the imbalance gauge.
//
// A ring of one-second buckets, each n_layer * n_expert counts, sized once at construction:
// record() and advance() allocate nothing. totals() is kept up to date incrementally (a
// bucket's counts are subtracted when it falls out of the span), so reading it costs no
// summing over buckets. A default-constructed window (dense model) has no cells.
//
// Not thread-safe: the engine guards it with its snapshot lock (the engine thread records,
// snapshot() advances it to the caller's time).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace strata {

class ExpertLoadWindow {
 public:
  static constexpr int kSpan_s = 60;

  ExpertLoadWindow() = default;
  ExpertLoadWindow(int n_layer, int n_expert);

  int n_cells() const { return static_cast<int>(totals_.size()); }
  // Adds one step's counts (counts[layer * n_expert + expert]; size n_cells()) at time_s.
  // Times should not go backwards; an earlier one counts as the newest second seen. Counts
  // of another size are ignored.
  void record(double time_s, std::span<const uint32_t> counts);
  // Drops the seconds that are kSpan_s or more before now_s, so totals() covers the
  // seconds (now_s - kSpan_s, now_s].
  void advance(double now_s);
  // Counts per cell over the span, as of the last record() or advance().
  std::span<const uint64_t> totals() const { return totals_; }
  // Every count ever recorded, summed over cells (never drops).
  uint64_t recorded_total() const { return recorded_total_; }

 private:
  int64_t newest_second_ = -1;
  uint64_t recorded_total_ = 0;
  std::vector<uint64_t> totals_;         // n_cells
  std::vector<uint32_t> buckets_;        // kSpan_s x n_cells: bucket b holds second s with s % kSpan_s == b
  std::vector<int64_t> bucket_second_;   // the second each bucket holds; -1: empty
};

}  // namespace strata
