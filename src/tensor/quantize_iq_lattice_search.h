// Nearest-entry search in an i-quant codebook (iq_grids.h), for the lattice encoders.
//
// A codebook is a set of points ("entries") in 4 or 8 dimensions whose coordinates take a
// few values ("levels": 3 for IQ2 and IQ1, 8 for IQ3). The search clamps a query to the box
// [lo, hi]^dims, rounds each coordinate to its nearest level, and so lands in a cell of the
// level lattice; it then scores only the cell's candidates, precomputed as every entry that
// can be nearest to some point of the cell (its distance to the cell's box is at most the
// smallest "farthest distance" of any entry to that box). The answer is therefore the
// exact nearest entry of the clamped query, as a brute force over all entries gives it
// (distance2() below, in float; lowest index on ties).
//
// With 3 levels in 8 dimensions (IQ2, IQ1) those candidate sets are large (hundreds, the
// whole grid for the cell around 0), so these grids search differently, exactly too:
// nearest() tabulates the partial distance of each half (4 coordinates, 81 level
// combinations), starts from the entry nearest the cell's centre, and scans only the entries
// whose first half's distance plus the smallest second-half distance can still win.
//
// Ownership and thread-safety: a LatticeSearch owns its tables and is immutable after
// construction. The per-type instances below are function-local constants built on first
// use (thread-safe initialisation, a few hundred ms for IQ1_S) and shared read-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::iq {

class LatticeSearch {
 public:
  static constexpr int kMaxDims = 8;

  // entries: n_entries * dims coordinates, entry i's coordinate j at [i * dims + j]; every
  // coordinate must lie in [lo, hi]. At most 65536 entries.
  LatticeSearch(std::vector<float> entries, int dims, float lo, float hi);

  int dims() const { return dims_; }
  int size() const { return static_cast<int>(entries_.size()) / dims_; }
  const float* entry(int index) const { return entries_.data() + static_cast<size_t>(index) * dims_; }
  // The largest coordinate value of any entry.
  float top_level() const { return levels_.back(); }

  // t clamped to [lo, hi] (NaN becomes lo), the query every search answers for.
  float clamp(float t) const;
  // Squared distance of a clamped query to entry index (the quantity nearest() minimises):
  // per half of 4 coordinates the squared differences summed in order from 0, then the
  // first half's sum plus the second's.
  float distance2(const float* clamped, int index) const;
  // Index of the entry nearest to the clamped t; *distance2_out (if not null) gets its distance.
  int nearest(const float* t, float* distance2_out = nullptr) const;

 private:
  int level_of(float clamped) const;
  int nearest_by_halves(const float* clamped, size_t cell, float* distance2_out) const;
  void build_candidates(const std::vector<uint8_t>& entry_levels, size_t n_cells);
  void build_halves(const std::vector<uint8_t>& entry_levels, size_t n_cells);

  struct SecondHalf {
    uint8_t second;  // the second half's level combination
    uint16_t entry;
  };

  std::vector<float> entries_;
  int dims_;
  float lo_, hi_;
  std::vector<float> levels_;    // the distinct coordinate values, ascending
  std::vector<float> midpoints_; // midpoints_[k]: between levels_[k] and levels_[k + 1]
  std::vector<uint32_t> cell_start_;  // candidates of cell c: [cell_start_[c], cell_start_[c + 1])
  std::vector<uint16_t> candidates_;  // entry indices, ascending within a cell
  // With 8 dimensions and 3 levels (else empty): per entry, the level combination (base-3
  // digits, the lower coordinate first) of its first and its second half; the entries by
  // first-half combination (ascending index within one); per cell, the entry nearest its centre.
  std::vector<uint8_t> half_combos_;
  std::vector<SecondHalf> by_first_;
  uint32_t by_first_start_[82] = {};
  std::vector<uint16_t> cell_guess_;
};

// The codebooks as searches: IQ2 and IQ3 grids over magnitudes [0, top level]; the IQ1 grid
// ({-1, 0, 1} octets) over [-1 - 2 kIq1Delta, 1 + 2 kIq1Delta], the range of x / scale - delta
// when the scale puts the largest |x| at 1 + kIq1Delta.
const LatticeSearch& iq2xxs_search();
const LatticeSearch& iq2xs_search();
const LatticeSearch& iq2s_search();
const LatticeSearch& iq3xxs_search();
const LatticeSearch& iq3s_search();
const LatticeSearch& iq1s_search();

}  // namespace strata::iq
