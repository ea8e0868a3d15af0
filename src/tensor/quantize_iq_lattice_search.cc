#include "tensor/quantize_iq_lattice_search.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <limits>

#include "tensor/iq_grids.h"

namespace strata::iq {

namespace {

// A candidate may be farther from the cell's box than the bound by this relative slack: the
// float distances nearest() compares carry ~1e-6 relative rounding, so the entry a float
// brute force picks is always among the candidates.
constexpr double kSlack = 1e-5;

double square(double v) { return v * v; }

// Per (box level k, entry level m): the smallest and largest squared distance from level m's
// value to the interval of queries that round to level k.
struct LevelTerms {
  std::vector<double> min_term, max_term;  // [k * n_levels + m]
};

LevelTerms level_terms(const std::vector<float>& levels, const std::vector<float>& mids, float lo, float hi) {
  const size_t n = levels.size();
  LevelTerms t{std::vector<double>(n * n), std::vector<double>(n * n)};
  for (size_t k = 0; k < n; ++k) {
    const double a = k == 0 ? lo : mids[k - 1], b = k + 1 == n ? hi : mids[k];
    for (size_t m = 0; m < n; ++m) {
      const double v = levels[m];
      t.min_term[k * n + m] = v < a ? square(a - v) : v > b ? square(v - b) : 0.0;
      t.max_term[k * n + m] = std::max(square(v - a), square(v - b));
    }
  }
  return t;
}

}  // namespace

LatticeSearch::LatticeSearch(std::vector<float> entries, int dims, float lo, float hi)
    : entries_(std::move(entries)), dims_(dims), lo_(lo), hi_(hi), levels_(entries_) {
  assert(dims_ > 0 && dims_ <= kMaxDims && dims_ % 4 == 0 && entries_.size() % dims_ == 0 && size() <= 65536);
  std::sort(levels_.begin(), levels_.end());
  levels_.erase(std::unique(levels_.begin(), levels_.end()), levels_.end());
  for (size_t k = 0; k + 1 < levels_.size(); ++k) midpoints_.push_back((levels_[k] + levels_[k + 1]) * 0.5f);
  std::vector<uint8_t> entry_levels(entries_.size());  // each coordinate's level index
  for (size_t i = 0; i < entries_.size(); ++i) {
    const auto level = std::lower_bound(levels_.begin(), levels_.end(), entries_[i]);
    entry_levels[i] = static_cast<uint8_t>(level - levels_.begin());
  }
  size_t n_cells = 1;
  for (int j = 0; j < dims_; ++j) n_cells *= levels_.size();
  if (dims_ == 8 && levels_.size() == 3) {
    build_halves(entry_levels, n_cells);
  } else {
    build_candidates(entry_levels, n_cells);
  }
}

void LatticeSearch::build_candidates(const std::vector<uint8_t>& entry_levels, size_t n_cells) {
  const size_t n_levels = levels_.size();
  const LevelTerms terms = level_terms(levels_, midpoints_, lo_, hi_);
  std::vector<double> min_d(size());
  cell_start_.reserve(n_cells + 1);
  for (size_t cell = 0; cell < n_cells; ++cell) {
    cell_start_.push_back(static_cast<uint32_t>(candidates_.size()));
    size_t box[kMaxDims];
    for (size_t j = 0, c = cell; j < static_cast<size_t>(dims_); ++j, c /= n_levels) box[j] = c % n_levels;
    double bound = std::numeric_limits<double>::infinity();
    for (int e = 0; e < size(); ++e) {
      double lo_sum = 0, hi_sum = 0;
      for (int j = 0; j < dims_; ++j) {
        const size_t at = box[j] * n_levels + entry_levels[static_cast<size_t>(e) * dims_ + j];
        lo_sum += terms.min_term[at];
        hi_sum += terms.max_term[at];
      }
      min_d[e] = lo_sum;
      bound = std::min(bound, hi_sum);
    }
    for (int e = 0; e < size(); ++e) {
      if (min_d[e] <= bound * (1 + kSlack) + 1e-9) candidates_.push_back(static_cast<uint16_t>(e));
    }
  }
  cell_start_.push_back(static_cast<uint32_t>(candidates_.size()));
}

void LatticeSearch::build_halves(const std::vector<uint8_t>& entry_levels, size_t n_cells) {
  std::vector<int> first(size()), second(size());
  for (int e = 0; e < size(); ++e) {
    int combo[2] = {0, 0};
    for (int j = 7; j >= 0; --j) combo[j / 4] = 3 * combo[j / 4] + entry_levels[static_cast<size_t>(e) * 8 + j];
    first[e] = combo[0];
    second[e] = combo[1];
  }
  for (int a = 0; a < 81; ++a) {
    by_first_start_[a] = static_cast<uint32_t>(by_first_.size());
    for (int e = 0; e < size(); ++e) {
      if (first[e] == a) by_first_.push_back({static_cast<uint8_t>(second[e]), static_cast<uint16_t>(e)});
    }
  }
  by_first_start_[81] = static_cast<uint32_t>(by_first_.size());
  // Squared distance between the level tuples of two half combinations.
  double combo_d2[81][81];
  for (int a = 0; a < 81; ++a) {
    for (int b = 0; b < 81; ++b) {
      double sum = 0;
      for (int j = 0, x = a, y = b; j < 4; ++j, x /= 3, y /= 3) sum += square(levels_[x % 3] - levels_[y % 3]);
      combo_d2[a][b] = sum;
    }
  }
  cell_guess_.resize(n_cells);
  for (size_t cell = 0; cell < n_cells; ++cell) {
    const size_t a = cell % 81, b = cell / 81;
    auto centre_d2 = [&](int e) { return combo_d2[a][first[e]] + combo_d2[b][second[e]]; };
    int best = 0;
    for (int e = 1; e < size(); ++e) {
      if (centre_d2(e) < centre_d2(best)) best = e;
    }
    cell_guess_[cell] = static_cast<uint16_t>(best);
  }
  half_combos_.resize(2 * static_cast<size_t>(size()));
  for (int e = 0; e < size(); ++e) {
    half_combos_[2 * e] = static_cast<uint8_t>(first[e]);
    half_combos_[2 * e + 1] = static_cast<uint8_t>(second[e]);
  }
}

float LatticeSearch::clamp(float t) const {
  if (!(t >= lo_)) return lo_;
  return t > hi_ ? hi_ : t;
}

float LatticeSearch::distance2(const float* clamped, int index) const {
  const float* e = entry(index);
  float total = 0;
  for (int h = 0; h < dims_; h += 4) {
    float part = 0;
    for (int j = h; j < h + 4; ++j) {
      const float d = clamped[j] - e[j];
      part += d * d;
    }
    total += part;
  }
  return total;
}

// The partial distances of all 81 level combinations of each half, built as prefix sums in
// coordinate order (the same float operations as distance2()). Starting from the cell's
// guess, every first-half combination whose distance plus the smallest second-half
// distance could still reach the best is scanned in full: exact, and few are scanned.
int LatticeSearch::nearest_by_halves(const float* clamped, size_t cell, float* distance2_out) const {
  float half[2][81];
  for (int h = 0; h < 2; ++h) {
    float* prefix = half[h];
    prefix[0] = 0.0f;
    for (int j = 0, n = 1; j < 4; ++j, n *= 3) {
      // Combination c + n * k extends prefix c (digits of coordinates < j) with level k.
      for (int k = 2; k >= 0; --k) {
        const float d = clamped[4 * h + j] - levels_[k];
        for (int c = 0; c < n; ++c) prefix[c + n * k] = prefix[c] + d * d;
      }
    }
  }
  const float min_second = *std::min_element(half[1], half[1] + 81);
  int best = cell_guess_[cell];
  float best_d = half[0][half_combos_[2 * best]] + half[1][half_combos_[2 * best + 1]];
  for (int a = 0; a < 81; ++a) {
    if (half[0][a] + min_second > best_d) continue;
    for (uint32_t i = by_first_start_[a]; i < by_first_start_[a + 1]; ++i) {
      const float d = half[0][a] + half[1][by_first_[i].second];
      if (d < best_d || (d == best_d && by_first_[i].entry < best)) {
        best_d = d;
        best = by_first_[i].entry;
      }
    }
  }
  if (distance2_out != nullptr) *distance2_out = best_d;
  return best;
}

int LatticeSearch::level_of(float clamped) const {
  int k = 0;
  while (k < static_cast<int>(midpoints_.size()) && clamped > midpoints_[k]) ++k;
  return k;
}

int LatticeSearch::nearest(const float* t, float* distance2_out) const {
  float c[kMaxDims];
  size_t cell = 0, stride = 1;
  for (int j = 0; j < dims_; ++j, stride *= levels_.size()) {
    c[j] = clamp(t[j]);
    cell += static_cast<size_t>(level_of(c[j])) * stride;
  }
  if (!half_combos_.empty()) return nearest_by_halves(c, cell, distance2_out);
  int best = candidates_[cell_start_[cell]];
  float best_d = distance2(c, best);
  for (uint32_t i = cell_start_[cell] + 1; i < cell_start_[cell + 1]; ++i) {
    const float d = distance2(c, candidates_[i]);
    if (d < best_d) {
      best_d = d;
      best = candidates_[i];
    }
  }
  if (distance2_out != nullptr) *distance2_out = best_d;
  return best;
}

namespace {

// Grid entries as float coordinates; element j of an entry is byte j (signed for IQ1).
template <typename Word, size_t N>
std::vector<float> unpack(const Word (&grid)[N], int dims, bool is_signed) {
  std::vector<float> out;
  out.reserve(N * dims);
  for (Word w : grid) {
    for (int j = 0; j < dims; ++j) {
      const uint8_t b = grid_byte(w, j);
      out.push_back(is_signed ? static_cast<float>(static_cast<int8_t>(b)) : static_cast<float>(b));
    }
  }
  return out;
}

template <typename Word, size_t N>
LatticeSearch magnitude_search(const Word (&grid)[N], int dims) {
  std::vector<float> entries = unpack(grid, dims, false);
  const float top = *std::max_element(entries.begin(), entries.end());
  return LatticeSearch(std::move(entries), dims, 0.0f, top);
}

}  // namespace

const LatticeSearch& iq2xxs_search() {
  static const LatticeSearch search = magnitude_search(kIq2xxsGrid, 8);
  return search;
}
const LatticeSearch& iq2xs_search() {
  static const LatticeSearch search = magnitude_search(kIq2xsGrid, 8);
  return search;
}
const LatticeSearch& iq2s_search() {
  static const LatticeSearch search = magnitude_search(kIq2sGrid, 8);
  return search;
}
const LatticeSearch& iq3xxs_search() {
  static const LatticeSearch search = magnitude_search(kIq3xxsGrid, 4);
  return search;
}
const LatticeSearch& iq3s_search() {
  static const LatticeSearch search = magnitude_search(kIq3sGrid, 4);
  return search;
}
const LatticeSearch& iq1s_search() {
  static const LatticeSearch search(unpack(kIq1sGrid, 8, true), 8, -1.0f - 2 * kIq1Delta, 1.0f + 2 * kIq1Delta);
  return search;
}

}  // namespace strata::iq
